// `guild-bus status` as the one command layer: every gate's view, the next step, the last round's findings, and the
// exit code a script can test. The CLI only prints what this returns.
import type { BusContext } from "../bus/context.js";
import type { GateListing } from "../bus/gate-list.js";
import { capInForce, lastVerdictRound, openRound, roundReviewerIdentity } from "../core/gate-queries.js";
import type { NextStep } from "../core/next-step.js";
import type { Reverification } from "../core/reverify.js";
import type { ReviewBrokerOutput } from "../core/status.js";
import { type Answer, refusing } from "./answer.js";
import { findingsOf, type RoundFinding } from "./findings.js";
import { reverifyGate, type GateView, viewGate } from "./gate-view.js";
import { gateReads } from "../workers/gate-reads.js";
import { currentGates } from "../bus/gate-history.js";
import type { Layout } from "../bus/layout.js";
import { type ListedGates, listedGates, type ShownGate, type ShownScope, STILL_MOVING_EXIT } from "./status-scope.js";

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
 * The listed gates without history, unless the scope asked for every gate: a gate that ended and has not changed for
 * a day is counted, not read (so status costs what the open and recent gates cost, however many runs the project keeps).
 */
export function withoutHistory(
  layout: Layout,
  listed: ListedGates,
  now?: number,
): { gates: ShownGate[]; ignored: ListedGates["ignored"]; history: number } {
  const { current, history } = listed.leaveOutHistory ? currentGates(layout, listed.gates, now) : { current: listed.gates, history: 0 };
  return { gates: current, ignored: listed.ignored, history };
}

/** Every gate, one run's, or one gate's, as `listedGates` and `withoutHistory` pick them. */
export function shownGates(layout: Layout, scope: ShownScope): Answer<ReturnType<typeof withoutHistory>> {
  const listed = listedGates(layout, scope);
  return listed.ok ? { ok: true, ...withoutHistory(layout, listed, scope.now) } : listed;
}

/** Every gate, one run's, or one gate's (as `shownGates` picks them), each as status reports it. */
export function gateStatuses(
  ctx: BusContext,
  scope: ShownScope,
): Answer<{ rows: StatusRow[]; ignored: GateListing["ignored"]; history: number }> {
  return refusing(() => {
    const shown = shownGates(ctx.layout, scope);
    return shown.ok ? { ok: true, rows: rowsOf(ctx, shown.gates, scope.verify), ignored: shown.ignored, history: shown.history } : shown;
  });
}

/** The rows of gates `shownGates` picked: the `status` command loads this module only when a gate is listed. */
export function gateRows(ctx: BusContext, gates: ShownGate[], verify?: boolean): Answer<{ rows: StatusRow[] }> {
  return refusing(() => ({ ok: true, rows: rowsOf(ctx, gates, verify) }));
}

const rowsOf = (ctx: BusContext, gates: ShownGate[], verify?: boolean) => gates.map((g) => statusRow(ctx, g.runId, g.gate, verify));
