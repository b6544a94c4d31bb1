// Event-driven waiting for the bench: a file's arrival is noticed through fs.watch on its directory (no spin that
// would take a core from the workers); a slow level check covers a directory that did not exist yet.
import { existsSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";

const SAFETY_CHECK_MS = 250;

/** Resolves with performance.now() when `file` exists. */
export async function waitForFile(file: string, timeoutMs = 30_000): Promise<number> {
  return (await waitForFirst([file], timeoutMs)).at;
}

/** Resolves with performance.now() and the file when the first of `files` exists (all in one directory). */
export function waitForFirst(files: string[], timeoutMs = 30_000): Promise<{ at: number; file: string }> {
  const found = () => files.find((f) => existsSync(f));
  const now = found();
  if (now) return Promise.resolve({ at: performance.now(), file: now });
  const dir = path.dirname(files[0]!);
  const names = new Set(files.map((f) => path.basename(f)));
  return new Promise((resolve, reject) => {
    let watcher: FSWatcher | null = null;
    const done = (error?: Error, file?: string) => {
      watcher?.close();
      clearInterval(safety);
      clearTimeout(deadline);
      if (error) reject(error);
      else resolve({ at: performance.now(), file: file! });
    };
    const check = (name: string | null) => {
      if (name !== null && !names.has(name)) return;
      const file = found();
      if (file) done(undefined, file);
    };
    const safety = setInterval(() => {
      if (!watcher) watcher = tryWatch(dir, null, check);
      check(null);
    }, SAFETY_CHECK_MS);
    const deadline = setTimeout(() => done(new Error(`timed out waiting for ${files.join(" or ")}`)), timeoutMs);
    watcher = tryWatch(dir, null, check);
    check(null);
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
