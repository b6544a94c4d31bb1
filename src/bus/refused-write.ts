// Writes the system refuses (a directory made unwritable, a read-only tree, a full disk or quota): unlike a system
// fault they do not pass by themselves, so a person must act; the writer keeps what it could not write and tries again.
import { accessSync, constants, statfsSync } from "node:fs";
import path from "node:path";

const REFUSED = new Set(["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT"]);

/** Whether a failed call was a write the system refused (errno EACCES, EPERM, EROFS, ENOSPC, EDQUOT). */
export function isRefusedWrite(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && REFUSED.has(code);
}

/** What a person does about a refused write of errno `code`. */
export function refusedWriteFix(code: string): string {
  if (code === "EROFS") return "remount it read-write";
  if (code === "ENOSPC" || code === "EDQUOT") return "free disk space (or raise the quota)";
  return "make it writable by the user the workers run as (chmod/chown)";
}

/**
 * The first of `dirs` the system would refuse a write in, with why and what to fix; null when all take one. Free space
 * is read too: a full disk refuses a new file while access() still allows it.
 */
export function refusedWriteIn(dirs: string[], rel: (p: string) => string = (p) => p): string | null {
  for (const dir of dirs) {
    let code: string | undefined;
    try {
      accessSync(dir, constants.W_OK);
      const fs = statfsSync(dir);
      // root may use the reserved blocks; a filesystem that reports no blocks at all (some network ones) tells nothing
      const free = process.getuid?.() === 0 ? fs.bfree : fs.bavail;
      if (fs.blocks > 0 && free === 0) code = "ENOSPC";
    } catch (error) {
      code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") continue; // made when first written
    }
    if (code && REFUSED.has(code)) return `writes to ${rel(dir) || path.basename(dir)} are refused (${code}): ${refusedWriteFix(code)}`;
  }
  return null;
}
