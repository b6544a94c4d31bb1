// Whether a process of this machine still runs: how a lock or a peer file left by a worker that died (kill -9) is
// told from a live one's without waiting for it to turn stale.
import { readFileSync } from "node:fs";

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}

/**
 * Whether the process `pid` runs the guild-bus command `words` (`["up"]`, `["worker", "broker"]`): the arguments right
 * after the guild-bus script (`node …/guild-bus.js up --root …`, not a run or root named up). A pid reused since by
 * another program or another guild-bus command runs none. Where /proc cannot tell (not Linux, not ours to read), a
 * live pid is taken to.
 */
export function runsGuildBus(pid: number, words: readonly string[]): boolean {
  if (!processAlive(pid)) return false;
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0");
    const script = args.findIndex((a) => a.includes("guild-bus"));
    return script >= 0 && words.every((word, i) => args[script + 1 + i] === word);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}
