// `guild-bus up`: one child process per worker kind, kept alive until stopped (SPEC §18). Each child has an IPC
// channel to it: a worker whose supervisor dies sees the channel close and exits (src/runtime/reconciler.ts).
import { type ChildProcess, spawn } from "node:child_process";
import { lineSafe } from "../core/terminal-safe.js";
import { isSystemFault } from "../bus/system-fault.js";

/** A worker that exits sooner than this after it started is failing to start, not dying after work. */
const QUICK_EXIT_MS = 5_000;
/** This many quick exits in a row and the worker is given up on (with growing delays between the tries). */
const MAX_QUICK_EXITS = 5;
const RESTART_DELAY_MS = 500;
/** The longest wait between tries to start a worker the system could not start (no descriptors, processes, memory). */
const SHORTAGE_RETRY_MAX_MS = 30_000;
/** How often `up` asks whether the settings now configure a worker kind it does not run. */
const LOOK_MS = 2_000;

/**
 * Keep one child per kind alive until stopped, then wait for them all. SIGTERM stops them at once (aborting
 * dispatches in flight). The first SIGINT (Ctrl-C), a SIGHUP (terminal closed) or a closed output pipe (`up | head`)
 * drains instead: no new work is taken and the dispatches in flight, possibly paid reviews, finish; a second SIGINT
 * stops at once. A worker that keeps exiting right after it starts is restarted after 0.5, 1, 2, 4 s and then left
 * down, with the reason logged, while the others carry on; "all-failed" when none is left. One the system cannot start
 * (EMFILE, EAGAIN, ENOMEM: a shortage that passes) is tried again until it starts, at most 30 s apart.
 */
export async function supervise(
  kinds: string[],
  argvOf: (kind: string) => string[],
  /** Asked every LOOK_MS: kinds to supervise from now on (a reviewer kind added to settings); a kind given up stays down. */
  moreKinds?: () => Promise<string[]>,
): Promise<"stopped" | "all-failed"> {
  const log = (m: string) => {
    if (!process.stderr.destroyed) process.stderr.write(`[up] ${lineSafe(m)}\n`);
  };
  const children = new Map<string, ChildProcess>();
  const timers = new Set<NodeJS.Timeout>();
  const supervised = new Set(kinds);
  const givenUp = new Set<string>();
  let stopping = false;
  let finish!: (how: "stopped" | "all-failed") => void;
  const finished = new Promise<"stopped" | "all-failed">((resolve) => (finish = resolve));
  const later = (delay: number, then: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      then();
    }, delay);
    timers.add(timer);
  };
  const start = (kind: string, quickExits: number, shortages = 0) => {
    const startedAt = performance.now();
    let ended = false;
    const onEnd = (how: string, shortage = false) => {
      if (ended) return;
      ended = true;
      children.delete(kind);
      if (stopping) return;
      if (shortage) {
        // the system could not start a process: no fault of the worker's, and it passes; never given up on for it
        const delay = Math.min(RESTART_DELAY_MS * 2 ** shortages, SHORTAGE_RETRY_MAX_MS);
        log(`cannot start the ${kind} worker (${how}): the system is short of descriptors, processes or memory; retry in ${delay} ms`);
        later(delay, () => start(kind, quickExits, shortages + 1));
        return;
      }
      const quick = performance.now() - startedAt < QUICK_EXIT_MS ? quickExits + 1 : 0;
      if (quick >= MAX_QUICK_EXITS) {
        supervised.delete(kind);
        givenUp.add(kind);
        const rest = supervised.size ? `still supervising ${[...supervised].join(", ")}` : "no worker left to supervise";
        log(
          `${kind} worker exited (${how}) ${quick} times in a row within ${QUICK_EXIT_MS / 1000} s of starting; ` +
            `not restarting it (its error is above); ${rest}`,
        );
        if (!supervised.size) {
          halt(); // nothing is started again, not even a kind the settings add later: this up is over
          finish("all-failed");
        }
        return;
      }
      const delay = RESTART_DELAY_MS * 2 ** Math.max(0, quick - 1);
      log(`${kind} worker exited (${how}); restarting in ${delay} ms`);
      later(delay, () => start(kind, quick));
    };
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, argvOf(kind), { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    } catch (error) {
      // Node throws some spawn failures (ENOMEM) rather than emitting them: the same shortage, never a crash of `up`
      return onEnd((error as Error).message, isSystemFault(error));
    }
    children.set(kind, child);
    child.once("exit", (code, signal) => onEnd(String(code ?? signal)));
    child.once("error", (error) => onEnd(error.message, isSystemFault(error))); // could not be spawned at all
  };
  const exits = () => Promise.all([...children.values()].map((c) => new Promise((r) => c.once("exit", r))));
  let looking = false;
  const look = moreKinds
    ? setInterval(() => {
        if (looking) return;
        looking = true;
        void moreKinds()
          .then((found) => {
            if (stopping) return;
            const added = [...new Set(found)].filter((kind) => !supervised.has(kind) && !givenUp.has(kind));
            for (const kind of added) {
              supervised.add(kind);
              start(kind, 0);
            }
            if (added.length) log(`the settings now configure ${added.join(", ")}: supervising ${added.length > 1 ? "them" : "it"} too`);
          })
          .catch((error: Error) => log(`could not look for new worker kinds: ${error.message}`))
          .finally(() => (looking = false));
      }, LOOK_MS).unref()
    : undefined;
  const halt = () => {
    for (const t of timers) clearTimeout(t);
    timers.clear();
    clearInterval(look);
  };
  const stop = () => {
    if (!stopping) void exits().then(() => finish("stopped"));
    stopping = true;
    halt();
    for (const c of children.values()) c.kill("SIGTERM");
  };
  const drain = (why: string) => {
    if (stopping) return;
    stopping = true;
    halt();
    log(`${why}: no new work is taken; waiting for the work in flight to finish (Ctrl-C again to stop at once)`);
    // a worker whose channel is gone already drains (it saw the channel close); one that cannot be asked is stopped
    for (const c of children.values()) if (c.connected) c.send("drain", (error) => error && c.kill("SIGTERM"));
    void exits().then(() => finish("stopped"));
  };
  let interrupts = 0;
  const onInterrupt = () => (interrupts++ ? stop() : drain("interrupted"));
  // an `up` that `guild-bus mcp` started sends itself SIGHUP when that server goes (src/cli/worker.ts)
  const onHangup = () => drain(process.send ? "the guild-bus mcp that started it ended" : "SIGHUP (terminal closed)");
  const onPipeError = (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") drain("output closed"); // nobody reads the log any more: nothing to print it to either
  };
  process.on("SIGINT", onInterrupt);
  process.on("SIGHUP", onHangup);
  process.once("SIGTERM", stop);
  process.stdout.on("error", onPipeError);
  process.stderr.on("error", onPipeError);
  // only now, with the handlers on: a SIGTERM sent once this line is read must stop the workers, not kill up alone
  for (const kind of kinds) start(kind, 0);
  log(`supervising: ${kinds.join(", ")} (Ctrl-C to stop)`);
  const how = await finished;
  process.off("SIGINT", onInterrupt);
  process.off("SIGHUP", onHangup);
  process.off("SIGTERM", stop);
  return how; // the pipe error listeners stay: a write after the end must not crash on a closed pipe either
}
