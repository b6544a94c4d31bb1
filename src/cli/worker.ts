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

/** The kinds named, each checked against the one list of worker kinds (src/workers/index.ts). */
async function workerKinds(names: string[], where: string) {
  const { WORKER_KINDS } = await import("../workers/index.js");
  const unknown = names.filter((k) => !(WORKER_KINDS as readonly string[]).includes(k));
  if (unknown.length || !names.length) {
    throw new Error(
      `${where}: ${names.length ? `unknown worker kind ${unknown.map((k) => JSON.stringify(k)).join(", ")}` : "no worker kind given"}; the kinds are ${WORKER_KINDS.join(", ")}`,
    );
  }
  return [...new Set(names)] as Array<(typeof WORKER_KINDS)[number]>;
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
    .option(
      "--full-scan-ms <ms>",
      "interval of the full scan of every run (new gates in finished runs, late drops in finished gates)",
      intArg(1),
      10_000,
    )
    .option("--claim-stale-ms <ms>", "reviewer claims: how long a silent claim lasts", intArg(1), 30_000)
    .option("--concurrency <n>", "reviewer workers: dispatches at once", intArg(1, 1000), 4)
    .action(async (kindArg: string, o: WorkerCliOptions) => {
      const [kind] = await workerKinds([kindArg], "worker");
      const { createWorker } = await import("../workers/index.js");
      const { runUntilSignal } = await import("../runtime/reconciler.js");
      const { workerLogger } = await import("../runtime/worker-options.js");
      const runtime = createWorker(kind!, {
        root: o.root,
        poll: o.poll ? true : "auto",
        reconcileMs: o.reconcileMs,
        fullScanMs: o.fullScanMs,
        providers: o.provider,
        claimStaleMs: o.claimStaleMs,
        concurrency: o.concurrency,
      });
      await runUntilSignal(runtime, workerLogger(kind!));
    });

  program
    .command("up")
    .description("start and supervise the workers (restarting any that die; one that keeps failing at start is given up) until interrupted")
    .option("--root <dir>", "project root", process.cwd())
    .option("--poll", "poll the filesystem instead of native events")
    .option(
      "--kinds <list>",
      "comma-separated worker kinds (default: broker,verifier,manual, plus one reviewer worker per adapter kind configured or detected)",
    )
    .action(async (o: { root: string; poll?: boolean; kinds?: string }) => {
      const requested =
        o.kinds === undefined
          ? undefined
          : await workerKinds(
              o.kinds
                .split(",")
                .map((k) => k.trim())
                .filter(Boolean),
              "--kinds",
            );
      const [{ Layout }, { loadSettings }, { detectProviders }] = await Promise.all([
        import("../bus/layout.js"),
        import("../bus/settings.js"),
        import("../adapters/probe.js"),
      ]);
      const layout = new Layout(o.root);
      const { settings } = loadSettings(layout);
      // a reviewer worker for every adapter kind a packet could be addressed to, so no packet waits for nobody
      const reviewers = async () =>
        new Set(
          (await detectProviders(settings, layout))
            .filter((p) => p.adapter !== "manual" && (p.available || p.source === "settings"))
            .map((p) => p.adapter),
        );
      const kinds = requested ?? ["broker", "verifier", "manual", ...[...(await reviewers())].sort()];
      if ((await supervise(kinds, ["--root", o.root, ...(o.poll ? ["--poll"] : [])])) === "all-failed") process.exitCode = 1;
    });
}

/** A worker that exits sooner than this after it started is failing to start, not dying after work. */
export const QUICK_EXIT_MS = 5_000;
/** This many quick exits in a row and the worker is given up on (with growing delays between the tries). */
export const MAX_QUICK_EXITS = 5;
const RESTART_DELAY_MS = 500;

/**
 * Keep one child per kind alive until SIGINT/SIGTERM; then stop them all and wait. A worker that keeps exiting right
 * after it starts is restarted after 0.5, 1, 2, 4 s and then left down, with the reason logged, while the others
 * carry on; "all-failed" when none is left.
 */
export async function supervise(kinds: string[], args: string[]): Promise<"stopped" | "all-failed"> {
  const log = (m: string) => process.stderr.write(`[up] ${m}\n`);
  const children = new Map<string, ChildProcess>();
  const timers = new Set<NodeJS.Timeout>();
  const supervised = new Set(kinds);
  let stopping = false;
  let finish!: (how: "stopped" | "all-failed") => void;
  const finished = new Promise<"stopped" | "all-failed">((resolve) => (finish = resolve));
  const start = (kind: string, quickExits: number) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [BIN, "worker", kind, ...args], { stdio: ["ignore", "inherit", "inherit"] });
    children.set(kind, child);
    let ended = false;
    const onEnd = (how: string) => {
      if (ended) return;
      ended = true;
      children.delete(kind);
      if (stopping) return;
      const quick = Date.now() - startedAt < QUICK_EXIT_MS ? quickExits + 1 : 0;
      if (quick >= MAX_QUICK_EXITS) {
        supervised.delete(kind);
        const rest = supervised.size ? `still supervising ${[...supervised].join(", ")}` : "no worker left to supervise";
        log(
          `${kind} worker exited (${how}) ${quick} times in a row within ${QUICK_EXIT_MS / 1000} s of starting; not restarting it (its error is above); ${rest}`,
        );
        if (!supervised.size) finish("all-failed");
        return;
      }
      const delay = RESTART_DELAY_MS * 2 ** Math.max(0, quick - 1);
      log(`${kind} worker exited (${how}); restarting in ${delay} ms`);
      const timer = setTimeout(() => {
        timers.delete(timer);
        start(kind, quick);
      }, delay);
      timers.add(timer);
    };
    child.once("exit", (code, signal) => onEnd(String(code ?? signal)));
    child.once("error", (error) => onEnd(error.message)); // could not be spawned at all
  };
  for (const kind of kinds) start(kind, 0);
  log(`supervising: ${kinds.join(", ")} (Ctrl-C to stop)`);
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const t of timers) clearTimeout(t);
    const waiting = [...children.values()].map((c) => new Promise((r) => c.once("exit", r)));
    for (const c of children.values()) c.kill("SIGTERM");
    void Promise.all(waiting).then(() => finish("stopped"));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const how = await finished;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  return how;
}
