// .guild/finished-runs.log: which runs had every gate ended, so the workers' start-up and full scans skip them and a
// slow sweep looks at them instead (SPEC §18). A hint, never the truth: a line is `+<run>\t<gate>=<mtime ms>…` (every
// gate had a valid outcome when a worker scanned it, and its directory's mtime then: a later drop moves it) or
// `-<run>` (reopened: a new request, or a gate active again); the last line for a run wins, and deleting the file
// only makes the next start scan every run (and write the lines again).
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import path from "node:path";
import { isGate, isRunId } from "../spec/ids.js";
import type { Layout } from "./layout.js";

/** At most this much of the log is read in one refresh: a hostile, huge file costs a bounded read per pass. */
const MAX_READ_BYTES = 16 * 1024 * 1024;

export function finishedRunsFile(layout: Layout): string {
  return path.join(layout.guild, "finished-runs.log");
}

/** Append lines with O_APPEND (each write lands whole, whoever else appends); never through a symlink. A failure is
 * only a missed hint (a read-only tree, a full disk): the scans then treat the run as not finished. */
function appendLines(file: string, lines: string[]): void {
  if (!lines.length) return;
  try {
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, lines.join(""));
    } finally {
      closeSync(fd);
    }
  } catch {
    // a hint only
  }
}

/** A writer that made a run carry work again (a new request in it) says so at once. */
export function reopenRun(layout: Layout, runId: string): void {
  appendLines(finishedRunsFile(layout), [`-${runId}\n`]);
}

export class FinishedRuns {
  /** Runs whose last line is `+`, with each gate's directory mtime when it was written. */
  readonly sealed = new Map<string, Record<string, number>>();
  private offset = 0;
  private pending: string[] = [];

  constructor(private readonly file: string) {}

  /** Reads the lines appended since the last call; returns the runs they reopened. */
  refresh(): string[] {
    const reopened: string[] = [];
    let fd: number;
    try {
      fd = openSync(this.file, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return reopened;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) this.offset = 0; // replaced by a shorter file: read it anew
      if (size === this.offset) return reopened;
      const buf = Buffer.alloc(Math.min(size - this.offset, MAX_READ_BYTES));
      const read = readSync(fd, buf, 0, buf.length, this.offset);
      const text = buf.subarray(0, read).toString("utf8");
      const complete = text.lastIndexOf("\n") + 1; // a line still being written is read next time
      this.offset += Buffer.byteLength(text.slice(0, complete));
      for (const line of text.slice(0, complete).split("\n")) {
        const [runId, ...gates] = line.slice(1).split("\t");
        if (!isRunId(runId)) continue;
        if (line[0] === "+") this.sealed.set(runId, parseGates(gates));
        else if (line[0] === "-" && this.sealed.delete(runId)) reopened.push(runId);
      }
    } catch {
      // unreadable now: the scans treat every run as not finished, as without the file
    } finally {
      closeSync(fd);
    }
    return reopened;
  }

  /** When the log says `gate` of `runId` finished: its directory's mtime then, or undefined. */
  finishedAt(runId: string, gate: string): number | undefined {
    return this.sealed.get(runId)?.[gate];
  }

  seal(runId: string, gates: Record<string, number>): void {
    const known = this.sealed.get(runId);
    if (known && JSON.stringify(known) === JSON.stringify(gates)) return;
    this.sealed.set(runId, gates);
    this.pending.push(`+${[runId, ...Object.entries(gates).map(([g, t]) => `${g}=${t}`)].join("\t")}\n`);
  }

  unseal(runId: string): void {
    if (!this.sealed.delete(runId)) return;
    this.pending.push(`-${runId}\n`);
  }

  /** Write what seal/unseal queued, in one append. */
  flush(): void {
    appendLines(this.file, this.pending);
    this.pending = [];
  }
}

function parseGates(fields: string[]): Record<string, number> {
  const gates: Record<string, number> = {};
  for (const field of fields) {
    const [gate, mtime] = field.split("=");
    if (isGate(gate) && mtime !== undefined && Number.isFinite(Number(mtime))) gates[gate] = Number(mtime);
  }
  return gates;
}
