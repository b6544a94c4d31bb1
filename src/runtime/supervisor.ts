// `guild-bus up`: one child process per worker kind, kept alive until SIGINT/SIGTERM (SPEC §18).
import { type ChildProcess, spawn } from "node:child_process";

/** A worker that exits sooner than this after it started is failing to start, not dying after work. */
const QUICK_EXIT_MS = 5_000;
/** This many quick exits in a row and the worker is given up on (with growing delays between the tries). */
const MAX_QUICK_EXITS = 5;
const RESTART_DELAY_MS = 500;

/**
 * Keep one child per kind alive until SIGINT/SIGTERM; then stop them all and wait. A worker that keeps exiting right
 * after it starts is restarted after 0.5, 1, 2, 4 s and then left down, with the reason logged, while the others
 * carry on; "all-failed" when none is left.
 */
export async function supervise(kinds: string[], argvOf: (kind: string) => string[]): Promise<"stopped" | "all-failed"> {
  const log = (m: string) => process.stderr.write(`[up] ${m}\n`);
  const children = new Map<string, ChildProcess>();
  const timers = new Set<NodeJS.Timeout>();
  const supervised = new Set(kinds);
  let stopping = false;
  let finish!: (how: "stopped" | "all-failed") => void;
  const finished = new Promise<"stopped" | "all-failed">((resolve) => (finish = resolve));
  const start = (kind: string, quickExits: number) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, argvOf(kind), { stdio: ["ignore", "inherit", "inherit"] });
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
          `${kind} worker exited (${how}) ${quick} times in a row within ${QUICK_EXIT_MS / 1000} s of starting; ` +
            `not restarting it (its error is above); ${rest}`,
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
