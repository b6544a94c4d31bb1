// What a test leaves running once it is over: a worker SIGKILLed on purpose runs none of its exit paths, so its reviewer
// child runs on (a `hang` plan for an hour) until some later worker's janitor sweeps it, and none comes once the test
// removed its project. Killed here, so that no test leaves a process behind.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

/**
 * SIGKILL every process of this user but this one whose working directory or command line lies under one of `dirs` (a
 * command reviewer runs in its project; a worker, a CLI call and a scripted reviewer name a path there), until a pass
 * finds none (one may fork meanwhile).
 */
export function killProcessesUnder(dirs: readonly string[]): void {
  const under = (file: string) => dirs.some((dir) => file === dir || file.startsWith(dir + path.sep));
  const killed: number[] = [];
  const uid = process.getuid?.();
  for (let pass = 0; dirs.length && pass < 5; pass++) {
    let found = false;
    let names: string[];
    try {
      names = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
    } catch {
      return; // not Linux
    }
    for (const name of names) {
      const pid = Number(name);
      if (pid === process.pid || killed.includes(pid)) continue;
      try {
        const status = readFileSync(`/proc/${name}/status`, "latin1");
        if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) !== uid || /^State:\s+Z/m.test(status)) continue;
        const argv = readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0");
        if (!under(readlinkSync(`/proc/${name}/cwd`)) && !argv.some(under)) continue;
        process.kill(pid, "SIGKILL");
        killed.push(pid);
        found = true;
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    if (!found) break;
  }
}
