// What every bench figure shares: percentiles, the load average, temp directories removed at exit, real worker
// processes (with their CPU time read from /proc), and a fresh project tree.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Layout } from "../src/bus/layout.js";
import type { Answer } from "../src/commands/answer.js";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = path.join(REPO, "bin", "guild-bus.js");

export function requested(answer: Answer<unknown>): void {
  if (!answer.ok) throw new Error(`bench set-up: ${answer.error}`);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}
export const median = (v: number[]) => percentile(v, 50);
export const ms = (n: number) => Math.round(n * 100) / 100;
/** The 1-minute load average, printed beside every figure: on a shared machine absolute times mean little without it. */
export const load1 = () => ms(loadavg()[0]!);

/** Every temp directory the bench makes, removed when it ends (also on a failure). */
const temps = new Set<string>();
export function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "guild-bus-bench-"));
  temps.add(dir);
  return dir;
}
/** `rm -rf` first: it removes a 100,000-run history in seconds, where rmSync takes minutes. */
export function removeTemp(dir: string): void {
  if (spawnSync("rm", ["-rf", "--", dir], { stdio: "ignore" }).status !== 0) rmSync(dir, { recursive: true, force: true });
  temps.delete(dir);
}
/** Every worker (or echo) process the bench starts and that has not exited yet. */
const live = new Set<ChildProcess>();
export function tracked(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once("exit", () => live.delete(child));
  return child;
}
/** On a figure's failure or a signal: the processes stop (and have exited) before their trees are removed, else one
 * still writing makes a removed tree again. */
export async function stopAll(): Promise<void> {
  await stopWorkers([...live]);
  temps.forEach(removeTemp);
}
// the last resort (an exit nobody awaited): a process killed outright writes nothing more
process.on("exit", () => {
  live.forEach((c) => c.kill("SIGKILL"));
  temps.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void stopAll().finally(() => process.exit(130)));

/** BENCH_CPU_PROF=<dir>: each worker writes a V8 CPU profile there when it stops (node refuses --cpu-prof in NODE_OPTIONS). */
export const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];

/** Real worker processes, one per kind named; `onLine` receives each line they log (stderr is ignored without it). */
export function startWorkers(root: string, kinds: string[], poll: boolean, onLine?: (line: string) => void): ChildProcess[] {
  return kinds.map((kind) => {
    const child = tracked(
      spawn(process.execPath, [...profile, BIN, "worker", kind, "--root", root, ...(poll ? ["--poll"] : [])], {
        stdio: ["ignore", "ignore", onLine ? "pipe" : "ignore"],
      }),
    );
    if (onLine) createInterface({ input: child.stderr! }).on("line", onLine);
    return child;
  });
}

export async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise((r) => {
          if (c.exitCode !== null || c.signalCode !== null) return r(null);
          c.once("exit", r);
          c.kill("SIGTERM");
        }),
    ),
  );
}

const clockTicks = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

/** A live process's CPU time so far (user + system) in ms, from /proc/<pid>/stat; NaN where /proc is not there. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the fields after the command name, which may hold spaces and parentheses: utime and stime are fields 14 and 15
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return NaN;
  }
}

/**
 * A live process's time on a CPU and waiting in a run queue for one, in ms (/proc/<pid>/schedstat); the rest of the
 * wall time it was blocked (fsync, a read) or idle (waiting for an event). NaN where /proc is not there.
 */
export function schedMs(pid: number): { running: number; waiting: number } {
  try {
    const [running, waiting] = readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ").map(Number);
    return { running: running! / 1e6, waiting: waiting! / 1e6 };
  } catch {
    return { running: NaN, waiting: NaN };
  }
}

export function freshProject(): { root: string; layout: Layout } {
  const root = tempDir();
  const layout = new Layout(root);
  mkdirSync(layout.runs, { recursive: true });
  writeFileSync(path.join(root, "a.md"), "# artifact\n");
  return { root, layout };
}

export const packetField = (text: string, name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(text)![1]!.trim();
