// The stat of each gate file, as one read of the gate takes them. A worker reads the same gate at every step, and
// stat-ing every file of a long gate each time made a round cost more the more rounds came before it (bench/README.md,
// "Where a long chain's time goes"). Files of closed rounds are immutable, so a worker's read takes their stat from its
// previous read of the gate, and every name is stat-ed again at least every SWEEP_MS: a closed round's file changed in
// place, or its seal removed, is noticed that late by workers (SPEC §5), at once by every other read (status, check,
// the console). Only a stat of a file that exists is reused: an absent one (a seal not written yet) is asked again.
import { lstatSync, type Stats } from "node:fs";
import { fileVersion } from "./parse-cache.js";

/** How long a worker may go on trusting a closed round's stat from an earlier read. */
export const SWEEP_MS = 1000;
/** Gates remembered (a long-lived worker sees many; an ended gate is forgotten when read). */
const MAX_GATES = 1024;

/**
 * A name's stat and its version as the parse cache tells them apart (made once, not at every use). A closed round's
 * file reuses its Stat from read to read, so what a read made of it (parsed, hashed) is kept on it too, and the
 * next read skips even the parse cache's lookup.
 */
export interface Stat {
  st: Stats;
  version: string;
  parsed?: unknown;
  sha?: string;
  /** The name, size and mtime, as the snapshot's fingerprint lists them. */
  print?: string;
  /** For a name in a subdirectory (a seal in `.verified/`) that is not a directory: that subdirectory's name, whose
   * stat this is. A link there would be read through, to seals nobody here wrote. */
  notADirectory?: string;
}

interface Remembered {
  sweptAt: number;
  /** Only files that existed: an absent one (a seal not written yet) is asked for again. */
  stats: Map<string, Stat>;
  /** The open round as that read found it: the highest valid packet, whatever junk names a higher one. */
  openRound: number;
}
const remembered = new Map<string, Remembered>();

export class GateStats {
  private readonly seen = new Map<string, Stat>();
  /** The subdirectories names are asked for in (`.verified`), each lstat-ed once per read: undefined when absent. */
  private readonly subdirs = new Map<string, Stats | undefined>();
  private readonly earlier: Remembered | null;
  private readonly sweptAt: number;

  /** `incremental`: a worker's read, which may reuse the stats of closed rounds; else every name is stat-ed. */
  constructor(
    private readonly dir: string,
    private readonly incremental: boolean,
  ) {
    const last = incremental ? remembered.get(dir) : undefined;
    // monotonic: a wall clock stepped back would stretch the sweep interval by as much; read by workers only (the
    // first read of `performance` loads a module, ~1 ms of a command's start)
    const now = incremental ? performance.now() : 0;
    const fresh = last !== undefined && now - last.sweptAt < SWEEP_MS;
    this.earlier = fresh ? last : null;
    this.sweptAt = fresh ? last.sweptAt : now;
  }

  /**
   * Rounds below this one are closed for this read: before the open round but one, the open round being the lower of
   * the highest packet name listed now and the highest valid packet the previous read found (so a junk packet name
   * closes no round that is still open). 0 on a sweep, when every name is stat-ed anyway.
   */
  closedBelow(lastPacketName: number): number {
    return this.earlier ? Math.min(lastPacketName, this.earlier.openRound) - 1 : 0;
  }

  /**
   * lstat of a name in the gate directory (undefined when it does not exist; a system fault throws). `closed`: a
   * closed round's file, whose stat from the previous read stands until the next sweep.
   */
  stat(name: string, closed: boolean): Stat | undefined {
    const known = closed ? this.earlier?.stats.get(name) : undefined;
    if (known) {
      this.seen.set(name, known);
      return known;
    }
    const slash = name.lastIndexOf("/");
    if (slash > 0) {
      const sub = name.slice(0, slash);
      if (!this.subdirs.has(sub)) this.subdirs.set(sub, lstatSync(`${this.dir}/${sub}`, { throwIfNoEntry: false }));
      const at = this.subdirs.get(sub);
      if (!at) return undefined;
      if (!at.isDirectory()) return { st: at, version: fileVersion(at), notADirectory: sub };
    }
    const st = lstatSync(`${this.dir}/${name}`, { throwIfNoEntry: false });
    if (!st) return undefined;
    const stat = { st, version: fileVersion(st) };
    this.seen.set(name, stat);
    return stat;
  }

  /** Keep this read's stats for the gate's next read; `ended`: the gate has its outcome, so it is forgotten. */
  remember(ended: boolean, openRound: number): void {
    if (!this.incremental) return;
    remembered.delete(this.dir);
    if (ended) return;
    remembered.set(this.dir, { sweptAt: this.sweptAt, stats: this.seen, openRound });
    if (remembered.size > MAX_GATES) remembered.delete(remembered.keys().next().value!);
  }
}
