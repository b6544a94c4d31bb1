// A gate's history, one entry per round: the packet issued, who reviewed and how independent, the verdict and its
// gate-pass conditions, each finding, restarts, escalations and decisions, and what changed in the artifact since
// the round before. Everything is read from the gate directory, bounded and scrubbed (src/workers/gate-reads.ts).
import type { BusContext } from "../bus/context.js";
import { rebutRefusalNow } from "../commands/author.js";
import { type GateView, viewGate } from "../commands/gate-view.js";
import { type FindingView, listedFindings, shownFindings } from "../core/findings.js";
import { gatePolicy, openRound } from "../core/gate-queries.js";
import { authorRevises, awaitsManualAnswer } from "../core/next-step.js";
import { slotFile } from "../core/slot-file.js";
import { reviewerViews } from "../core/snapshot.js";
import { embeddedArtifact } from "../core/packet-body.js";
import { parsePacket } from "../core/packet.js";
import { type ResultLookup, roundLabel, rulingLines, trailEntries } from "../core/trail.js";
import { ReadFault } from "../core/read-fault.js";
import type { Decision, Escalation, Failure, PacketFrontMatter, TrailEntry, VerdictFile } from "../spec/schemas.js";
import { gateReads } from "../workers/gate-reads.js";
import type { GateSnapshot } from "../core/snapshot.js";
import { artifactDiff, DIFF_TIMEOUT_MS, type DiffLine } from "./diff.js";

export interface RoundView {
  round: number;
  /** A quorum round: the member reviewer this entry is for (SPEC §26); null for the gate's own reviewer. */
  member: string | null;
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
  /** The round each action answers, as the command layer counts it (`respond`: the open round; the others: the waiting one). */
  at: { respond: number; waiting: number };
  /** The gate's rejected files, their reasons scrubbed (GateReads). */
  rejected: GateSnapshot["rejected"];
}

/** The time one page may spend on line diffs: a gate of many packets that each embed a large artifact (a hostile drop)
 * must not hold the console (one process serves every page and the live updates). The newest rounds go first. */
const PAGE_DIFF_BUDGET_MS = 1000;

function diffNote(prev: string | null, next: string | null, deadline: number): RoundView["diff"] {
  if (prev === null || next === null) return { note: "no embedded artifact to compare (nightmare packets list paths)" };
  if (prev === next) return { note: "the artifact is unchanged since the previous round" };
  const left = deadline - performance.now();
  const spent = { note: "not compared: this page spent its time on the newer rounds' diffs" };
  if (left <= 0) return spent;
  const lines = artifactDiff(prev, next, left);
  if (lines) return { lines };
  // cut short by what was left of the page's time, not by its own limit
  return left < DIFF_TIMEOUT_MS ? spent : { note: "the artifact changed too much to show a line diff" };
}

export function gateTimeline(ctx: BusContext, run: string, gate: string): Timeline {
  const view = viewGate(ctx, run, gate);
  const s = view.snapshot;
  const reads = gateReads(ctx, s);
  const decisions = reads.decisions();
  const policy = gatePolicy(s, ctx.settings);
  // a page is a view: a result the system failed to read now is shown without its findings (a worker would wait)
  const resultOf: ResultLookup = (round, member) => {
    try {
      return reads.result(round, member);
    } catch (error) {
      if (error instanceof ReadFault) return null;
      throw error;
    }
  };
  const { entries } = trailEntries(s, resultOf, policy.stop);
  const byPacket = new Map<string, TrailEntry>(entries.map((e) => [e.packet, e]));
  const text = (name: string): string | null => {
    try {
      return reads.text(name);
    } catch {
      return null; // unreadable or gone: the round is shown without it
    }
  };
  const rounds: RoundView[] = [];
  const compare: Array<{ view: RoundView; prev: string | null; next: string | null }> = [];
  // the gate's own reviewer, then each quorum member's: one entry per packet, each diffed against its own previous
  for (const v of reviewerViews(s)) {
    let previous: string | null = null;
    let first = true;
    for (const round of [...v.packets.keys()].sort((a, b) => a - b)) {
      const name = slotFile("packet", round, v.member);
      const entry = byPacket.get(name);
      const body = text(name);
      const artifact = body === null ? null : embeddedArtifact(parsePacket(body).body);
      const result = v.results.has(round) ? resultOf(round, v.member) : null;
      const listed = listedFindings(shownFindings(result));
      const view: RoundView = {
        round,
        member: v.member,
        label: (entry ? roundLabel(entry) : "") + (v.member === null ? "" : ` — reviewer ${v.member}`),
        packet: v.packets.get(round)!,
        state: entry?.state ?? "",
        dispatch: entry?.dispatch ?? [],
        verdict: v.verdicts.get(round) ?? null,
        summary: typeof result?.summary === "string" ? result.summary : null,
        findings: listed.findings,
        moreFindings: listed.more,
        rulings: rulingLines(result?.rulings),
        failure: v.failures.get(round) ?? null,
        brokenSeal: v.brokenSeals.get(round) ?? null,
        rebuttal: s.rebuttals.has(round) ? text(`rebuttal-${round}.md`) : null,
        escalation: s.escalations.get(round) ?? null,
        decision: decisions.get(round) ?? null,
        diff: null,
      };
      rounds.push(view);
      if (!first) compare.push({ view, prev: previous, next: artifact });
      previous = artifact;
      first = false;
    }
  }
  const deadline = performance.now() + PAGE_DIFF_BUDGET_MS;
  compare.sort((a, b) => b.view.round - a.view.round);
  for (const { view, prev, next } of compare) view.diff = diffNote(prev, next, deadline);
  rounds.sort((a, b) => a.round - b.round || (a.member ?? "").localeCompare(b.member ?? ""));
  // a quorum round's escalation, decision and rebuttal are the round's: shown once, after its last member
  rounds.forEach((r, i) => {
    if (rounds[i + 1]?.round === r.round) Object.assign(r, { rebuttal: null, escalation: null, decision: null });
  });
  const esc0 = s.escalations.get(0);
  const open = openRound(s);
  const state = view.decision.state;
  // the forms the page offers are the steps status and wait name (core/next-step): never one the command refuses
  const revises = authorRevises(s, view.decision, view.artifact);
  return {
    view,
    before: esc0 ? { escalation: esc0, decision: decisions.get(0) ?? null } : null,
    rounds,
    can: {
      respond: awaitsManualAnswer(s, view.decision),
      decide: state === "awaiting_decision" ? (s.escalations.get(view.decision.round)?.options ?? []) : [],
      rebut: rebutRefusalNow(ctx.settings, view) === null,
      resubmit: revises,
    },
    at: { respond: open, waiting: view.decision.round },
    rejected: reads.rejected(),
  };
}
