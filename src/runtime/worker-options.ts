// Options every worker process takes, and the logger they share.
import { Layout, wakes } from "../bus/layout.js";
import { type GateRef, type GateStatus, WorkerRuntime, type WorkerSpec } from "./reconciler.js";
import { type BusContext, contextToAct, loadContext } from "../bus/context.js";
import { fileStamp } from "../bus/file-stamp.js";

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

/**
 * Settings are reloaded once per reconcile pass, and at once when the file changed, so edits take effect without a
 * restart. A read the system failed (EIO, EMFILE…) keeps the settings read before; with none read yet, gates wait
 * (ReadFault) rather than run on the defaults — another reviewer, cap or policy than the project chose.
 */
export class ContextHolder {
  private last: BusContext | undefined;
  private reported = "";
  /** settings.json as it was when last read. */
  private stamp = "";
  constructor(
    readonly layout: Layout,
    private readonly log: (m: string) => void,
  ) {
    this.reload();
  }
  reload(): BusContext {
    this.stamp = fileStamp(this.layout.settings);
    const loaded = loadContext(this.layout);
    const keep = loaded.fault !== undefined && this.last !== undefined && this.last.fault === undefined;
    const problems = keep ? `${loaded.fault}: keeping the settings read before` : loaded.settingsProblems.join("\n");
    if (problems && problems !== this.reported) this.log(problems);
    this.reported = problems;
    if (!keep) this.last = loaded;
    return this.current;
  }
  get current(): BusContext {
    return this.last!; // set by the constructor's reload
  }
  /**
   * The context to act with: never defaults that stand in for settings the system failed to read, and never settings
   * older than the file (a request made just after an edit is planned under the edit, not the pass before it).
   */
  forWork(): BusContext {
    if (fileStamp(this.layout.settings) !== this.stamp) this.reload();
    return contextToAct(this.current);
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
    handleGate: (ref, signal) => handle(holder.forWork(), ref, signal, log),
    wakesOn: (name, gone) => wakes(kind, name, gone),
    skipFinishedRuns: extra.janitor !== false, // a writer keeps the finished-runs log; a reader (the console) sees every run
    ...extra,
  });
}
