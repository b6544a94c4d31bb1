// Removes staging orphans: files in .guild/tmp of dead processes on this machine (host and pid namespace), or older
// than maxAgeMs.
// It only ever looks inside .guild/tmp, so final files are never touched.
import { lstatSync, readdirSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseStagingName, STAGING_MACHINE } from "./deliver.js";
import { processAlive } from "./process-alive.js";

export const STAGING_MAX_AGE_MS = 60 * 60 * 1000;

export interface JanitorReport {
  removed: string[];
  kept: number;
}

export function sweepStaging(guildDir: string, options: { maxAgeMs?: number; now?: number } = {}): JanitorReport {
  const dir = path.join(guildDir, "tmp");
  const maxAge = options.maxAgeMs ?? STAGING_MAX_AGE_MS;
  const now = options.now ?? Date.now();
  const report: JanitorReport = { removed: [], kept: 0 };
  let names: string[];
  try {
    if (lstatSync(dir).isSymbolicLink()) return report; // a linked .guild/tmp is not ours to sweep (SPEC §2)
    names = readdirSync(dir);
  } catch {
    return report;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    const owner = parseStagingName(name);
    let stale: boolean;
    try {
      const st = lstatSync(file);
      if (!st.isFile() && !st.isSymbolicLink()) continue; // a link is removed itself, never followed
      const deadOwner = owner !== null && owner.host === STAGING_MACHINE && owner.pid !== process.pid && !processAlive(owner.pid);
      // mtime has sub-ms precision and Date.now() is truncated: a file written this millisecond must not look
      // "from the future" (maxAgeMs 0 has to mean everything).
      stale = deadOwner || now - Math.floor(st.mtimeMs) >= maxAge;
    } catch {
      continue; // vanished meanwhile
    }
    if (!stale) {
      report.kept++;
      continue;
    }
    try {
      unlinkSync(file);
      report.removed.push(name);
    } catch {
      // raced with its owner or another janitor
    }
  }
  return report;
}

/** A reviewer dispatch's scratch directory in the system temp directory (withScratch in src/adapters/child.ts). */
const SCRATCH_NAME = /^guild-bus-scratch-[a-z-]+-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * Scratch directories whose worker is dead (SIGKILLed mid-dispatch: no finally ran). They can hold a packet in a
 * CLI's session files, so they go at the next janitor pass of any worker on this machine.
 */
export function sweepScratch(dir = tmpdir()): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(SCRATCH_NAME.exec(name)?.[1] ?? NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    try {
      if (!lstatSync(path.join(dir, name)).isDirectory()) continue;
      rmSync(path.join(dir, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // raced with another janitor
    }
  }
  return removed;
}
