// A run or gate a command is asked about must exist: a typo is said the same way whichever command or face asked,
// never shown as a gate that waits (for ever) or "is not waiting for the author".
import { statSync } from "node:fs";
import type { Layout } from "../bus/layout.js";
import { listGates } from "../bus/gate-list.js";
import { rethrowSystemFault } from "../bus/system-fault.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { NoSuchGate } from "./no-such-gate.js";

/** Whether the path is there; a look the system failed (EIO…) throws, rather than answering "no such gate". */
function there(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    rethrowSystemFault(error);
    return false; // ENOTDIR: a file where a directory should be
  }
}

/** Throws NoSuchGate when the run, or the gate in it, is not on disk. */
export function assertGateExists(layout: Layout, run: string, gate?: string): void {
  const runId = assertRunId(run);
  if (!there(layout.runDir(runId))) throw new NoSuchGate(`no run ${runId} under ${layout.rel(layout.runs)}`);
  if (gate === undefined || there(layout.gateDir(runId, assertGate(gate)))) return;
  const gates = listGates(layout, runId).gates.map((g) => g.gate);
  throw new NoSuchGate(`run ${runId} has no gate ${gate}${gates.length ? ` (its gates: ${gates.join(", ")})` : ""}`);
}
