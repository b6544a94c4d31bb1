// How much slower this machine is right now than an idle 2-core one, measured once per test file: the time to
// start a node process (what the integration tests mostly wait on). Deadlines that depend on speed scale by it.
import { spawnSync } from "node:child_process";

/** What `node -e 0` takes on an idle 2-core machine. */
const IDLE_NODE_START_MS = 60;

function measure(): number {
  const times = [0, 1, 2].map(() => {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" });
    return Number(process.hrtime.bigint() - t) / 1e6;
  });
  times.sort((a, b) => a - b);
  return Math.min(8, Math.max(1, times[1]! / IDLE_NODE_START_MS));
}

export const MACHINE_FACTOR = measure();

/** A deadline for work whose speed depends on the machine: `ms` on an idle machine, more under load (at most 8×). */
export function scaled(ms: number): number {
  return Math.round(ms * MACHINE_FACTOR);
}

/** `review --wait --timeout` seconds for a review that takes well under `s` on an idle machine. */
export const waitSeconds = (s: number): string => String(Math.ceil(s * MACHINE_FACTOR));
