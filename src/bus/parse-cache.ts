// Parsed gate files, reused while the file on disk is unchanged. Packets, results, verdicts and the other round files
// are immutable once delivered, and parsing them again on every step of every gate (the packets' YAML above all) was
// most of a busy worker's time. A file that changes in any way (inode, size, mtime, ctime) is parsed again.
import type { Stats } from "node:fs";

// several entries a gate (its round files, their hashes, scrubbed results): room for a burst of ~1,000 open gates
const MAX_ENTRIES = 16_384;
const cache = new Map<string, { stamp: string; value: unknown }>();

/**
 * parse() of this file, or the value it gave while the file had this stat; frozen, since callers share it. Only values
 * `keep` accepts are remembered: a read that failed (EMFILE, EIO, a network filesystem) is tried again next time.
 */
export function cachedParse<T>(file: string, st: Stats, parse: () => T, keep: (value: T) => boolean): T {
  const stamp = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  const hit = cache.get(file);
  if (hit?.stamp === stamp) {
    cache.delete(file); // most recently used last
    cache.set(file, hit);
    return hit.value as T;
  }
  const value = deepFreeze(parse());
  if (!keep(value)) return value;
  cache.set(file, { stamp, value });
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
