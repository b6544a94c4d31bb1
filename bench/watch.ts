// Event-driven waiting for the bench: a file's arrival is noticed through fs.watch on its directory (no spin that
// would take a core from the workers); a slow level check covers a directory that did not exist yet.
import { existsSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";

const SAFETY_CHECK_MS = 250;

/** Resolves with performance.now() when `file` exists. */
export function waitForFile(file: string, timeoutMs = 30_000): Promise<number> {
  if (existsSync(file)) return Promise.resolve(performance.now());
  return new Promise((resolve, reject) => {
    let watcher: FSWatcher | null = null;
    const done = (error?: Error) => {
      watcher?.close();
      clearInterval(safety);
      clearTimeout(deadline);
      if (error) reject(error);
      else resolve(performance.now());
    };
    const check = () => {
      if (existsSync(file)) done();
    };
    const safety = setInterval(() => {
      if (!watcher) watcher = tryWatch(path.dirname(file), path.basename(file), check);
      check();
    }, SAFETY_CHECK_MS);
    const deadline = setTimeout(() => done(new Error(`timed out waiting for ${file}`)), timeoutMs);
    watcher = tryWatch(path.dirname(file), path.basename(file), check);
    check();
  });
}

/** fs.watch on `dir`, calling `onName` for events naming `name` (or naming nothing); null when the directory is missing. */
export function tryWatch(dir: string, name: string | null, onName: (name: string | null) => void): FSWatcher | null {
  try {
    return watch(dir, (_event, changed) => {
      const n = changed === null ? null : String(changed);
      if (name === null || n === null || n === name) onName(n);
    });
  } catch {
    return null;
  }
}
