// How long a file has been as it is now, for grace periods and staleness (SPEC §5). An mtime is only a claim: one in
// the future (clock skew, a touched file) counts from when this process first saw the file, so it still ages.
const firstSeen = new Map<string, number>();
const MAX_ENTRIES = 10_000;

/** Age in ms of a file version identified by `key` (path with size and mtime) whose mtime is `mtimeMs`. */
export function ageMs(key: string, mtimeMs: number, nowMs = Date.now()): number {
  let seen = firstSeen.get(key);
  if (seen === undefined) {
    seen = nowMs;
    firstSeen.set(key, seen);
    if (firstSeen.size > MAX_ENTRIES) firstSeen.delete(firstSeen.keys().next().value!);
  }
  return Math.max(0, nowMs - Math.min(mtimeMs, seen));
}
