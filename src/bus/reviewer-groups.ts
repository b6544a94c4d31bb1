// A reviewer child runs in a process group of its own, killed on every exit path of its worker; a worker killed with
// -9 runs none of them, and its reviewer would run on (up to its timeout, possibly paid twice once a person retries).
// So each group is recorded on this machine, in the system temp directory, with a marker the child's environment
// carries; the next janitor pass of any worker here kills the group of a record whose worker is gone, once the marker
// shows the group is still that reviewer's (a pid is reused only once its group is gone).
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { processAlive } from "./process-alive.js";
import { THIS_MACHINE } from "./this-machine.js";

/** The environment variable every process of a reviewer's group inherits. */
export const DISPATCH_MARKER = "GUILD_BUS_DISPATCH";
/** `guild-bus-group-<machine>-<worker pid>-<group id>`. */
const PREFIX = `guild-bus-group-${THIS_MACHINE}-`;
const PIDS = /^(\d+)-(\d+)$/;

const recordFile = (dir: string, workerPid: number, groupPid: number) => path.join(dir, `${PREFIX}${workerPid}-${groupPid}`);

/** A marker for a child about to be started (put it in its environment as DISPATCH_MARKER). */
export function newMarker(): string {
  return randomBytes(16).toString("hex");
}

/** Record the group `groupPid` started with `marker`; returns what forgets it once the group was killed or ended. */
export function recordGroup(groupPid: number, marker: string, dir = tmpdir()): () => void {
  const file = recordFile(dir, process.pid, groupPid);
  try {
    writeFileSync(file, marker, { mode: 0o600, flag: "wx" });
  } catch {
    return () => {}; // an unwritable temp directory: the group is still killed on every exit path but kill -9
  }
  return () => {
    try {
      unlinkSync(file);
    } catch {
      // already swept
    }
  };
}

/**
 * Whether the group `pid` is still that reviewer's: its leader runs with this marker, or is gone or a zombie (Linux
 * keeps a group's id from new processes while any member lives); false when the pid now runs something else (then the
 * group is gone); null where /proc cannot tell (not Linux): never killed there.
 */
function stillTheReviewer(pid: number, marker: string): boolean | null {
  if (!existsSync("/proc/self/environ")) return null;
  try {
    if (/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, "latin1"))) return true; // a zombie leader shows no environment
    return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`${DISPATCH_MARKER}=${marker}`);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? true : null;
  }
}

/**
 * SIGKILL every process of this user that carries `marker`: what a reviewer started and that left its group (setsid,
 * a detached helper) is still the dispatch's, and may still be calling a paid model. Repeated until a pass finds none
 * (one may fork while a pass runs). Returns the pids killed; none where /proc cannot tell (not Linux).
 */
export function killMarked(marker: string): number[] {
  const killed: number[] = [];
  const entry = `${DISPATCH_MARKER}=${marker}`;
  const uid = process.getuid?.();
  for (let pass = 0; pass < 5; pass++) {
    let pids: string[];
    try {
      pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
    } catch {
      return killed;
    }
    let found = false;
    for (const name of pids) {
      const pid = Number(name);
      if (pid === process.pid || killed.includes(pid)) continue; // one killed may take a moment to go
      try {
        if (lstatSync(`/proc/${name}`).uid !== uid) continue; // not ours: its environment cannot be read anyway
        if (!readFileSync(`/proc/${name}/environ`, "latin1").split("\0").includes(entry)) continue;
        process.kill(pid, "SIGKILL");
        killed.push(pid);
        found = true;
      } catch {
        // gone meanwhile
      }
    }
    if (!found) break;
  }
  return killed;
}

/**
 * Kill the reviewer groups whose worker on this machine is gone (of those `workers` names, when given); returns the
 * group ids killed, and the pids of what left them.
 */
export function sweepOrphanGroups(dir = tmpdir(), workers?: ReadonlySet<number>): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const killed: number[] = [];
  for (const name of names) {
    const m = name.startsWith(PREFIX) ? PIDS.exec(name.slice(PREFIX.length)) : null;
    if (!m) continue;
    const [worker, group] = [Number(m[1]), Number(m[2])];
    if (worker === process.pid || (workers && !workers.has(worker)) || processAlive(worker)) continue;
    const file = path.join(dir, name);
    let marker: string;
    try {
      // the temp directory is every user's: only a record this user wrote, as a file, names a group to kill
      const st = lstatSync(file);
      if (!st.isFile() || st.uid !== process.getuid?.()) continue;
      marker = readFileSync(file, "latin1").trim();
    } catch {
      continue;
    }
    const valid = /^[0-9a-f]{32}$/.test(marker);
    const still = valid ? stillTheReviewer(group, marker) : false;
    if (still === null) continue; // cannot be told: the record stays, nothing is killed
    if (still) {
      try {
        process.kill(-group, "SIGKILL");
        killed.push(group);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") continue; // not ours to kill: tried again later
      }
    }
    // the group may be gone (its id even reused, by a process that is not killed) while a process that left it runs
    // on: the marker names it all the same, and its own pid is what was killed
    if (valid) for (const pid of killMarked(marker)) if (!killed.includes(pid)) killed.push(pid);
    try {
      unlinkSync(file); // killed, gone, or never that reviewer's
    } catch {
      // another janitor took it
    }
  }
  return killed;
}
