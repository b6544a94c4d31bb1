// Parsed gate files, reused while the file on disk is unchanged. Packets, results, verdicts and the other round files
// are immutable once delivered, and parsing them again on every step of every gate (the packets' YAML above all) was
// most of a busy worker's time. A file that changes in any way (inode, size, mtime, ctime) is parsed again.
import type { Stats } from "node:fs";
import path from "node:path";
import { deepFreeze } from "../core/memo.js";

// several entries a gate (its round files, their hashes, scrubbed results): room for a burst of ~1,000 open gates
const MAX_ENTRIES = 16_384;
// and at most this many bytes of the files whose parsed values hold their text (packets carry the artifact): a
// long-lived worker's memory must not grow with the history of large artifacts it saw (16,384 packets of 1 MB each)
const MAX_BYTES = 128 * 1024 * 1024;
// Evicted by second chance (CLOCK): a hit only marks its entry, so a read of a gate with hundreds of files does not
// move hundreds of map entries; eviction skips (and re-queues) the marked ones.
const cache = new Map<string, { stamp: string; value: unknown; used: boolean; bytes: number }>();
let cachedBytes = 0;

/** A file's version as this cache tells them apart: any change of inode, size, mtime or ctime is a new one. */
export const fileVersion = (st: Stats): string => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

/** The file size a version names (0 for a version of another form). */
const sizeOf = (stamp: string): number => Number(stamp.split(":")[1]) || 0;

/**
 * parse() of this file, or the value it gave while the file had this stat (or version); frozen, since callers share
 * it. Only values `keep` accepts are remembered: a read that failed (EMFILE, EIO, a network filesystem) is tried
 * again next time. `holdsText: false` for a value that keeps nothing of the file's size (its hash).
 */
export function cachedParse<T>(file: string, st: Stats | string, parse: () => T, keep: (value: T) => boolean, holdsText = true): T {
  const stamp = typeof st === "string" ? st : fileVersion(st);
  const hit = cache.get(file);
  if (hit?.stamp === stamp) {
    hit.used = true;
    return hit.value as T;
  }
  const value = deepFreeze(parse());
  if (!keep(value)) return value;
  if (cache.has(file))
    removeEntry(file); // a new version goes to the back
  else indexFile(file);
  const bytes = holdsText ? (typeof st === "string" ? sizeOf(st) : st.size) : 0;
  cache.set(file, { stamp, value, used: false, bytes });
  cachedBytes += bytes;
  while (cache.size > MAX_ENTRIES || (cachedBytes > MAX_BYTES && cache.size > 1)) evictOne();
  return value;
}

/** Forget every file under `dir` (a run a worker saw end: it is not read again, so it keeps nothing of it). */
export function forgetParsedUnder(dir: string): void {
  const node = dirs.get(dir);
  if (!node) return;
  for (const file of [...node.files]) drop(file);
  for (const child of [...node.children]) forgetParsedUnder(child);
}

/**
 * The cached files by directory, as a tree of the directories that hold them: forgetting an ended run visits that
 * run's directories only (a walk of every key for each run that ended was 8% of a busy broker, bench/README.md).
 */
interface DirNode {
  files: Set<string>;
  children: Set<string>;
}
const dirs = new Map<string, DirNode>();

function indexFile(file: string): void {
  const dir = path.dirname(file);
  nodeOf(dir).files.add(file);
  // link each ancestor to the directory below it, up to the first that already was
  for (let child = dir, parent = path.dirname(dir); parent !== child; child = parent, parent = path.dirname(parent)) {
    const node = nodeOf(parent);
    if (node.children.has(child)) break;
    node.children.add(child);
  }
}

function nodeOf(dir: string): DirNode {
  let node = dirs.get(dir);
  if (!node) dirs.set(dir, (node = { files: new Set(), children: new Set() }));
  return node;
}

/** Takes `file` out of the tree, and every directory it leaves empty, so the tree never grows with history. */
function unindexFile(file: string): void {
  let dir = path.dirname(file);
  dirs.get(dir)?.files.delete(file);
  for (;;) {
    const node = dirs.get(dir);
    if (!node || node.files.size || node.children.size) return;
    dirs.delete(dir);
    const parent = path.dirname(dir);
    if (parent === dir) return;
    dirs.get(parent)?.children.delete(dir);
    dir = parent;
  }
}

function removeEntry(file: string): void {
  cachedBytes -= cache.get(file)?.bytes ?? 0;
  cache.delete(file);
}

function drop(file: string): void {
  removeEntry(file);
  unindexFile(file);
}

function evictOne(): void {
  for (const [file, entry] of cache) {
    if (!entry.used) return drop(file);
    entry.used = false; // used since it was last passed: a second chance at the back
    cache.delete(file);
    cache.set(file, entry);
  }
}
