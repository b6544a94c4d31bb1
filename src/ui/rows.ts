// One line of the gate table: what `guild-bus status` says of a gate, plus the reviewer's identity and the cap.
import path from "node:path";
import type { BusContext } from "../bus/context.js";
import { viewGate } from "../commands/gate-view.js";
import { capInForce, openRound, roundReviewerIdentity } from "../core/gate-queries.js";
import { safeStrings } from "../core/terminal-safe.js";
import { awaitsManualAnswer } from "../core/next-step.js";
import { isoTimeMs } from "../core/iso-time.js";

export interface GateRow {
  run: string;
  gate: string;
  status: string;
  state: string;
  round: number;
  cap: number;
  reviewer: string;
  model: string;
  family: string;
  independence: string;
  waitingFor: string;
  /** When the review was requested (ISO time, as written; the page shows the age). */
  requestedAt: string | null;
  /** That time read as `check` reads it (SPEC §0), in ms: what "newest first" orders by; null when it names no time. */
  requestedMs: number | null;
  /** Whether a person can act on it in the console (a manual packet to answer, an escalation, the author's turn). */
  actionable: boolean;
  /** What the filter box searches, lower case (searchable()): rowMatches and the page's script read only this. */
  search: string;
}

/** A gate's row, and the artifact file an ended pass (satisfied, force-passed) rests on: it can stop holding without
 * anything in the gate's directory changing, so the board watches that file. */
export function gateRow(ctx: BusContext, run: string, gate: string): { row: GateRow; passedArtifact: string | null } {
  const { snapshot: s, output, decision } = viewGate(ctx, run, gate);
  const passed = s.outcome?.status === "satisfied" || s.outcome?.status === "force_passed";
  const passedArtifact = passed && s.request ? path.resolve(ctx.layout.root, s.request.artifact_path) : null;
  return { row: rowOf(ctx, run, gate, { snapshot: s, output, decision }), passedArtifact };
}

function rowOf(
  ctx: BusContext,
  run: string,
  gate: string,
  { snapshot: s, output, decision }: Pick<ReturnType<typeof viewGate>, "snapshot" | "output" | "decision">,
): GateRow {
  const who = roundReviewerIdentity(s, openRound(s)); // a manual packet names no model: the answer does
  // the page's script shows these as text, from the page and from the event stream: terminal-safe, as pages.ts shows text
  return searchable(
    safeStrings({
      run,
      gate,
      status: output.status,
      state: output.state,
      round: output.rounds,
      cap: capInForce(s, ctx.settings),
      reviewer: output.reviewer_host ?? "-",
      model: who.model ?? "-",
      family: who.family ?? "-",
      independence: output.independence ?? "-",
      waitingFor: output.waiting_for,
      requestedAt: s.request?.requested_at ?? null,
      requestedMs: isoTimeMs(s.request?.requested_at),
      actionable: awaitsManualAnswer(s, decision) || decision.state === "awaiting_decision" || decision.state === "awaiting_author",
    }),
  );
}

/** A row with what the filter box searches: the words it shows and its state, one rule for the server and the page. */
export function searchable(row: Omit<GateRow, "search">): GateRow {
  const { run, gate, status, state, round, cap, reviewer, model, family, independence, waitingFor } = row;
  const words = [run, gate, status, state, `${round}/${cap}`, reviewer, model, family, independence, waitingFor];
  return { ...row, search: words.join(" ").toLowerCase() };
}

/** Newest request first (a row whose request names no time last), then by run and gate: the page inserts rows so too. */
export function newestFirst(a: GateRow, b: GateRow): number {
  const [x, y] = [a.requestedMs ?? -Infinity, b.requestedMs ?? -Infinity];
  return (x === y ? 0 : y > x ? 1 : -1) || a.run.localeCompare(b.run) || a.gate.localeCompare(b.gate);
}
