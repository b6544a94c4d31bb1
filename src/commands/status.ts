// `guild-bus status` as the one command layer: every gate's view, the next step, the last round's findings, and the
// exit code a script can test. The CLI only prints what this returns.
import type { BusContext } from "../bus/context.js";
import { currentGates, type GateListing, listGates } from "../bus/gate-list.js";
import { capInForce, lastVerdictRound, openRound, roundReviewerIdentity } from "../core/gate-queries.js";
import type { NextStep } from "../core/next-step.js";
import type { Reverification } from "../core/reverify.js";
import type { ReviewBrokerOutput } from "../core/status.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { type Answer, refusing } from "./answer.js";
import { assertGateExists } from "./gate-exists.js";
import { findingsOf, type RoundFinding } from "./findings.js";
import { reverifyGate, type GateView, viewGate } from "./gate-view.js";
import { gateReads } from "../workers/gate-reads.js";

export type StatusRow = ReviewBrokerOutput & {
  rejected: Array<{ file: string; reason: string }>;
  problems: Array<{ file: string; reason: string }>;
  verify?: Reverification;
  next: NextStep;
  /** The last verified round's findings (blocking first), and its summary. */
  last_round: { round: number; summary: string | null; findings: RoundFinding[]; more: number } | null;
  /** The round cap in force, the open packet's reviewer model, and when the review was requested. */
  cap: number;
  reviewer_model: string | null;
  requested_at: string | null;
  /** What `--wait` would exit with now (SPEC §17); 6 while the gate still moves. */
  exit_code: number;
};

/** Exit 6: the gate still moves (a `--wait` that timed out, or `status --exit-status` on an open gate). */
export const STILL_MOVING_EXIT = 6;

function lastRound(ctx: BusContext, v: GateView): StatusRow["last_round"] {
  const round = lastVerdictRound(v.snapshot);
  if (!round) return null;
  const found = findingsOf(ctx, v.snapshot, round);
  return { round, summary: found?.summary ?? null, findings: found?.findings ?? [], more: found?.more ?? 0 };
}

/** One gate as status reports it. */
export function statusRow(ctx: BusContext, runId: string, gate: string, verify = false): StatusRow {
  const v = viewGate(ctx, runId, gate);
  const check = verify ? reverifyGate(ctx, v) : null;
  return {
    ...v.output,
    rejected: gateReads(ctx, v.snapshot).rejected(), // scrubbed: a reason may quote a key
    problems: v.snapshot.problems,
    ...(check ? { verify: check } : {}),
    cap: capInForce(v.snapshot, ctx.settings),
    reviewer_model: roundReviewerIdentity(v.snapshot, openRound(v.snapshot)).model,
    requested_at: v.snapshot.request?.requested_at ?? null,
    next: v.next,
    last_round: lastRound(ctx, v),
    exit_code: v.exitCode ?? STILL_MOVING_EXIT,
  };
}

/**
 * Gates by urgency for `--exit-status`: a person is needed (5, 4, 3, and 2 for a pass whose bytes the artifact no longer
 * holds) before a gate that still moves (6), before done (0).
 */
const URGENCY = [5, 4, 3, 2, STILL_MOVING_EXIT, 0];

/** The one exit code for a set of gates: the most urgent of theirs (0 for none). A run or gate directory the bus
 * refuses (a link in its place) hides gates nobody can judge: 2, as a pass that does not hold, never "all done". */
export function statusExitCode(rows: Array<Pick<StatusRow, "exit_code">>, ignored: Array<{ hides?: unknown }> = []): number {
  const codes = [...rows.map((r) => r.exit_code), ...(ignored.some((i) => i.hides) ? [2] : [])];
  return URGENCY.find((code) => codes.includes(code)) ?? 0;
}

/**
 * Every gate, one run's, or one gate's; a run or gate that does not exist is refused, never invented. Without a run,
 * unless `all` or `verify` asks for every gate, a gate that ended and has not changed for a day is history: counted,
 * not read (so status costs what the open and recent gates cost, however many runs the project keeps).
 */
export function gateStatuses(
  ctx: BusContext,
  scope: { run?: string; gate?: string; verify?: boolean; all?: boolean; now?: number },
): Answer<{ rows: StatusRow[]; ignored: GateListing["ignored"]; history: number }> {
  return refusing(() => {
    const { layout } = ctx;
    const run = scope.run === undefined ? undefined : assertRunId(scope.run);
    if (run !== undefined) assertGateExists(layout, run, scope.gate);
    if (run !== undefined && scope.gate !== undefined)
      return { ok: true, rows: [statusRow(ctx, run, assertGate(scope.gate), scope.verify)], ignored: [], history: 0 };
    const listing = listGates(layout, run);
    const { current, history } =
      run === undefined && !scope.all && !scope.verify
        ? currentGates(layout, listing.gates, scope.now)
        : { current: listing.gates, history: 0 };
    return { ok: true, rows: current.map((g) => statusRow(ctx, g.runId, g.gate, scope.verify)), ignored: listing.ignored, history };
  });
}

/** The line that says history was left out, or null when none was. */
export function historyNote(history: number, asAll: string): string | null {
  if (!history) return null;
  return `not shown: ${history} gate${history === 1 ? "" : "s"} ended over a day ago, unchanged since (${asAll} lists every gate)`;
}
