// Claims avoid duplicate work only; correctness comes from first-writer-wins delivery and fencing.
import { lstatSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { makeDirsBelow } from "./make-dirs.js";
import { PathSafetyError } from "./no-symlinks.js";
import { setAside } from "./set-aside.js";
import path from "node:path";
import lockfile from "proper-lockfile";

export interface Claim {
  /** Aborted when the lock is compromised: the guarded work must stop and deliver nothing. */
  signal: AbortSignal;
  release(): Promise<void>;
}

export interface ClaimOptions {
  staleMs?: number;
  updateMs?: number;
  log?: (message: string) => void;
  /** A monotonic clock in ms (tests inject one): how long a lock has been seen unchanged. */
  monotonicMs?: () => number;
}

/**
 * proper-lockfile judges staleness by comparing the lock's mtime with this process's wall clock, and its holder gives
 * up once its wall clock passed its last refresh by the stale time. Machines sharing a tree whose clocks differ by
 * more than the stale time would take each other's live claims, and a wall clock stepped forward would make a holder
 * abandon its paid dispatch: both rules are turned off (a stale time no clock reaches) and staleness is judged here.
 */
const NEVER_STALE_MS = Number.MAX_SAFE_INTEGER / 4;
const MIN_STALE_MS = 2000;

/** Each lock seen held: its version (inode and mtime, whatever clock dated it) and when this process first saw it. */
const seenHeld = new Map<string, { version: string; since: number }>();
const MAX_SEEN = 10_000;

/** Try to claim `name` inside claimsDir; null when someone else holds it. Never throws for a held lock. */
export async function tryClaim(claimsDir: string, name: string, options: ClaimOptions = {}): Promise<Claim | null> {
  makeDirsBelow(path.dirname(claimsDir), claimsDir); // never its gate's directory: one removed meanwhile stays removed
  // a linked .claims/ would put our lock (and its utimes) elsewhere (SPEC §2)
  if (lstatSync(claimsDir).isSymbolicLink()) throw new PathSafetyError(`symlink refused inside .guild: ${claimsDir}`);
  const target = path.join(claimsDir, name);
  const controller = new AbortController();
  // proper-lockfile's floors, which it no longer applies to a stale time it is not given: a holder re-dates its lock at
  // least twice within the stale time, so a live one is never seen unchanged for that long
  const staleMs = Math.max(options.staleMs ?? 30_000, MIN_STALE_MS);
  const updateMs = Math.max(Math.min(options.updateMs ?? Math.floor(staleMs / 3), staleMs / 2), 1000);
  setAsideForeignLock(`${target}.lock`);
  removeIfStale(`${target}.lock`, staleMs, options.monotonicMs ?? (() => performance.now()));
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      lockfilePath: `${target}.lock`,
      stale: NEVER_STALE_MS,
      update: updateMs,
      retries: 0,
      onCompromised: (error: Error) => {
        options.log?.(`claim ${name} compromised: ${error.message}; abandoning the guarded work`);
        controller.abort(error);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOCKED") return null;
    throw error;
  }
  return {
    signal: controller.signal,
    release: async () => {
      if (controller.signal.aborted) return;
      try {
        await release();
      } catch {
        // already released or compromised
      }
    },
  };
}

/**
 * A lock is an empty directory (proper-lockfile's mkdir). Anything else at its name — a file, a symlink, a directory
 * with something in it — is no holder's, yet it could never be taken over (removing a stale lock is an rmdir): it is
 * moved aside, under a name that says why, so the round is not held for ever.
 */
function setAsideForeignLock(lockDir: string): void {
  const notALock = (file: string) => {
    const st = lstatSync(file, { throwIfNoEntry: false });
    return st !== undefined && !(st.isDirectory() && readdirSync(file).length === 0);
  };
  try {
    if (notALock(lockDir)) setAside(lockDir, "not-a-lock", notALock);
  } catch {
    // gone meanwhile, or taken by a holder: the lock attempt says which
  }
}

/**
 * A lock is stale once this process has seen it unchanged (same inode, same mtime) for staleMs of its own monotonic
 * clock: a live holder re-dates it every updateMs, by whatever clock its machine keeps. Comparing the mtime with this
 * clock instead took live claims of a machine whose clock differs by more than staleMs. A lock seen for the first time
 * is held, however old it looks. Removing it races with its holder's refresh as proper-lockfile's own removal did: a
 * holder that finds its lock gone abandons the guarded work, and the attempt file keeps a paid dispatch single.
 */
function removeIfStale(lockDir: string, staleMs: number, now: () => number): void {
  let st;
  try {
    st = statSync(lockDir, { throwIfNoEntry: false });
  } catch {
    return; // unreadable: the lock attempt says what it is
  }
  if (st === undefined) {
    seenHeld.delete(lockDir);
    return;
  }
  const version = `${st.ino}:${st.mtimeMs}`;
  const seen = seenHeld.get(lockDir);
  if (seen === undefined || seen.version !== version) {
    seenHeld.delete(lockDir); // re-inserted last: the oldest entry is the one dropped past the bound
    seenHeld.set(lockDir, { version, since: now() });
    if (seenHeld.size > MAX_SEEN) seenHeld.delete(seenHeld.keys().next().value!);
    return;
  }
  if (now() - seen.since < staleMs) return;
  seenHeld.delete(lockDir);
  try {
    rmdirSync(lockDir);
  } catch {
    // taken over or released meanwhile: the lock attempt says which
  }
}
