// Every gate directory on disk, and the entries under .guild/runs the workers ignore, with why.
import { readdirSync } from "node:fs";
import path from "node:path";
import { GATE_NAMES, isGate, isRunId } from "../spec/ids.js";
import type { Layout } from "./layout.js";

export interface GateListing {
  gates: Array<{ runId: string; gate: string }>;
  /** Entries under .guild/runs the workers ignore, and why. */
  ignored: Array<{ path: string; reason: string }>;
}

/** Every (run, gate) on disk, optionally narrowed to one run, and what the workers ignore there. */
export function listGates(layout: Layout, runFilter?: string): GateListing {
  const out: GateListing = { gates: [], ignored: [] };
  let runs: string[];
  try {
    runs = runFilter ? [runFilter] : readdirSync(layout.runs).sort();
  } catch {
    return out;
  }
  const refuse = (p: string, reason: string) => out.ignored.push({ path: p, reason });
  for (const runId of runs) {
    const runPath = `.guild/runs/${runId}`;
    if (!isRunId(runId)) {
      refuse(runPath, "not a valid run id (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, no '..')");
      continue;
    }
    try {
      layout.assertNoSymlinks(layout.runDir(runId));
    } catch (error) {
      refuse(runPath, (error as Error).message);
      continue;
    }
    let gates: string[];
    try {
      gates = readdirSync(path.join(layout.runDir(runId), "review")).sort();
    } catch {
      continue;
    }
    for (const gate of gates) {
      if (!isGate(gate)) {
        refuse(`${runPath}/review/${gate}`, `not a gate (${GATE_NAMES})`);
        continue;
      }
      try {
        layout.assertNoSymlinks(layout.gateDir(runId, gate));
      } catch (error) {
        refuse(`${runPath}/review/${gate}`, (error as Error).message);
        continue;
      }
      out.gates.push({ runId, gate });
    }
  }
  return out;
}
