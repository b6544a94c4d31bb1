import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

const made: string[] = [];

/** A fresh temporary project root, removed after the test. */
export function tempRoot(prefix = "guild-bus-"): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(() => {
  // a worker still finishing its work (a paid review drains) may add a file while the tree is removed: try again
  while (made.length) rmSync(made.pop()!, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});
