// Which listed gates are history (ended, unchanged for a day): apart from the listing (gate-list.ts), since telling
// needs the gate reader, which a command with no gate to show never loads.
import { ENDED_HISTORY_MS, gateEntryStats, type GateRef } from "./gate-list.js";
import { hasValidOutcome } from "./gate-reader.js";
import type { Layout } from "./layout.js";

/**
 * Whether the gate holds a valid outcome and nothing it rests on changed since `cutoffMs`: the directory, every entry
 * in it and every seal in .verified/ (gateEntryStats), by ctime (which no writer sets back; an edit in place, a file
 * added or replaced, all move it). A gate that cannot be told so (a read that fails) is not.
 */
export function endedBefore(layout: Layout, runId: string, gate: string, cutoffMs: number): boolean {
  const dir = layout.gateDir(runId, gate);
  try {
    if (gateEntryStats(dir).some(([, st]) => st.ctimeMs >= cutoffMs)) return false;
    return hasValidOutcome(layout, runId, gate);
  } catch {
    return false;
  }
}

/** The gates that are open or changed within ENDED_HISTORY_MS of `now`, and how many ended ones are history. */
export function currentGates(layout: Layout, gates: GateRef[], now = Date.now()): { current: GateRef[]; history: number } {
  const current = gates.filter((g) => !endedBefore(layout, g.runId, g.gate, now - ENDED_HISTORY_MS));
  return { current, history: gates.length - current.length };
}
