// Workers of one kind on one tree share the work a file event brings (SPEC §18, "Several workers of a kind"): each
// gate belongs to one live peer, the one ranked highest for it (rendezvous hashing: a peer joining or leaving moves
// only its own share). A peer only proves it is alive; nothing depends on it for correctness — every worker still
// looks at every active gate once per full-scan interval, and delivery fences two workers that both act (first writer
// wins). So a peer that died or stalls delays its share by at most that interval, and peers that disagree on who is
// alive only do some work twice.
import {
  closeSync,
  constants,
  lstatSync,
  lutimesSync,
  opendirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { notWritableInPlace } from "../bus/append-lines.js";
import { makeDirsBelow } from "../bus/make-dirs.js";
import { refuseSymlinks } from "../bus/no-symlinks.js";
import { refusedWriteFix } from "../bus/refused-write.js";
import type { Layout } from "../bus/layout.js";
import { processAlive, runsGuildBus } from "../bus/process-alive.js";
import { THIS_MACHINE } from "../bus/this-machine.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { type Advert, parseAdvert } from "../core/advertised.js";
import { type StuckGate, stuckGatesIn } from "../core/stuck.js";
import { lookedIn } from "../core/presence-body.js";

/** How often a worker says it is alive; a peer whose file has not been re-dated for PEER_STALE_MS counts as gone. */
export const PEER_BEAT_MS = 1000;
const PEER_STALE_MS = 10 * PEER_BEAT_MS;
/** A peer's file not re-dated for this long is removed by whoever sees it (its worker died without leaving). */
const PEER_FORGET_MS = 10 * 60_000;
/** `<host>-<pid namespace>-<pid>`, as processPeerId() writes it. */
const PEER_NAME = /^[A-Za-z0-9.-]{1,130}-\d{1,10}$/;
/** At most this many peer names, and this many directory entries, are looked at per beat: a directory stuffed with
 * names costs a bounded beat (names past them only go unseen, and unseen peers only do some work twice). */
const MAX_PEER_NAMES = 64;
const MAX_DIR_ENTRIES = 1024;

export function peersDir(layout: Layout, kind: string): string {
  return path.join(layout.guild, "workers", kind);
}

/** FNV-1a of `text` from `h`, then murmur3's finaliser (FNV-1a alone leaves its low bits barely mixed). */
function hash(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** This process among the workers of its kind. */
function processPeerId(): string {
  return `${THIS_MACHINE}-${process.pid}`;
}

/** A peer of this machine whose process is gone (killed, crashed): its file goes at once, not after the stale time. */
function deadHere(name: string): boolean {
  const rest = name.startsWith(`${THIS_MACHINE}-`) ? name.slice(THIS_MACHINE.length + 1) : "";
  return /^\d+$/.test(rest) && !processAlive(Number(rest));
}

/** Another machine's worker counts as running while its file was re-dated this recently by its clock (clocks differ). */
const RUNNING_SKEW_MS = 60_000;

/**
 * Whether a worker of `kind` says it is alive on this tree: a peer file re-dated lately (one of this machine whose
 * process is gone counts as none). For telling a person who must act, never for correctness.
 */
export function workerRunning(layout: Layout, kind: string, now = Date.now()): boolean {
  return livePeerFiles(layout, kind, now, 1).length > 0;
}

/** The presence files (name, path) of the live workers of `kind`, at most `max`; none when the directory is linked. */
function livePeerFiles(layout: Layout, kind: string, now: number, max = MAX_PEER_NAMES): Array<{ name: string; file: string }> {
  return peerFiles(layout, kind, max, (name, st) => {
    if (deadHere(name)) return false;
    const window = name.startsWith(`${THIS_MACHINE}-`) ? PEER_STALE_MS : RUNNING_SKEW_MS;
    return Math.abs(now - st.mtimeMs) < window;
  });
}

/**
 * The pids of this machine's workers of `kind` whose process runs but whose presence file has not been re-dated for
 * the stale time: stopped (SIGSTOP, a debugger) or hung. They count as not running, yet hold what they claimed: a
 * person told only that none runs starts another beside them, which waits on their claims or takes them over.
 */
export function unresponsiveWorkers(layout: Layout, kind: string, now = Date.now()): number[] {
  const here = `${THIS_MACHINE}-`;
  return peerFiles(layout, kind, MAX_PEER_NAMES, (name, st) => {
    const pid = name.startsWith(here) ? name.slice(here.length) : "";
    // its pid must still run this worker: a pid reused by another program is never named to be stopped. However long
    // it has been silent (stopped over lunch): it holds its claims all that time, and nobody else of its kind runs to
    // forget its file (PEER_FORGET_MS is a live peer's rule for files no process stands behind)
    return /^\d+$/.test(pid) && now - st.mtimeMs >= PEER_STALE_MS && runsGuildBus(Number(pid), ["worker", kind]);
  }).map(({ name }) => Number(name.slice(here.length)));
}

/** The presence files of `kind` that `keep` accepts (a valid name, a regular file of one name), at most `max`. */
function peerFiles(
  layout: Layout,
  kind: string,
  max: number,
  keep: (name: string, st: Stats) => boolean,
): Array<{ name: string; file: string }> {
  const dir = peersDir(layout, kind);
  const out: Array<{ name: string; file: string }> = [];
  try {
    refuseSymlinks(layout.guild, dir);
    const found = opendirSync(dir, { bufferSize: 64 });
    try {
      for (let read = 0; read < MAX_DIR_ENTRIES && out.length < max; read++) {
        const entry = found.readSync();
        if (!entry) break;
        if (!PEER_NAME.test(entry.name)) continue;
        const file = path.join(dir, entry.name);
        const st = lstatQuietly(file);
        if (st?.isFile() && st.nlink === 1 && keep(entry.name, st)) out.push({ name: entry.name, file });
      }
    } finally {
      found.closeSync();
    }
  } catch {
    // no workers/ directory (none ever ran), or a linked one
  }
  return out;
}

/** The most a presence file's body is read: a provider list and the gates it is stuck on, never more. */
const MAX_ADVERT_BYTES = 16_384;

/**
 * What the live reviewer workers of `kinds` say they run on their machines (SPEC §18): the body of each live presence
 * file, read within the window `workerRunning` uses. A body unreadable, torn or of another shape advertises nothing.
 */
export function liveAdverts(layout: Layout, kinds: Iterable<string>, now = Date.now()): Advert[] {
  const out: Advert[] = [];
  for (const kind of new Set(kinds)) {
    for (const { name, text } of liveBodies(layout, kind, now)) {
      const advert = parseAdvert(text);
      if (advert?.providers.length) out.push({ kind, peer: name, ...advert });
    }
  }
  return out;
}

/** What the live workers of `kind` say they keep failing to do for the gate (SPEC §18), each with its presence name. */
export function stuckOn(layout: Layout, kind: string, runId: string, gate: string, now = Date.now()): Array<StuckGate & { peer: string }> {
  return liveBodies(layout, kind, now).flatMap(({ name, text }) =>
    stuckGatesIn(text)
      .filter((g) => g.run_id === runId && g.gate === gate)
      .map((g) => ({ ...g, peer: name })),
  );
}

/**
 * When each live worker of `kind` last looked at everything it watches (SPEC §18), by its presence name: ms since the
 * epoch on its clock; null while its file does not say (no look yet, or unreadable this time).
 */
export function lastLooks(layout: Layout, kind: string, now = Date.now()): Array<{ peer: string; looked: number | null }> {
  const said = new Map(liveBodies(layout, kind, now).map(({ name, text }) => [name, lookedIn(text)]));
  return livePeerFiles(layout, kind, now).map(({ name }) => ({ peer: name, looked: said.get(name) ?? null }));
}

/** The bodies of the live presence files of `kind`; one gone, replaced meanwhile or too large says nothing this time. */
function liveBodies(layout: Layout, kind: string, now: number): Array<{ name: string; text: string }> {
  return livePeerFiles(layout, kind, now).flatMap(({ name, file }) => {
    try {
      const text = readTextBounded(file, { max: MAX_ADVERT_BYTES });
      return text ? [{ name, text }] : [];
    } catch {
      return [];
    }
  });
}

/** This process's name among the workers of its kind (its presence file's name). */
export const SELF_PEER = processPeerId();

export class Peers {
  private readonly file: string;
  private live: string[];
  /** Each peer file's mtime as last read, and when (on this worker's clock) it last moved: clocks need not agree. */
  private seen = new Map<string, { stamp: number; movedAt: number }>();

  /** The body last written to this worker's file (what it advertises), and that file's inode then. */
  private written: { body: string; ino: number } | null = null;
  /** Why no other process can see this worker (its presence file was not written at the last beat) and what a person
   * does about it, or null. */
  unseen: string | null = null;

  constructor(
    private readonly layout: Layout,
    private readonly dir: string,
    readonly self = processPeerId(),
    /** The body of this worker's presence file (a reviewer's advertisement, SPEC §18); none: an empty file. */
    private readonly body?: () => string | null,
  ) {
    this.file = path.join(dir, self);
    this.live = [this.self];
  }

  /** Re-date this worker's file, or write it whole (atomically) when the body it should hold changed or it was replaced. */
  private sayAlive(now: number): void {
    // a body once written and now none (a stuck gate moved on) is emptied: re-dated only, the file would keep saying it
    const body = this.body?.() ?? (this.written ? "" : null);
    const st = body === null ? undefined : lstatQuietly(this.file);
    if (body === null || (this.written?.body === body && st?.ino === this.written.ino && !notWritableInPlace(st))) {
      return touch(this.file, now);
    }
    // a temp name no peer reads (not a peer name), then renamed over the file: a reader never sees half a body
    const temp = path.join(this.dir, `.${this.self}.new`);
    rmSync(temp, { recursive: true, force: true }); // a file left by a crash, or anything planted at the name
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    const fd = openSync(temp, flags, 0o644);
    try {
      writeSync(fd, body);
    } finally {
      closeSync(fd);
    }
    lutimesSync(temp, now / 1000, now / 1000);
    renameSync(temp, this.file);
    this.written = { body, ino: lstatQuietly(this.file)?.ino ?? -1 };
  }

  /** Whether this worker is the one to act at once on an event in the gate `key`: the peer ranked highest for it. */
  owns(key: string): boolean {
    if (this.live.length === 1) return true;
    let best = "";
    let bestRank = -1;
    for (const peer of this.live) {
      const rank = hash(key, hash(peer));
      if (rank > bestRank || (rank === bestRank && peer < best)) [best, bestRank] = [peer, rank];
    }
    return best === this.self;
  }

  /** How many workers of this kind share the work now (this one included). */
  count(): number {
    return this.live.length;
  }

  /**
   * Say this worker is alive and read who else is; true when the set of peers changed. `now` (the wall clock) dates
   * this worker's file and judges a file seen for the first time; how long a peer's file has not moved is `tick`'s,
   * the monotonic clock: a wall clock stepped forward past the forget time removed live peers' files, and one stepped
   * back kept dead peers for as long.
   */
  beat(now = Date.now(), tick = performance.now()): boolean {
    const live = new Set([this.self]);
    const seen = new Map<string, { stamp: number; movedAt: number }>();
    this.unseen = null;
    try {
      // a linked workers/ directory is neither written, read nor cleaned through: this worker counts itself alone
      refuseSymlinks(this.layout.guild, this.dir);
      // a project removed under a running worker (its .guild gone) is not made again by the beat: alone; .guild itself
      // may be a link to the bus root (SPEC §2)
      if (!statSync(this.layout.guild, { throwIfNoEntry: false })?.isDirectory()) throw new Error("no .guild directory");
      try {
        makeDirsBelow(this.layout.guild, this.dir); // .guild removed since the check above: still not made again
        this.sayAlive(now);
      } catch (error) {
        // an unwritable tree: the others do not see this worker and act on its share too (fenced); it still sees them
        const code = (error as NodeJS.ErrnoException).code;
        // a full disk or a read-only mount is not fixed with chmod
        const fix =
          code === "EROFS" || code === "ENOSPC" || code === "EDQUOT"
            ? refusedWriteFix(code)
            : "make .guild/workers a directory this user can write";
        this.unseen = `${this.layout.rel(this.file)} cannot be written (${code ?? (error as Error).message}): ${fix}`;
      }
      const gone: string[] = [];
      for (const name of this.names()) {
        const st = lstatQuietly(path.join(this.dir, name));
        // a hard link (to this worker's own file above all) is re-dated by a worker of another name: not a peer
        if (!st?.isFile() || st.nlink > 1) continue;
        const before = this.seen.get(name);
        // a file seen for the first time counts only if dated near this clock (never one dated in the future);
        // after that, only whether it keeps being re-dated, on this worker's clock
        const movedAt = before
          ? before.stamp === st.mtimeMs
            ? before.movedAt
            : tick
          : Math.abs(now - st.mtimeMs) < PEER_STALE_MS
            ? tick
            : tick - PEER_STALE_MS;
        if (deadHere(name) || tick - movedAt > PEER_FORGET_MS) {
          gone.push(name);
          continue;
        }
        seen.set(name, { stamp: st.mtimeMs, movedAt });
        if (tick - movedAt < PEER_STALE_MS) live.add(name);
      }
      if (gone.length) {
        refuseSymlinks(this.layout.guild, this.dir); // still no link: nothing outside .guild is removed
        for (const name of gone) unlinkQuietly(path.join(this.dir, name));
      }
    } catch (error) {
      // a linked directory, or none to read: alone
      this.unseen ??= `${this.layout.rel(this.dir)}: ${(error as Error).message}`;
    }
    this.seen = seen;
    const sorted = [...live].sort();
    const changed = sorted.join("\n") !== this.live.join("\n");
    this.live = sorted;
    return changed;
  }

  /** Peer names in the directory, read a bounded number of entries at a time: one stuffed with names costs little. */
  private names(): string[] {
    const names: string[] = [];
    const dir = opendirSync(this.dir, { bufferSize: 64 });
    try {
      for (let read = 0; read < MAX_DIR_ENTRIES && names.length < MAX_PEER_NAMES; read++) {
        const entry = dir.readSync();
        if (!entry) break;
        if (PEER_NAME.test(entry.name) && entry.name !== this.self) names.push(entry.name);
      }
    } finally {
      dir.closeSync();
    }
    return names;
  }

  /** This worker leaves: the others take its share at their next beat. */
  leave(): void {
    try {
      refuseSymlinks(this.layout.guild, this.dir);
      unlinkQuietly(this.file);
      unlinkQuietly(path.join(this.dir, `.${this.self}.new`));
    } catch {
      // a linked directory: this worker never wrote there
    }
  }
}

function lstatQuietly(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined; // EACCES, ENOTDIR in a race: not a peer this beat
  }
}

/** Create or re-date the file: never through a symlink or a second name (a hard link planted at this worker's name
 * would re-date a file outside .guild), never opening a FIFO for long. */
function touch(file: string, now: number): void {
  const st = lstatQuietly(file);
  if (st && !notWritableInPlace(st)) return lutimesSync(file, now / 1000, now / 1000);
  if (st) unlinkSync(file); // the other name keeps its bytes and its dates
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  closeSync(openSync(file, flags, 0o644));
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
}
