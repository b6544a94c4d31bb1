// Options every worker process takes, and the logger they share.
import { Layout, wakes } from "../bus/layout.js";
import { type GateRef, type GateStatus, WorkerRuntime, type WorkerSpec } from "./reconciler.js";
import { type BusContext, contextToAct, loadContext } from "../bus/context.js";
import { fileStamp } from "../bus/file-stamp.js";
import { problemsInWords } from "../bus/settings-file.js";
import { ReadFault } from "../core/read-fault.js";
import { lineSafe } from "../core/terminal-safe.js";

export interface WorkerOptions {
  root: string;
  poll: boolean | "auto";
  reconcileMs?: number;
  fullScanMs?: number;
  providers?: string[];
  claimStaleMs?: number;
  concurrency?: number;
}

/** One line per message: a reason quoting a file or a reviewer cannot print a log line of its own. */
export function workerLogger(kind: string): (message: string) => void {
  return (message) => process.stderr.write(`${new Date().toISOString()} [${kind} ${process.pid}] ${lineSafe(message)}\n`);
}

/**
 * Settings are reloaded once per reconcile pass, and at once when the file changed, so edits take effect without a
 * restart. A read the system failed (EIO, EMFILE…), or a file that holds something not taken (empty or torn while an
 * editor saves it in place, not JSON, an invalid key, provider or reviewer name), keeps the settings read whole before;
 * with none read yet, a writer's gates wait (ReadFault) rather than run on what stands in for them: the defaults, or
 * part of the file — another reviewer, cap or policy than the project chose, fixed for good by the first packet.
 * A file that was read whole and is now gone is kept the same way for SETTINGS_GONE_GRACE_MS from when this worker first
 * saw it missing (an editor saving by rename leaves no file for a moment); past that, it was deleted: the defaults.
 */
/** How long a settings file that was read whole may be missing before a worker takes the defaults (SPEC §18). */
export const SETTINGS_GONE_GRACE_MS = 10_000;

export class ContextHolder {
  private last: BusContext | undefined;
  /** When this worker first saw settings.json missing (since it last saw one). */
  private missingSince: number | undefined;
  private reported = "";
  /** settings.json as it was when last read. */
  private stamp = "";
  constructor(
    readonly layout: Layout,
    private readonly log: (m: string) => void,
  ) {
    this.reload();
  }
  reload(now = performance.now()): BusContext {
    this.stamp = fileStamp(this.layout.settings);
    const loaded = loadContext(this.layout);
    const whole = (c: BusContext) => c.fault === undefined && !c.settingsIncomplete;
    this.missingSince = loaded.settingsMissing ? (this.missingSince ?? now) : undefined;
    const read = this.last !== undefined && whole(this.last) && !this.last.settingsMissing; // a file, read whole
    const gone = loaded.settingsMissing === true && read && now - this.missingSince! < SETTINGS_GONE_GRACE_MS;
    const keep = gone || (!whole(loaded) && this.last !== undefined && whole(this.last));
    const why = gone
      ? `settings.json is missing (an editor saving it?); defaults if still missing after ${SETTINGS_GONE_GRACE_MS / 1000} s`
      : (loaded.fault ?? `settings.json: ${problemsInWords(loaded.settingsProblems)}`);
    const deleted = loaded.settingsMissing === true && read && !gone;
    const problems = keep
      ? `${why}: keeping the settings read before`
      : deleted
        ? `settings.json has been missing for ${SETTINGS_GONE_GRACE_MS / 1000} s: taking the defaults`
        : loaded.settingsProblems.join("\n");
    if (problems && problems !== this.reported) for (const line of problems.split("\n")) this.log(line);
    this.reported = problems;
    if (!keep) this.last = loaded;
    return this.current;
  }
  get current(): BusContext {
    return this.last!; // set by the constructor's reload
  }
  /**
   * The context to act with: never defaults that stand in for settings the system failed to read, nor part of a file,
   * and never settings older than the file (a request made just after an edit is planned under the edit, not the pass
   * before it). A reader (the console) takes what there is: it decides nothing.
   */
  forWork(reader = false): BusContext {
    if (fileStamp(this.layout.settings) !== this.stamp) this.reload();
    const ctx = contextToAct(this.current);
    if (ctx.settingsIncomplete && !reader)
      throw new ReadFault(
        `settings.json cannot be taken whole (${problemsInWords(ctx.settingsProblems)}): nothing is decided until it is fixed`,
      );
    return ctx;
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
  extra: Partial<Pick<WorkerSpec, "concurrency" | "janitor" | "shareWork">> & {
    /** The body of this worker's presence file, from the settings read last (a reviewer's advertisement). */
    presence?: (ctx: BusContext) => string | null;
  } = {},
): WorkerRuntime {
  const { presence, ...rest } = extra;
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
    handleGate: (ref, signal) => handle(holder.forWork(extra.janitor === false), ref, signal, log),
    wakesOn: (name, gone) => wakes(kind, name, gone),
    skipFinishedRuns: extra.janitor !== false, // a writer keeps the finished-runs log; a reader (the console) sees every run
    ...(presence ? { presence: () => presence(holder.current) } : {}),
    ...rest,
  });
}
