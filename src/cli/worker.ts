// guild-bus worker <kind> runs one worker in this process; guild-bus up supervises a set of them.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { intArg } from "./options.js";

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bin", "guild-bus.js");

interface WorkerCliOptions {
  root: string;
  poll?: boolean;
  provider?: string[];
  reconcileMs: number;
  fullScanMs: number;
  claimStaleMs: number;
  concurrency: number;
}

export function register(program: Command): void {
  program
    .command("worker")
    .description("run one worker: broker | verifier | manual | command | codex | claude | gemini | copilot | http")
    .argument("<kind>")
    .option("--root <dir>", "project root", process.cwd())
    .option("--poll", "poll the filesystem instead of native events (auto on NFS, SMB, 9p, FUSE)")
    .option("--provider <id...>", "reviewer workers: serve only these provider ids")
    .option("--reconcile-ms <ms>", "reconcile interval", intArg(1), 2000)
    .option("--full-scan-ms <ms>", "interval of the full scan of every run (new gates in finished runs, late drops in finished gates)", intArg(1), 10_000)
    .option("--claim-stale-ms <ms>", "reviewer claims: how long a silent claim lasts", intArg(1), 30_000)
    .option("--concurrency <n>", "reviewer workers: dispatches at once", intArg(1, 1000), 4)
    .action(async (kind: string, o: WorkerCliOptions) => {
      const { WORKER_KINDS, createWorker } = await import("../../workers/index.js");
      if (!(WORKER_KINDS as readonly string[]).includes(kind)) throw new Error(`unknown worker kind ${kind}; one of: ${WORKER_KINDS.join(", ")}`);
      const { runUntilSignal } = await import("../worker/runtime.js");
      const { workerLogger } = await import("../worker/options.js");
      const runtime = createWorker(kind as (typeof WORKER_KINDS)[number], {
        root: o.root,
        poll: o.poll ? true : "auto",
        reconcileMs: o.reconcileMs,
        fullScanMs: o.fullScanMs,
        providers: o.provider,
        claimStaleMs: o.claimStaleMs,
        concurrency: o.concurrency,
      });
      await runUntilSignal(runtime, workerLogger(kind));
    });

  program
    .command("up")
    .description("start and supervise the workers (restarting any that die) until interrupted")
    .option("--root <dir>", "project root", process.cwd())
    .option("--poll", "poll the filesystem instead of native events")
    .option("--kinds <list>", "comma-separated worker kinds (default: broker,verifier,manual, plus one reviewer worker per adapter kind configured or detected)")
    .action(async (o: { root: string; poll?: boolean; kinds?: string }) => {
      const [{ Layout }, { loadSettings }, { detectProviders }] = await Promise.all([import("../layout.js"), import("../settings.js"), import("../providers/detect.js")]);
      const layout = new Layout(o.root);
      const { settings } = loadSettings(layout);
      // a reviewer worker for every adapter kind a packet could be addressed to, so no packet waits for nobody
      const reviewers = new Set((await detectProviders(settings, layout)).filter((p) => p.adapter !== "manual" && (p.available || p.source === "settings")).map((p) => p.adapter));
      const kinds = o.kinds ? o.kinds.split(",").map((k) => k.trim()).filter(Boolean) : ["broker", "verifier", "manual", ...[...reviewers].sort()];
      await supervise(kinds, ["--root", o.root, ...(o.poll ? ["--poll"] : [])]);
    });
}

/** Keep one child per kind alive until SIGINT/SIGTERM; then stop them all and wait. */
export async function supervise(kinds: string[], args: string[]): Promise<void> {
  const children = new Map<string, ChildProcess>();
  let stopping = false;
  const start = (kind: string, restarts: number) => {
    const child = spawn(process.execPath, [BIN, "worker", kind, ...args], { stdio: ["ignore", "inherit", "inherit"] });
    children.set(kind, child);
    child.on("exit", (code, signal) => {
      children.delete(kind);
      if (stopping) return;
      const delay = Math.min(30_000, 500 * 2 ** Math.min(restarts, 6));
      process.stderr.write(`[up] ${kind} worker exited (${code ?? signal}); restarting in ${delay} ms\n`);
      setTimeout(() => !stopping && start(kind, restarts + 1), delay).unref();
    });
  };
  for (const kind of kinds) start(kind, 0);
  process.stderr.write(`[up] supervising: ${kinds.join(", ")} (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      if (stopping) return;
      stopping = true;
      const waiting = [...children.values()].map((c) => new Promise((r) => c.once("exit", r)));
      for (const c of children.values()) c.kill("SIGTERM");
      void Promise.all(waiting).then(() => resolve());
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
