// guild-bus worker <kind> runs one worker in this process; guild-bus up supervises a set of them.
import type { Command } from "commander";
import type { Settings } from "../spec/schemas.js";
import { ROOT_HELP } from "./errors.js";
import { packagePath } from "../bus/package-files.js";
import { fileStamp } from "../bus/file-stamp.js";
import { summary } from "./overview.js";
import { WORKER_KINDS } from "../spec/constants.js";
import { intArg } from "./options.js";
import { print } from "./safe-output.js";

export const BIN = packagePath("bin", "guild-bus.js");

interface WorkerCliOptions {
  root: string;
  poll?: boolean;
  provider?: string[];
  reconcileMs: number;
  fullScanMs: number;
  claimStaleMs: number;
  concurrency: number;
}

const isWorkerKind = (kind: string): boolean => (WORKER_KINDS as readonly string[]).includes(kind);

/** The kinds named, each checked against the one list of worker kinds (src/workers/index.ts). */
function workerKinds(names: string[], where: string) {
  const unknown = names.filter((k) => !isWorkerKind(k));
  if (unknown.length || !names.length) {
    const problem = names.length ? `unknown worker kind ${unknown.map((k) => JSON.stringify(k)).join(", ")}` : "no worker kind given";
    throw new Error(`${where}: ${problem}; the kinds are ${WORKER_KINDS.join(", ")}`);
  }
  return [...new Set(names)] as Array<(typeof WORKER_KINDS)[number]>;
}

export function register(program: Command): void {
  program
    .command("worker")
    .description(summary("worker"))
    .argument("<kind>")
    .option("--root <dir>", ROOT_HELP)
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
      const [kind] = workerKinds([kindArg], "worker");
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
    .description(summary("up"))
    .option("--root <dir>", ROOT_HELP)
    .option("--poll", "poll the filesystem instead of native events")
    .option(
      "--kinds <list>",
      "comma-separated worker kinds (default: broker,verifier,manual, plus one reviewer worker per adapter kind configured or detected)",
    )
    .action(async (o: { root: string; poll?: boolean; kinds?: string }) => {
      const requested =
        o.kinds === undefined
          ? undefined
          : workerKinds(
              o.kinds
                .split(",")
                .map((k) => k.trim())
                .filter(Boolean),
              "--kinds",
            );
      // started by `guild-bus mcp` with an IPC channel (process.send stays defined once it is gone): when that server
      // goes, however it ends, stop as on a closed terminal — the reviews in flight (possibly paid) finish first. A
      // server already gone while this process loaded (the event is not seen again) means no workers at all; one
      // that goes before they start ends this one at once (its lock then names a dead pid, which the next up replaces).
      if (typeof process.send === "function") {
        if (!process.connected) return void print("stderr", "[up] the guild-bus mcp that started this is gone; not starting\n");
        process.channel?.unref();
        process.once("disconnect", () => process.kill(process.pid, "SIGHUP"));
      }
      const [{ Layout }, { loadSettings }, { detectProviders }, { lockSupervisor }, { makeDirsBelow }] = await Promise.all([
        import("../bus/layout.js"),
        import("../bus/settings.js"),
        import("../adapters/probe.js"),
        import("../runtime/supervisor-lock.js"),
        import("../bus/make-dirs.js"),
      ]);
      const layout = new Layout(o.root);
      const release = await lockSupervisor(layout); // before detection: a second up is refused at once
      // up starts the project its workers follow (they make nothing): they watch .guild/runs from the first review on
      makeDirsBelow(layout.guild, layout.runs);
      // stamped before the read the kinds come from (not main.ts's check): an edit from then on, while detection runs
      // too, is seen by moreKinds below
      let seen = fileStamp(layout.settings);
      const { settings, fault } = loadSettings(layout);
      if (fault) {
        // the defaults would start other reviewer workers than the project configured: packets would wait for nobody
        release();
        throw new Error(`settings cannot be read for now (${fault}); nothing started — try again`);
      }
      // a reviewer worker for every adapter kind a packet could be addressed to, so no packet waits for nobody
      const reviewers = async (now: Settings) =>
        (await detectProviders(now, layout))
          // manual is always started; an external reviewer is a process of its own, with no worker here
          .filter((p) => p.adapter !== "manual" && isWorkerKind(p.adapter) && (p.available || p.source === "settings"))
          .map((p) => p.adapter);
      const kinds = requested ?? ["broker", "verifier", "manual", ...[...new Set(await reviewers(settings))].sort()];
      // ... and for a kind the settings configure later: detection runs again only when settings.json changed
      const moreKinds = async () => {
        const stamp = fileStamp(layout.settings);
        if (stamp === seen) return [];
        const reread = loadSettings(layout);
        if (reread.fault) return []; // read again at the next look
        const found = await reviewers(reread.settings);
        seen = stamp; // only once detection ran: one that failed is tried again at the next look
        return found;
      };
      const args = ["--root", o.root, ...(o.poll ? ["--poll"] : [])];
      const { supervise } = await import("../runtime/supervisor.js");
      try {
        const argvOf = (kind: string) => [BIN, "worker", kind, ...args];
        if ((await supervise(kinds, argvOf, requested ? undefined : moreKinds)) === "all-failed") process.exitCode = 1;
      } finally {
        release();
      }
    });
}
