// Which gates `status` lists, and what it makes of them as a whole (its exit code, the history line): apart from
// the rows and the history (status.ts), so that a `status` with no gate to show loads no gate reading, deciding or
// packet proving.
import { type GateListing, listGates } from "../bus/gate-list.js";
import type { Layout } from "../bus/layout.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { type Answer, refusing } from "./answer.js";
import { assertGateExists } from "./gate-exists.js";

/** Exit 6: the gate still moves (a `--wait` that timed out, or `status --exit-status` on an open gate). */
export const STILL_MOVING_EXIT = 6;

export interface ShownScope {
  run?: string;
  gate?: string;
  verify?: boolean;
  all?: boolean;
  now?: number;
}
export type ShownGate = { runId: string; gate: string };
/** The gates a scope names, and whether history is to be left out of them (status.ts's `shownGates` does). */
export type ListedGates = { gates: ShownGate[]; ignored: GateListing["ignored"]; leaveOutHistory: boolean };

/**
 * Every gate, one run's, or one gate's; a run or gate that does not exist is refused, never invented. Without
 * a run, unless `all` or `verify` asks for every gate, a gate that ended and has not changed for a day is history
 * (left out by `shownGates`).
 */
export function listedGates(layout: Layout, scope: ShownScope): Answer<ListedGates> {
  return refusing(() => {
    const run = scope.run === undefined ? undefined : assertRunId(scope.run);
    if (run !== undefined) assertGateExists(layout, run, scope.gate);
    if (run !== undefined && scope.gate !== undefined)
      return { ok: true, gates: [{ runId: run, gate: assertGate(scope.gate) }], ignored: [], leaveOutHistory: false };
    const listing = listGates(layout, run);
    return { ok: true, ...listing, leaveOutHistory: run === undefined && !scope.all && !scope.verify };
  });
}

/**
 * Gates by urgency for `--exit-status`: a person is needed (5, 4, 3, and 2 for a pass whose bytes the artifact no longer
 * holds) before a gate that still moves (6), before done (0).
 */
const URGENCY = [5, 4, 3, 2, STILL_MOVING_EXIT, 0];

/** The one exit code for a set of gates: the most urgent of theirs (0 for none). A run or gate directory the bus
 * refuses (a link in its place) hides gates nobody can judge: 2, as a pass that does not hold, never "all done". */
export function statusExitCode(rows: Array<{ exit_code: number }>, ignored: Array<{ hides?: unknown }> = []): number {
  const codes = [...rows.map((r) => r.exit_code), ...(ignored.some((i) => i.hides) ? [2] : [])];
  return URGENCY.find((code) => codes.includes(code)) ?? 0;
}

/** The line that says history was left out, or null when none was. */
export function historyNote(history: number, asAll: string): string | null {
  if (!history) return null;
  return `not shown: ${history} gate${history === 1 ? "" : "s"} ended over a day ago, unchanged since (${asAll} lists every gate)`;
}
