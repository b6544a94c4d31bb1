import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach } from "vitest";
import { killProcessesUnder } from "./leftovers.js";

const made: string[] = [];

/** A fresh temporary project root, removed after the test. */
export function tempRoot(prefix = "guild-bus-"): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Remove a tree a process may still write into as it ends (a worker draining, a compile cache flushed at exit). The
 * whole removal is tried again: rmSync's own retries (maxRetries) re-try only the rmdir of a directory it emptied once,
 * so one file written after that sweep failed every retry, ENOTEMPTY after all of them.
 */
export async function removeTree(dir: string, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (!["ENOTEMPTY", "EBUSY", "EPERM"].includes(code) || Date.now() > deadline) throw error;
      await sleep(100);
    }
  }
}

afterEach(async () => {
  // a worker still finishing its work (a paid review drains) may add a file while the tree is removed
  killProcessesUnder(made); // what the helpers' own stops left (afterEach hooks run last registered first)
  while (made.length) await removeTree(made.pop()!);
});
