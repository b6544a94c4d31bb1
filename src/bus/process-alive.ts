// Whether a process of this machine still runs: how a lock or a peer file left by a worker that died (kill -9) is
// told from a live one's without waiting for it to turn stale.

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, another user's
  }
}
