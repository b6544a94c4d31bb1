// Claims avoid duplicate work only; correctness comes from first-writer-wins delivery and fencing.
import { lstatSync, mkdirSync, readdirSync, statSync, utimesSync } from "node:fs";
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
}

/** Try to claim `name` inside claimsDir; null when someone else holds it. Never throws for a held lock. */
export async function tryClaim(claimsDir: string, name: string, options: ClaimOptions = {}): Promise<Claim | null> {
  mkdirSync(claimsDir, { recursive: true });
  // a linked .claims/ would put our lock (and its utimes) elsewhere (SPEC §2)
  if (lstatSync(claimsDir).isSymbolicLink()) throw new PathSafetyError(`symlink refused inside .guild: ${claimsDir}`);
  const target = path.join(claimsDir, name);
  const controller = new AbortController();
  const staleMs = options.staleMs ?? 30_000;
  setAsideForeignLock(`${target}.lock`);
  unskewLock(`${target}.lock`, staleMs);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      lockfilePath: `${target}.lock`,
      stale: staleMs,
      update: options.updateMs ?? Math.max(1000, Math.floor(staleMs / 3)),
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
 * A lock dated further in the future than a live holder could date it (clock skew, a touched directory) would never
 * turn stale: date it now instead, so it turns stale after staleMs unless its holder is alive and refreshes it.
 */
function unskewLock(lockDir: string, staleMs: number): void {
  try {
    const now = Date.now();
    if (statSync(lockDir).mtimeMs > now + staleMs) utimesSync(lockDir, now / 1000, now / 1000);
  } catch {
    // no lock, or it went away meanwhile
  }
}
