// Failures of the system rather than of a file (EIO, EMFILE, ESTALE…): the same call may work a moment later, so no
// worker decides anything on one (SPEC §5). A read throws ReadFault and its step is tried again later; a delivery
// that must not be lost (a paid answer, the record of a dispatch) is tried again at once, a few times.
import { setTimeout as delay } from "node:timers/promises";
import { ReadFault } from "../core/read-fault.js";

const SYSTEM_FAULTS = new Set([
  ...["EIO", "EMFILE", "ENFILE", "EAGAIN", "EBUSY", "EINTR", "ENOMEM", "ENOBUFS", "ETIMEDOUT", "ESTALE", "ENOLCK", "EDEADLK"],
  // network and FUSE filesystems (sshfs, CIFS, NFS)
  ...["ENOTCONN", "ECONNRESET", "ECONNABORTED", "EHOSTDOWN", "EHOSTUNREACH", "ENETDOWN", "ENETUNREACH", "EREMOTEIO"],
]);

/** Whether a failed call (an fs error, a ReadRefused, a spawn error: anything with an errno `code`) was the system's. */
export function isSystemFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && SYSTEM_FAULTS.has(code);
}

/** `{ fault: true }` for a system's failure, to spread into a record of why a read failed. */
export function faultFlag(error: unknown): { fault?: true } {
  return isSystemFault(error) ? { fault: true } : {};
}

/** A worker's read that the system failed becomes a ReadFault (its step is tried again later); the file's own
 * failure (missing, too large, not UTF-8…) is left to the caller. */
export function rethrowSystemFault(error: unknown): void {
  if (isSystemFault(error)) throw new ReadFault((error as Error).message);
}

/** The waits between tries of a call that a system fault failed: about five seconds in all. */
export const FAULT_RETRY_MS = [250, 1000, 4000];

/** `call`, tried again after each wait while it fails with a system fault; any other failure is thrown at once. */
export async function retryOnSystemFault<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const wait = FAULT_RETRY_MS[attempt];
      if (wait === undefined || !isSystemFault(error)) throw error;
      await delay(wait);
    }
  }
}
