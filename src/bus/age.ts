// How long a file has been as it is now, for grace periods and staleness (SPEC §5). An mtime is only a claim: one in
// the future (clock skew, a touched file) counts from when this process first saw the file, so it still ages.
const firstSeen = new Map<string, number>(); // on the monotonic clock: a wall clock stepped back must not stop ageing
const MAX_ENTRIES = 10_000;

/**
 * Age in ms of the version of `file` seen with this mtime (and size, when known): since its mtime by the wall clock
 * (`nowMs`), or since this process first saw it by the monotonic clock (`tickMs`), whichever is longer.
 */
export function ageMs(file: string, version: { mtimeMs: number; size?: number }, nowMs = Date.now(), tickMs = performance.now()): number {
  const { mtimeMs } = version;
  const key = `${file}\u0000${version.size ?? ""}\u0000${mtimeMs}`;
  let seen = firstSeen.get(key);
  if (seen === undefined) {
    seen = tickMs;
    firstSeen.set(key, seen);
    if (firstSeen.size > MAX_ENTRIES) firstSeen.delete(firstSeen.keys().next().value!);
  }
  return Math.max(0, nowMs - mtimeMs, tickMs - seen);
}
