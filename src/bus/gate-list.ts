// Every gate directory on disk, and the entries under .guild/runs the workers ignore, with why.
import { lstatSync, readdirSync, type Stats } from "node:fs";
import path from "node:path";
import { GATE_NAMES, isGate, isRunId } from "../spec/ids.js";
import type { Layout } from "./layout.js";
import { rethrowSystemFault } from "./system-fault.js";

const NOT_A_DIRECTORY = "not a directory: move it aside";

/** Why a directory the bus must list could not be (a link refused, a permission): said, never read as "no gates". */
function unlisted(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code === undefined ? e.message : `cannot be listed (${e.message}); give the workers' user access to it`;
}

/** A gate that ended and has not changed for longer than this is history: the stop hook (at every turn's end) and plain
 * `status` leave it out, so what they cost is the open and recent gates, not every run ever made. */
export const ENDED_HISTORY_MS = 24 * 60 * 60 * 1000;

export type GateRef = { runId: string; gate: string };

export interface GateListing {
  gates: GateRef[];
  /** Entries under .guild/runs the workers ignore, and why; `hides` names the run (and gate) of a valid name refused
   * (a link, say): it may hold work nobody can judge. */
  ignored: Array<{ path: string; reason: string; hides?: { runId?: string; gate?: string } }>;
}

/**
 * Every (run, gate) on disk, optionally narrowed to one run, and what the workers ignore there. A listing or check the
 * system fails (EIO, ESTALE…) throws ReadFault: a gate left out would let `check` pass on the gates it did see.
 */
export function listGates(layout: Layout, runFilter?: string): GateListing {
  const out: GateListing = { gates: [], ignored: [] };
  let runs: string[];
  const refuse = (p: string, reason: string, hides?: { runId?: string; gate?: string }) =>
    out.ignored.push({ path: p, reason, ...(hides ? { hides } : {}) });
  try {
    // a link in place of .guild/runs is said once, not as every run under it
    layout.assertNoSymlinks(layout.runs);
    runs = runFilter ? [runFilter] : readdirSync(layout.runs).sort();
  } catch (error) {
    rethrowSystemFault(error);
    // no runs yet is no gate; anything else in its place (a file, a link, a directory nobody may list) hides every gate
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") refuse(".guild/runs", code === "ENOTDIR" ? NOT_A_DIRECTORY : unlisted(error), {});
    return out;
  }
  for (const runId of runs) {
    const runPath = `.guild/runs/${runId}`;
    if (!isRunId(runId)) {
      refuse(runPath, "not a valid run id (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, no '..')");
      continue;
    }
    try {
      layout.assertNoSymlinks(layout.runDir(runId));
    } catch (error) {
      rethrowSystemFault(error);
      refuse(runPath, (error as Error).message, { runId });
      continue;
    }
    let gates: string[];
    try {
      gates = readdirSync(path.join(layout.runDir(runId), "review")).sort();
    } catch (error) {
      rethrowSystemFault(error);
      // no review/ yet; a file where the run or its review/ should be, or one nobody may list, may hide a run
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR") refuse(runPath, `${NOT_A_DIRECTORY} (or its review/ is not)`, { runId });
      else if (code !== "ENOENT") refuse(runPath, unlisted(error), { runId });
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
        rethrowSystemFault(error);
        refuse(`${runPath}/review/${gate}`, (error as Error).message, { runId, gate });
        continue;
      }
      out.gates.push({ runId, gate });
    }
  }
  return out;
}

/** The gate's own subdirectory whose files a pass rests on: the verifier's seals (SPEC §15). */
const SEALS = ".verified";

/**
 * The stat of a gate directory, of every entry in it, and of every seal in its .verified/, by name ("." the directory
 * itself): what an ended gate rests on, short of the artifact. A seal edited in place, or given a second name, moves
 * neither directory's stat, yet its verdict no longer counts. Throws when one cannot be read (gone since the listing).
 */
export function gateEntryStats(dir: string): Array<[string, Stats]> {
  const out: Array<[string, Stats]> = [[".", lstatSync(dir)]];
  for (const name of readdirSync(dir)) {
    const st = lstatSync(path.join(dir, name));
    out.push([name, st]);
    if (name === SEALS && st.isDirectory())
      for (const seal of readdirSync(path.join(dir, name))) out.push([`${name}/${seal}`, lstatSync(path.join(dir, name, seal))]);
  }
  return out;
}
