// Options every worker process takes, and the logger they share.
import { Layout, wakes } from "../bus/layout.js";
import { type GateRef, type GateStatus, WorkerRuntime, type WorkerSpec } from "./reconciler.js";
import { type BusContext, loadContext } from "../bus/context.js";

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
  constructor(
    readonly layout: Layout,
    private readonly log: (m: string) => void,
  ) {
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

/**
 * Gates the broker and the verifier handle at once: while one gate's delivery waits for fsync on the thread pool,
 * others are read and planned. Per gate the reconciler still runs one handler at a time.
 */
export const GATES_IN_FLIGHT = 16;

/** Everything a worker process shares: its logger, layout, settings reloaded per pass, and the reconciler. */
export function workerRuntime(
  kind: string,
  options: WorkerOptions,
  handle: (ctx: BusContext, ref: GateRef, signal: AbortSignal, log: (m: string) => void) => Promise<GateStatus>,
  extra: Partial<Pick<WorkerSpec, "concurrency" | "janitor" | "shareWork">> = {},
): WorkerRuntime {
  const log = workerLogger(kind);
  const layout = new Layout(options.root);
  const holder = new ContextHolder(layout, log);
  return new WorkerRuntime({
    kind,
    layout,
    poll: options.poll,
    reconcileMs: options.reconcileMs,
    fullScanMs: options.fullScanMs,
    log,
    beforePass: () => holder.reload(),
    handleGate: (ref, signal) => handle(holder.current, ref, signal, log),
    wakesOn: (name, gone) => wakes(kind, name, gone),
    skipFinishedRuns: extra.janitor !== false, // a writer keeps the finished-runs log; a reader (the console) sees every run
    ...extra,
  });
}
