// Directories a write makes when they are missing, one at a time, only below a directory that must already exist. A
// worker still running, or finishing a write, after its project (or .guild, or a run) was removed must not make the
// tree again (`mkdir -p` did: an empty <project>/.guild/tmp was left behind, or a run half-filled): only a command
// starts a project or a run (SPEC §4).
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";

/** The directory a write may only make directories below is gone (the project, or .guild, was removed meanwhile). */
export class DirectoryGone extends Error {
  // a file operation's failure, logged on one line by a worker (no stack): the gate is gone at its next look
  readonly code = "ENOENT";
  readonly syscall = "mkdir";
  constructor(readonly path: string) {
    super(`${path} is gone; nothing is made again there`);
    this.name = "DirectoryGone";
  }
}

/** The directory a command's write makes directories below: the project's, which holds .guild (a first request makes .guild). */
export const projectDir = (guildDir: string): string => path.dirname(path.resolve(guildDir));

/**
 * The directory a worker's write into `dir` makes directories below: the gate `dir` lies in (its .verified/), else its
 * run, else .guild (its tmp/, workers/); `dir` itself outside .guild. A worker never starts a project, a run or a gate
 * (layout.ts: .guild/runs/<run-id>/review/<gate>/).
 */
export function workerFloor(guildDir: string, dir: string): string {
  const guild = path.resolve(guildDir);
  const rel = path.relative(guild, path.resolve(dir));
  if (rel.startsWith("..") || path.isAbsolute(rel)) return dir;
  const [top, run, review, gate] = rel.split(path.sep);
  if (top !== "runs" || run === undefined) return guild;
  return review === "review" && gate !== undefined ? path.join(guild, top, run, review, gate) : path.join(guild, top, run);
}

/** Make `dir` and its missing parents strictly below `floor`, which is never made: DirectoryGone when it is missing. */
export function makeDirsBelow(floor: string, dir: string): void {
  const target = path.resolve(dir);
  if (target === path.resolve(floor)) {
    if (existsSync(target)) return; // what is there is the caller's to judge, as below
    throw new DirectoryGone(floor);
  }
  if (made(target)) return;
  const parent = path.dirname(target);
  if (parent === path.resolve(floor) || parent === target) throw new DirectoryGone(floor);
  makeDirsBelow(floor, parent);
  // once only: a parent that is there yet still lacks it (a link leading nowhere: a bus root not mounted) fails the
  // write with its errno, never a climb back up for ever; one removed meanwhile with the floor is DirectoryGone
  if (!made(target, existsSync(floor))) throw new DirectoryGone(floor);
}

/** mkdir: true when made or something is there (anything but a directory fails the write that needs one, as it
 * should); false when a parent is missing, unless that is to be thrown too. */
function made(dir: string, throwMissing = false): boolean {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return true;
    if (code !== "ENOENT" || throwMissing) throw error;
    return false;
  }
  return true;
}
