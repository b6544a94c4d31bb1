// A read the system failed (EIO, EMFILE, ESTALE…), not the file: the same read may work a moment later. A worker
// that meets one stops the step and tries again later (the reconciler's backoff), so a passing fault never becomes
// a decision on disk: an escalation, a restart, a file moved aside, or a paid review dispatched twice.
export class ReadFault extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReadFault";
  }
}
