// Options every worker process takes, and the logger they share.
import { Layout } from "../layout.js";
import { type BusContext, loadContext } from "./context.js";

export interface WorkerOptions {
  root: string;
  poll: boolean | "auto";
  reconcileMs?: number;
  fullScanMs?: number;
  providers?: string[];
  claimStaleMs?: number;
  concurrency?: number;
}

export function workerLogger(kind: string): (message: string) => void {
  return (message) => process.stderr.write(`${new Date().toISOString()} [${kind} ${process.pid}] ${message}\n`);
}

/** Settings are reloaded once per reconcile pass, so edits take effect without a restart. */
export class ContextHolder {
  current: BusContext;
  private reported = "";
  constructor(readonly layout: Layout, private readonly log: (m: string) => void) {
    this.current = this.reload();
  }
  reload(): BusContext {
    this.current = loadContext(this.layout);
    const problems = this.current.settingsProblems.join("\n");
    if (problems && problems !== this.reported) this.log(problems);
    this.reported = problems;
    return this.current;
  }
}
