// Waiting, from a command, for something another process makes visible on disk (a lock, a presence file).
import type { ChildProcess } from "node:child_process";

/** Resolves once `seen()` holds or `ms` passed, looking every 50 ms; rejects with what `seen` throws. */
export function lookUntil(seen: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms; // monotonic: a wall clock stepped back must not stretch the wait
  return new Promise((resolve, reject) => {
    const look = () => {
      try {
        if (seen() || performance.now() > until) return resolve();
      } catch (error) {
        return reject(error as Error);
      }
      setTimeout(look, 50).unref(); // the children waited on keep the process running
    };
    look();
  });
}

export const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;
