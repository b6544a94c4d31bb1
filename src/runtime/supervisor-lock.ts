// One `guild-bus up` per tree: a second one would start a duplicate of every worker. The lock is a file delivered
// first-writer-wins, naming its holder; a holder that died (kill -9) is seen by its pid and replaced, and so is a pid
// that now runs another program. A holder on another machine (a tree shared over a network filesystem) cannot be
// asked by pid: it re-dates the lock while it runs, and a lock of another host not re-dated for a minute holds nothing.
import { lstatSync, statSync, unlinkSync, utimesSync } from "node:fs";
import type { Layout } from "../bus/layout.js";
import { deliver, THIS_HOST } from "../bus/deliver.js";
import { THIS_MACHINE } from "../bus/this-machine.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { runsGuildBus } from "../bus/process-alive.js";
import { oneLine, textOf } from "../core/text-of.js";

interface Holder {
  pid: number;
  host: string;
  /** Host and pid namespace (THIS_MACHINE): a container sharing the tree under the same host name cannot ask its pid.
   * A lock written without it (an older bus) is judged by its host. */
  machine?: string;
  started_at: string;
  /** The bus it supervises (its .guild's device and inode): a copy of the project (`cp -a`) carries the lock, not the
   * supervisor; the same bus through a bind mount or a linked .guild is the same one. */
  bus?: string;
}

export class SupervisorLockedError extends Error {}

/** How often a running `up` re-dates its lock, and how long another machine's lock counts without being re-dated: the
 * window another machine's worker counts as running in (peers.ts), clocks within a few seconds of each other. */
export const SUPERVISOR_LOCK_BEAT_MS = 5_000;
export const FOREIGN_LOCK_STALE_MS = 60_000;

/** A lock's host and start time, as they are printed: a hostname is at most 253 characters. */
const MAX_SHOWN_CHARS = 256;

function readHolder(file: string): Holder | null {
  try {
    const h = JSON.parse(readTextBounded(file, { max: MAX_FILE_BYTES })) as Partial<Holder>;
    if (typeof h.pid !== "number" || typeof h.host !== "string") return null;
    // printed in one-line messages (up, mcp): a planted lock's text never starts a line of its own, nor runs on
    const line = (value: unknown) => oneLine(textOf(value)).slice(0, MAX_SHOWN_CHARS);
    return {
      pid: h.pid,
      host: line(h.host),
      started_at: line(h.started_at),
      ...(typeof h.machine === "string" ? { machine: h.machine } : {}),
      ...(typeof h.bus === "string" ? { bus: h.bus } : {}),
    };
  } catch {
    return null; // gone meanwhile, or not a lock we wrote (never a FIFO waited on)
  }
}

/** The bus's identity on this machine: its .guild directory's device and inode, whatever path reaches it. */
function busOf(layout: Layout): string | undefined {
  const st = statSync(layout.guild, { throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}` : undefined;
}

/** The start time this process wrote into the lock it holds, while it holds it. */
let heldSince: string | null = null;

/**
 * Whether the holder named by a lock of this host still holds it: its pid runs `guild-bus up` — a pid reused since by
 * another program or another guild-bus command (wait, mcp, ui), or a planted lock naming pid 1, holds nothing. A lock
 * naming this very process holds only if this process wrote it (a container restarted under the same host name can
 * run its new `up` with the pid the old one had). Where /proc cannot tell, a live pid holds.
 */
function holds(holder: Holder, layout: Layout, now = Date.now()): boolean {
  // another machine's pids mean nothing here (and its mount numbers its devices its own way): its `up` holds while it
  // keeps re-dating the lock, so one that died with its machine (kill -9, power cut) does not hold the tree for ever
  // another pid namespace under the same host name (a container with the host's name) is another machine too
  if (holder.host !== THIS_HOST || (holder.machine !== undefined && holder.machine !== THIS_MACHINE))
    return lockRedatedWithin(layout.supervisorLock, now, FOREIGN_LOCK_STALE_MS);
  if (holder.bus !== undefined && holder.bus !== busOf(layout)) return false;
  if (holder.pid === process.pid) return heldSince !== null && holder.started_at === heldSince;
  return runsGuildBus(holder.pid, ["up"]);
}

function lockRedatedWithin(file: string, now: number, window: number): boolean {
  try {
    const st = lstatSync(file);
    return Math.abs(now - st.mtimeMs) < window;
  } catch {
    return false; // gone meanwhile
  }
}

/** Whether the lock still names this very holder (never re-date or remove another's lock that replaced ours). */
function isMine(file: string, mine: Holder): boolean {
  const h = readHolder(file);
  return h !== null && h.pid === mine.pid && h.host === mine.host && h.started_at === mine.started_at;
}

/** The `up` supervising this tree now, if any: a holder on this host that is gone counts as none, and so does one of
 * another host that stopped re-dating the lock. */
export function runningSupervisor(layout: Layout): Holder | null {
  const holder = readHolder(layout.supervisorLock);
  return holder && holds(holder, layout) ? holder : null;
}

/** Take the tree's supervisor lock, or throw SupervisorLockedError naming the running supervisor. Returns its release. */
export async function lockSupervisor(layout: Layout): Promise<() => void> {
  const file = layout.supervisorLock;
  const mine: Holder = {
    pid: process.pid,
    host: THIS_HOST,
    machine: THIS_MACHINE,
    started_at: new Date().toISOString(),
    bus: busOf(layout),
  };
  const bytes = JSON.stringify(mine) + "\n";
  for (let attempt = 0; ; attempt++) {
    // `up` in a fresh project makes .guild; its later retake never does (below)
    if ((await deliver(file, bytes, { guildDir: layout.guild, makeDirs: true })).status === "delivered") {
      heldSince = mine.started_at;
      break;
    }
    const holder = readHolder(file);
    const stale = holder !== null && !holds(holder, layout);
    if (!stale || attempt > 0) {
      const who = holder ? `pid ${holder.pid} on ${holder.host}, since ${holder.started_at}` : "holder unreadable";
      throw new SupervisorLockedError(
        `another guild-bus up already supervises ${layout.root} (${who}); stop it first, or remove ${layout.rel(file)} if it is gone`,
      );
    }
    unlinkSync(file); // its holder died without releasing it
  }
  let released = false;
  // removed under a running up (`git clean -fdx`, `rm .guild/up.lock`): delivered again, first writer wins, so a
  // second up is still refused; never into a .guild made anew (removed whole: that bus is not the one it supervises)
  const retake = async () => {
    try {
      if (busOf(layout) !== mine.bus) return;
      await deliver(file, bytes, { guildDir: layout.guild });
      if (released && isMine(file, mine)) unlinkSync(file); // released while it was being delivered
    } catch {
      // the next beat tries again
    }
  };
  // say it is alive to other machines sharing the tree (a pid they cannot ask); never through a lock that is not ours
  const beat = setInterval(() => {
    try {
      if (!lstatSync(file, { throwIfNoEntry: false })) return void retake();
      if (!isMine(file, mine)) return;
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // a read-only tree: other machines then count this up as gone
    }
  }, SUPERVISOR_LOCK_BEAT_MS).unref();
  return () => {
    released = true;
    clearInterval(beat);
    if (isMine(file, mine)) unlinkSync(file);
    heldSince = null;
  };
}
