// Workers of one kind on one tree share the work a file event brings (SPEC §18, "Several workers of a kind"): each
// gate belongs to one live peer, by a hash of its key over the sorted peers. A peer only proves it is alive; nothing
// depends on it for correctness — every worker still looks at every active gate once per full-scan interval, and
// delivery fences two workers that both act (first writer wins). So a peer that died or stalls delays its share by
// at most that interval, and peers that disagree on who is alive only do some work twice.
import { closeSync, constants, lstatSync, lutimesSync, mkdirSync, openSync, readdirSync, unlinkSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { refuseSymlinks } from "../bus/no-symlinks.js";
import type { Layout } from "../bus/layout.js";
import { processAlive } from "./process-alive.js";

/** How often a worker says it is alive; a peer silent for PEER_STALE_BEATS beats counts as gone. */
export const PEER_BEAT_MS = 1000;
const PEER_STALE_BEATS = 10;
/** A peer's file this old is removed by whoever sees it (its worker died without leaving). */
const PEER_FORGET_MS = 10 * 60_000;
/** `<host>-<pid>`, as processPeerId() writes it. */
const PEER_NAME = /^[A-Za-z0-9.-]{1,100}-\d{1,10}$/;
/** At most this many names are looked at per beat: a directory stuffed with names costs a bounded beat. */
const MAX_PEER_NAMES = 64;

export function peersDir(layout: Layout, kind: string): string {
  return path.join(layout.guild, "workers", kind);
}

/** FNV-1a: a stable, evenly spread hash of a gate's key (the same in every process). */
function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const THIS_HOST = hostname()
  .replace(/[^A-Za-z0-9.-]/g, "-")
  .slice(0, 100);

/** This process among the workers of its kind: its host and pid. */
function processPeerId(): string {
  return `${THIS_HOST}-${process.pid}`;
}

/** A peer of this machine whose process is gone (killed, crashed): its file goes at once, not after the stale time. */
function deadHere(name: string): boolean {
  const pid = name.startsWith(`${THIS_HOST}-`) ? Number(name.slice(THIS_HOST.length + 1)) : NaN;
  return Number.isInteger(pid) && pid > 0 && !processAlive(pid);
}

export class Peers {
  private readonly file: string;
  private live: string[];

  constructor(
    private readonly layout: Layout,
    private readonly dir: string,
    readonly self = processPeerId(),
  ) {
    this.file = path.join(dir, self);
    this.live = [this.self];
  }

  /** Whether this worker is the one to act at once on an event in the gate `key`. */
  owns(key: string): boolean {
    return this.live.length === 1 || this.live[hashKey(key) % this.live.length] === this.self;
  }

  /** How many workers of this kind share the work now (this one included). */
  count(): number {
    return this.live.length;
  }

  /** Say this worker is alive and read who else is; true when the set of peers changed. */
  beat(now = Date.now()): boolean {
    try {
      refuseSymlinks(this.layout.guild, this.dir); // a linked workers/ directory is not written through
      mkdirSync(this.dir, { recursive: true });
      touch(this.file, now);
    } catch {
      // an unwritable tree: the others do not see this worker, and both do all the work (fenced)
    }
    const live = new Set([this.self]);
    let names: string[] = [];
    try {
      names = readdirSync(this.dir);
    } catch {
      // no directory: alone
    }
    for (const name of names.filter((n) => PEER_NAME.test(n)).slice(0, MAX_PEER_NAMES)) {
      const st = lstatSync(path.join(this.dir, name), { throwIfNoEntry: false });
      if (!st?.isFile() || name === this.self) continue;
      if (deadHere(name) || now - st.mtimeMs > PEER_FORGET_MS) unlinkQuietly(path.join(this.dir, name));
      else if (now - st.mtimeMs < PEER_BEAT_MS * PEER_STALE_BEATS) live.add(name);
    }
    const sorted = [...live].sort();
    const changed = sorted.join("\n") !== this.live.join("\n");
    this.live = sorted;
    return changed;
  }

  /** This worker leaves: the others take its share at their next beat. */
  leave(): void {
    unlinkQuietly(this.file);
  }
}

/** Create or re-date the file (never through a symlink, never opening a FIFO for long). */
function touch(file: string, now: number): void {
  try {
    lutimesSync(file, now / 1000, now / 1000);
  } catch {
    closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644));
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
}
