// A gate's history, one entry per round: the packet issued, who reviewed and how independent, the verdict and its
// gate-pass conditions, each finding, restarts, escalations and decisions, and what changed in the artifact since
// the round before. Everything is read from the gate directory, bounded and scrubbed (src/workers/gate-reads.ts).
import type { BusContext } from "../bus/context.js";
import { type GateView, viewGate } from "../commands/gate-view.js";
import { type FindingView, listedFindings } from "../core/findings.js";
import { contestRefusal, gatePolicy, openRound } from "../core/gate-queries.js";
import { embeddedArtifact } from "../core/packet-body.js";
import { parsePacket } from "../core/packet.js";
import { roundLabel, rulingLines, trailEntries } from "../core/trail.js";
import type { Decision, Escalation, Failure, PacketFrontMatter, TrailEntry, VerdictFile } from "../spec/schemas.js";
import { gateReads } from "../workers/gate-reads.js";
import { artifactDiff, type DiffLine } from "./diff.js";

export interface RoundView {
  round: number;
  label: string;
  packet: PacketFrontMatter;
  /** The trail's word for the round: gate passed, gate not passed, verifying, ended without a result… */
  state: string;
  dispatch: string[];
  verdict: VerdictFile | null;
  summary: string | null;
  findings: FindingView[];
  moreFindings: number;
  rulings: string[];
  failure: Failure | null;
  brokenSeal: string | null;
  rebuttal: string | null;
  escalation: Escalation | null;
  decision: Decision | null;
  /** The artifact's change since the previous round's packet: null for the first, "same", or why there is none. */
  diff: { lines: DiffLine[] } | { note: string } | null;
}

export interface Timeline {
  view: GateView;
  /** An escalation before any packet (round 0), and its decision. */
  before: { escalation: Escalation; decision: Decision | null } | null;
  rounds: RoundView[];
  /** What a person can do here now, as the command layer would allow it. */
  can: { respond: boolean; decide: string[]; rebut: boolean; resubmit: boolean };
}

function diffNote(prev: string | null, next: string | null): RoundView["diff"] {
  if (prev === null || next === null) return { note: "no embedded artifact to compare (nightmare packets list paths)" };
  if (prev === next) return { note: "the artifact is unchanged since the previous round" };
  const lines = artifactDiff(prev, next);
  return lines ? { lines } : { note: "the artifact changed too much to show a line diff" };
}

export function gateTimeline(ctx: BusContext, run: string, gate: string): Timeline {
  const view = viewGate(ctx, run, gate);
  const s = view.snapshot;
  const reads = gateReads(ctx, s);
  const policy = gatePolicy(s, ctx.settings);
  const { entries } = trailEntries(s, reads.result, policy.stop);
  const byRound = new Map<number, TrailEntry>(entries.map((e) => [e.round, e]));
  const text = (name: string): string | null => {
    try {
      return reads.text(name);
    } catch {
      return null; // unreadable or gone: the round is shown without it
    }
  };
  let previous: string | null = null;
  const rounds: RoundView[] = [];
  for (const round of [...s.packets.keys()].sort((a, b) => a - b)) {
    const packet = s.packets.get(round)!;
    const entry = byRound.get(round);
    const body = text(`packet-${round}.md`);
    const artifact = body === null ? null : embeddedArtifact(parsePacket(body).body);
    const result = s.results.has(round) ? reads.result(round) : null;
    const listed = listedFindings(result?.findings ?? result?.blocking_findings);
    rounds.push({
      round,
      label: entry ? roundLabel(entry) : "",
      packet,
      state: entry?.state ?? "",
      dispatch: entry?.dispatch ?? [],
      verdict: s.verdicts.get(round) ?? null,
      summary: typeof result?.summary === "string" ? result.summary : null,
      findings: listed.findings,
      moreFindings: listed.more,
      rulings: rulingLines(result?.rulings),
      failure: s.failures.get(round) ?? null,
      brokenSeal: s.brokenSeals.get(round) ?? null,
      rebuttal: s.rebuttals.has(round) ? text(`rebuttal-${round}.md`) : null,
      escalation: s.escalations.get(round) ?? null,
      decision: s.decisions.get(round) ?? null,
      diff: rounds.length ? diffNote(previous, artifact) : null,
    });
    previous = artifact;
  }
  const esc0 = s.escalations.get(0);
  const open = openRound(s);
  const packet = s.packets.get(open);
  const state = view.decision.state;
  return {
    view,
    before: esc0 ? { escalation: esc0, decision: s.decisions.get(0) ?? null } : null,
    rounds,
    can: {
      respond: !s.outcome && packet?.reviewer_adapter === "manual" && !s.results.has(open) && !s.failures.has(open),
      decide: state === "awaiting_decision" ? (s.escalations.get(view.decision.round)?.options ?? []) : [],
      rebut:
        state === "awaiting_author" && !s.rebuttals.has(view.decision.round) && contestRefusal(s, view.decision.round, policy) === null,
      resubmit: state === "awaiting_author",
    },
  };
}
