// The gate table, kept current by the same level-triggered runtime the workers run on (native watch, reconcile
// passes, polling where watching is unreliable): each gate it hands us is re-read, and a row that changed is pushed
// to every open page. One small row per gate is all that is kept.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { BusContext } from "../bus/context.js";
import { gateEntryStats, listGates } from "../bus/gate-list.js";
import { hasValidOutcome } from "../bus/gate-reader.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import { workerRuntime } from "../runtime/worker-options.js";
import { type GateRow, gateRow, newestFirst } from "./rows.js";

export type BoardEvent = ({ kind: "row"; row: GateRow } | { kind: "gone"; run: string; gate: string }) & { seq: number };

/** Events kept for a page that reconnects or connects after it was rendered; an older page reloads instead. */
const REPLAY = 1000;

/** Gates read at start between two turns of the event loop (a page is answered within one slice). */
const FILL_SLICE = 10;

const key = (run: string, gate: string) => `${run}\u0000${gate}`;

/** How often what ended passes rest on is looked at (a stat of each file), as `status` reads it on every call. */
const PASS_RECHECK_MS = 2_000;

/** A file's identity and version, or that it is not there: what changes when the file is edited, replaced or removed. */
function fileStamp(file: string): string {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : "missing";
  } catch (error) {
    return `unreadable ${(error as NodeJS.ErrnoException).code ?? ""}`;
  }
}

/**
 * The gate's files an ended pass rests on (its result, seal, verdict, packet, outcome: gateEntryStats): an edit in
 * place moves none of the directory mtimes the runtime knows a finished gate by, yet the pass may no longer re-derive.
 */
function gateFilesStamp(dir: string): string {
  try {
    return gateEntryStats(dir)
      .map(([name, st]) => `${name}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`)
      .join("/");
  } catch (error) {
    return `unreadable ${(error as NodeJS.ErrnoException).code ?? ""}`;
  }
}

/** An ended pass's artifact and gate files, as one stamp. */
const passStamp = (artifact: string, dir: string) => `${fileStamp(artifact)}\n${gateFilesStamp(dir)}`;

export class GateBoard {
  private readonly rows = new Map<string, { row: GateRow; json: string }>();
  private readonly listeners = new Set<(e: BoardEvent) => void>();
  private readonly runtime: WorkerRuntime;
  private ctx: BusContext | null = null;
  private readonly recent: BoardEvent[] = [];
  /** Ended passes, their artifact and their gate's files as last read: an edit there (outside .guild/, or a file
   * rewritten in place, so no event nor a directory that moved) changes the row. */
  private readonly passes = new Map<string, { run: string; gate: string; file: string; dir: string; stamp: string }>();
  private passTimer: NodeJS.Timeout | undefined;
  /** The number of the last event: a page rendered at seq n asks for what came after n. */
  seq = 0;

  constructor(options: { root: string; poll: boolean | "auto"; reconcileMs?: number; fullScanMs?: number }) {
    this.runtime = workerRuntime(
      "ui",
      options,
      async (ctx, ref) => {
        this.ctx = ctx;
        this.refresh(ref.runId, ref.gate);
        return hasValidOutcome(ctx.layout, ref.runId, ref.gate) ? "finished" : "active";
      },
      { concurrency: 4, janitor: false },
    );
  }

  /** Gates read so far at start, of how many: the console answers at once and the table fills in. */
  readonly loading = { done: 0, total: 0 };
  private stopped = false;

  /** Follow changes, and read every gate once in the background, a slice per turn of the event loop. */
  async start(ctx: BusContext): Promise<void> {
    this.ctx = ctx;
    const gates = listGates(ctx.layout).gates;
    this.loading.total = gates.length;
    await this.runtime.start();
    this.passTimer = setInterval(() => {
      for (const p of [...this.passes.values()]) if (passStamp(p.file, p.dir) !== p.stamp) this.refresh(p.run, p.gate);
    }, PASS_RECHECK_MS);
    this.passTimer.unref();
    void (async () => {
      for (let i = 0; i < gates.length && !this.stopped; i += FILL_SLICE) {
        for (const { runId, gate } of gates.slice(i, i + FILL_SLICE)) this.refresh(runId, gate);
        this.loading.done = Math.min(gates.length, i + FILL_SLICE);
        await new Promise((r) => setImmediate(r));
      }
    })();
  }

  stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.passTimer);
    return this.runtime.stop();
  }

  /** Every row, newest request first. */
  list(): GateRow[] {
    return [...this.rows.values()].map((r) => r.row).sort(newestFirst);
  }

  /** The events after `seq`, or null when some of them are no longer kept. */
  since(seq: number): BoardEvent[] | null {
    if (seq >= this.seq) return [];
    if (seq < this.seq - this.recent.length) return null;
    return this.recent.slice(this.recent.length - (this.seq - seq));
  }

  subscribe(listener: (e: BoardEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-read one gate (after an action, or when the runtime hands it over); tell the pages when its row changed. */
  refresh(run: string, gate: string, notify = true): void {
    const ctx = this.ctx!;
    const k = key(run, gate);
    if (!existsSync(ctx.layout.gateDir(run, gate))) {
      if (this.rows.delete(k) && notify) this.emit({ kind: "gone", run, gate, seq: ++this.seq });
      return;
    }
    const dir = ctx.layout.gateDir(run, gate);
    // taken before the read (of an ended gate only: one lstat for the others): a file changed while the gate is read
    // is looked at again at the next recheck
    const before = existsSync(path.join(dir, "outcome.json")) ? gateFilesStamp(dir) : null;
    const { row, passedArtifact } = gateRow(ctx, run, gate);
    if (passedArtifact) {
      const stamp = passStamp(passedArtifact, dir);
      this.passes.set(k, { run, gate, file: passedArtifact, dir, stamp: stamp.endsWith(`\n${before}`) ? stamp : "" });
    } else this.passes.delete(k);
    const json = JSON.stringify(row);
    if (this.rows.get(k)?.json === json) return;
    this.rows.set(k, { row, json });
    if (notify) this.emit({ kind: "row", row, seq: ++this.seq });
  }

  private emit(e: BoardEvent): void {
    this.recent.push(e);
    if (this.recent.length > REPLAY) this.recent.shift();
    for (const listener of this.listeners) listener(e);
  }
}
