// .guild/finished-runs/<worker kind>.log: which runs had every gate ended when a worker of that kind last handled
// them, so its start and scans skip them and a paced sweep verifies them instead (SPEC §18). One file per kind: a
// broker that handled a late drop has not done the verifier's part. A hint, never the truth: a line is
// `+<run>\treview=<mtime ms>\t<gate>=<ctime ms>…` (every gate had a valid outcome when a worker scanned it; the
// mtime of review/ and the ctime of each gate directory then (gateStamp): a new gate or a later drop moves them) or `-<run>` (reopened: a
// new request, or a gate active again); the last line for a run wins. A line that does not parse is ignored, and
// deleting the file only makes the next start scan every run (and the workers write it again).
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from "node:fs";
import path from "node:path";
import { isGate, isRunId } from "../spec/ids.js";
import { appendAfterTornTail } from "./append-lines.js";
import { stagingName } from "./deliver.js";
import type { Layout } from "./layout.js";
import { makeDirsBelow } from "./make-dirs.js";
import { TimeSlicer } from "./time-slicer.js";

/** A linked log is never followed; a FIFO planted as the log must not hold up a worker's start (open would wait). */
const NOT_LINKED_NOR_BLOCKING = constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** A log larger than this was not written by workers (100,000 runs take ~6 MB): it is replaced, not read. */
const MAX_LOG_BYTES = 256 * 1024 * 1024;
/** At most this much of the log is read in one refresh: a hostile, huge file costs a bounded read per pass. */
const MAX_READ_BYTES = 16 * 1024 * 1024;
/** The field holding review/'s mtime (no gate has this name). */
const REVIEW = "review";
/** At most this many runs are remembered as finished (100,000 take ~15 MB): a hostile log of millions of short lines
 * costs bounded memory (a Map also stops at 2^24 entries); runs past it are scanned as without a log. */
const MAX_SEALED_RUNS = 250_000;
/** The log is read at start in pieces of this size, each after a turn of the event loop (100,000 runs: ~6 MB). */
const LOAD_READ_BYTES = 256 * 1024;

export function finishedRunsDir(layout: Layout): string {
  return path.join(layout.guild, "finished-runs");
}

/** The log of one worker kind, or null for a kind that is not a plain name. */
export function finishedRunsFile(layout: Layout, kind: string): string | null {
  return /^[a-z][a-z0-9-]{0,63}$/.test(kind) ? path.join(finishedRunsDir(layout), `${kind}.log`) : null;
}

/** Append lines with O_APPEND (each write lands whole, whoever else appends); never through a symlink. A failure is
 * only a missed hint (a read-only tree, a full disk): the scans then treat the run as not finished. */
function appendLines(layout: Layout, file: string, lines: string[]): void {
  if (!lines.length) return;
  try {
    makeDirsBelow(layout.guild, path.dirname(file)); // never .guild: a removed project stays removed
    if (!lstatSync(path.dirname(file)).isDirectory()) return; // a symlinked directory is never written through
    const fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NOT_LINKED_NOR_BLOCKING, 0o644);
    try {
      appendAfterTornTail(fd, lines.join(""), file);
    } finally {
      closeSync(fd);
    }
  } catch {
    // a hint only
  }
}

/**
 * Replace the log with these lines: staged beside it, then renamed over it (lines others append meanwhile to the old
 * file are lost: hints only). Returns the new file's size, or 0 when it could not be written (the log stays absent).
 */
function replaceLog(layout: Layout, file: string, lines: string[]): number {
  // staged where deliveries stage: a worker killed before the rename leaves a file the janitor sweeps
  const staged = path.join(layout.guild, "tmp", stagingName(file));
  try {
    if (!lstatSync(path.dirname(file)).isDirectory()) return 0; // never written through a symlinked directory
    makeDirsBelow(layout.guild, path.dirname(staged));
    if (!lstatSync(path.dirname(staged)).isDirectory()) return 0; // nor staged in a linked one
    const text = lines.join("");
    const fd = openSync(staged, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOT_LINKED_NOR_BLOCKING, 0o644);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(staged, file);
    return Buffer.byteLength(text);
  } catch {
    rmSync(staged, { force: true });
    return 0;
  }
}

/** A writer that made a run carry work again (a new request in it) says so at once, in every kind's log. */
export function reopenRun(layout: Layout, runId: string): void {
  const dir = finishedRunsDir(layout);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // no log yet: no worker skips anything
  }
  for (const name of names) if (name.endsWith(".log")) appendLines(layout, path.join(dir, name), [`-${runId}\n`]);
}

export class FinishedRuns {
  /** Runs whose last line is `+`, with the rest of that line (gate=mtime fields), parsed only when a run is verified. */
  private readonly sealed = new Map<string, string>();
  private offset = 0;
  /** The file the offset is in (another worker may replace the log): null until read, or after this one replaced it. */
  private ino: number | null = null;
  private pending: string[] = [];
  /** Until load() has read the file, refresh() reads nothing (both move the same offset). */
  private loaded = false;
  /** The file shrank or vanished under us: write every sealed run again on the next flush. */
  private rewrite = false;
  /** The log is no log (a line longer than MAX_READ_BYTES, or larger than MAX_LOG_BYTES): the next flush replaces it. */
  private replaceWhole = false;
  /** While load() runs: the runs whose last line so far is `-`. */
  private reopenedAtLoad: Set<string> | null = null;
  constructor(
    private readonly layout: Layout,
    private readonly file: string,
  ) {}

  /**
   * The whole log, parsed in time slices (a large history does not stall a start, nor the gates found meanwhile).
   * Returns the runs whose last line is `-`: reopened, or new since a `review` wrote them (at most MAX_SEALED_RUNS).
   */
  async load(slicer = new TimeSlicer()): Promise<string[]> {
    const reopened = (this.reopenedAtLoad = new Set<string>());
    try {
      // nothing is read before the first turn: a worker is watching, its event loop free, before the log costs anything
      for (;;) {
        await slicer.pause();
        const text = this.readNew(LOAD_READ_BYTES);
        if (!text) break;
        let at = 0;
        while (at < text.length) {
          do at = this.ingest(text, at, null);
          while (at < text.length && !slicer.due());
          if (at < text.length) await slicer.pause();
        }
      }
    } finally {
      this.loaded = true; // what was read stands, and the log is read on from there
      this.reopenedAtLoad = null;
    }
    return [...reopened];
  }

  /** Reads the lines appended since the last call; returns the runs they reopened. */
  refresh(): string[] {
    const reopened: string[] = [];
    if (!this.loaded) return reopened;
    const text = this.readNew();
    for (let at = 0; at < text.length;) at = this.ingest(text, at, reopened);
    return reopened;
  }

  isSealed(runId: string): boolean {
    return this.sealed.has(runId);
  }

  /**
   * The run's review/ directory and each gate directory the log names still have the mtimes logged, and review/ holds
   * no gate directory the log leaves out: no gate was added or removed and nothing was dropped into one since (two
   * lstats for a run of one gate). The log is a hint anyone can append to: a line naming only some of a run's gates,
   * with review/'s mtime as it is, must not hide the others. review/'s link count tells how many directories it
   * holds where the filesystem keeps it (2 + subdirectories); elsewhere (btrfs: always 1) review/ is listed.
   */
  unchanged(runId: string): boolean {
    const fields = this.sealed.get(runId);
    if (fields === undefined) return false;
    const review = path.join(this.layout.runs, runId, REVIEW);
    let reviewMtime: number | undefined;
    const gates = new Map<string, number>();
    for (const field of fields.split("\t")) {
      const eq = field.indexOf("=");
      if (field.slice(0, eq) === REVIEW) reviewMtime = Number(field.slice(eq + 1));
      else gates.set(field.slice(0, eq), Number(field.slice(eq + 1)));
    }
    let st: Stats;
    try {
      st = lstatSync(review);
    } catch {
      return false;
    }
    if (st.mtimeMs !== reviewMtime) return false;
    for (const [gate, mtime] of gates) {
      const dir = path.join(review, gate);
      if (gateStamp(dir) !== mtime || !holdsOutcome(dir)) return false;
    }
    return (st.nlink >= 2 ? st.nlink - 2 : countDirs(review)) === gates.size;
  }

  /** Each gate directory's mtime when the log says `runId` finished (review/'s left out), or undefined. */
  loggedGates(runId: string): Record<string, number> | undefined {
    const fields = this.sealed.get(runId);
    if (fields === undefined) return undefined;
    const gates: Record<string, number> = {};
    for (const field of fields.split("\t")) {
      const eq = field.indexOf("=");
      if (field.slice(0, eq) !== REVIEW) gates[field.slice(0, eq)] = Number(field.slice(eq + 1));
    }
    return gates;
  }

  /** Every gate of `runId` ended; review/'s mtime and each gate directory's, taken before they were looked at. */
  seal(runId: string, reviewMtime: number, gates: Record<string, number>): void {
    const fields = [`${REVIEW}=${reviewMtime}`, ...Object.entries(gates).map(([g, t]) => `${g}=${t}`)].join("\t");
    if (!Object.keys(gates).length || !validFields(fields) || this.sealed.get(runId) === fields || !this.room(runId)) return;
    this.sealed.set(runId, fields);
    this.pending.push(`+${runId}\t${fields}\n`);
  }

  unseal(runId: string): void {
    if (!this.sealed.delete(runId)) return;
    this.pending.push(`-${runId}\n`);
  }

  /**
   * Write what seal/unseal queued, in one append (every sealed run again if the file was deleted or cut short); a log
   * found unusable is replaced whole by what this worker knows (staged beside it, renamed over it).
   */
  flush(): void {
    if (this.replaceWhole) {
      this.replaceWhole = false;
      this.pending = [];
      this.ino = null; // the new file's, read next
      this.offset = replaceLog(
        this.layout,
        this.file,
        [...this.sealed].map(([runId, fields]) => `+${runId}\t${fields}\n`),
      );
      return;
    }
    if (this.rewrite) {
      this.rewrite = false;
      this.pending = [...this.sealed].map(([runId, fields]) => `+${runId}\t${fields}\n`);
    }
    appendLines(this.layout, this.file, this.pending);
    this.pending = [];
  }

  /** The complete lines appended since the offset (a line still being written is read next time). */
  private readNew(max = MAX_READ_BYTES): string {
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_RDONLY | NOT_LINKED_NOR_BLOCKING);
    } catch {
      if (this.offset > 0) this.restart();
      return "";
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return ""; // a FIFO or device is no log: read as none, never waited on
      // a second name (a hard link someone made) lets whoever holds it write this log from outside .guild: it is read no
      // further, and the next flush replaces it with a file of this worker's own (the other name keeps its bytes)
      if (st.nlink > 1) return this.unusable(st.size);
      const size = st.size;
      // replaced (by another worker's flush, or by hand): read the new file from its start
      if (size < this.offset || (this.ino !== null && st.ino !== this.ino)) this.restart();
      this.ino = st.ino;
      if (size === this.offset) return "";
      if (size > MAX_LOG_BYTES) return this.unusable(size); // not a log a worker wrote (nor one that grew to it)
      const buf = Buffer.alloc(Math.min(size - this.offset, max));
      const read = readSync(fd, buf, 0, buf.length, this.offset);
      const complete = buf.subarray(0, read).lastIndexOf(0x0a) + 1;
      if (complete === 0) {
        if (read < max) return ""; // a line still being written
        // a piece holding no whole line (one longer than the piece): read up to the bound a refresh reads
        if (max < MAX_READ_BYTES) return this.readNew(MAX_READ_BYTES);
        // no worker writes such a line: the file is no log (reading on to its end could take hours)
        return this.unusable(size);
      }
      this.offset += complete;
      return buf.subarray(0, complete).toString("utf8");
    } catch {
      return ""; // unreadable now: the scans treat every run as not finished, as without the file
    } finally {
      closeSync(fd);
    }
  }

  private restart(): void {
    this.offset = 0;
    this.rewrite = true;
  }

  /** Read nothing more of this file: what was read so far stands, and the next flush replaces the file. */
  private unusable(size: number): string {
    this.offset = size;
    this.replaceWhole = true;
    return "";
  }

  /** Whether `runId` may be remembered as finished: it is already, or there is room for one more. */
  private room(runId: string): boolean {
    return this.sealed.size < MAX_SEALED_RUNS || this.sealed.has(runId);
  }

  /** One line from `at`; returns where the next one starts. */
  private ingest(text: string, at: number, reopened: string[] | null): number {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    const tab = text.indexOf("\t", at);
    const kind = text[at];
    if (kind === "+" && tab > at && tab < end) {
      const runId = text.slice(at + 1, tab);
      const fields = text.slice(tab + 1, end);
      if (isRunId(runId) && validFields(fields) && this.room(runId)) {
        this.sealed.set(runId, fields);
        this.reopenedAtLoad?.delete(runId);
      }
    } else if (kind === "-") {
      const runId = text.slice(at + 1, end);
      if (this.sealed.delete(runId)) reopened?.push(runId);
      if (this.reopenedAtLoad && this.reopenedAtLoad.size < MAX_SEALED_RUNS && isRunId(runId)) this.reopenedAtLoad.add(runId);
    }
    return end + 1;
  }
}

/** Every field `gate=mtime` or `review=mtime`, at least one a gate: a torn or garbled line seals nothing. */
function validFields(fields: string): boolean {
  let gates = 0;
  for (const field of fields.split("\t")) {
    const eq = field.indexOf("=");
    const name = field.slice(0, eq);
    if (eq <= 0 || !(name === REVIEW || isGate(name)) || !/^\d+(\.\d+)?$/.test(field.slice(eq + 1))) return false;
    if (name !== REVIEW) gates++;
  }
  return gates > 0;
}

/** How many directories `dir` holds (-1 when it cannot be listed). */
function countDirs(dir: string): number {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).length;
  } catch {
    return -1;
  }
}

/** `dirOnly`: anything but a directory counts as missing (a file named like a gate must not stand in for one). */
/**
 * Whether a gate directory holds an outcome.json (a regular file): a line of the log, which anyone can append, is
 * believed of a gate only while it does, so a forged line cannot hide a gate nobody has ended.
 */
export function holdsOutcome(gateDir: string): boolean {
  try {
    return lstatSync(path.join(gateDir, "outcome.json")).isFile();
  } catch {
    return false;
  }
}

/**
 * What says a finished gate is unchanged: its directory's ctime, or its outcome.json's when that is later. A file
 * rewritten in place moves only its own times, not its directory's: an outcome edited so would otherwise stay hidden
 * from every worker (SPEC §18). ctime, not mtime: `cp -p`, `rsync -a`, `tar x` or `touch -d` set an mtime back (an
 * outcome restored over the one a worker read would keep the logged time, for good), and no writer sets a ctime back.
 * A delivered outcome's ctime is as old as the removal of its staging name, after which nothing moves it.
 */
export function gateStamp(gateDir: string): number {
  const dir = lstatCtime(gateDir, true);
  return dir < 0 ? dir : Math.max(dir, lstatCtime(path.join(gateDir, "outcome.json")));
}

function lstatCtime(p: string, dirOnly = false): number {
  try {
    const st = lstatSync(p);
    return dirOnly && !st.isDirectory() ? -1 : st.ctimeMs;
  } catch {
    return -1;
  }
}
