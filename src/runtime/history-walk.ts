// How a worker covers a large history without stalling: at start it loads .guild/finished-runs.log and lists
// .guild/runs in batches in the background (a run the log does not list is scanned at once, a listed one only named),
// then a paced sweep verifies every known finished run against its files, fast once after start, slowly after that
// (SPEC §18). Each step yields to the event loop, so rounds in flight are never held up for long.
import { opendir } from "node:fs/promises";
import { setImmediate as yieldToEvents } from "node:timers/promises";
import { isRunId } from "../spec/ids.js";
import type { FinishedRuns } from "../bus/finished-runs.js";

/** Names read per batch from .guild/runs, and runs scanned (a real look at their files) between two yields. */
const NAME_BATCH = 512;
const SCAN_BATCH = 32;
/** Finished runs verified per sweep step (about 50 lstats: well under a millisecond between two turns of the loop). */
export const SWEEP_SLICE = 25;
/** Between two sweep steps during the first sweep after start: 100,000 runs in about 15 s. */
export const FIRST_SWEEP_TICK_MS = 3;
/** Afterwards at most this many steps per full-scan interval: 400 runs/s at the default 10 s. */
export const SWEEP_STEPS_PER_INTERVAL = 160;

export interface WalkHost {
  readonly runsDir: string;
  readonly finishedLog: FinishedRuns;
  /** After the first sweep, each finished run is verified again within max(fullScanMs, N / SWEEP_SLICE steps). */
  readonly fullScanMs: number;
  stopped(): boolean;
  isKnown(runId: string): boolean;
  /** A run the log lists as finished: known from now on, verified by the sweep. */
  skip(runId: string): void;
  scan(runId: string, isDir?: boolean): void;
  /** Look at a finished run again: cheaply when the log says what its directories' mtimes were, else a scan. */
  verify(runId: string): void;
  /** Known runs with no active gate: what the sweep verifies. */
  finishedRuns(): string[];
  /** After each batch: append what the scans sealed or reopened, and start the gates they activated. */
  afterBatch(): void;
  log(message: string): void;
}

export class HistoryWalk {
  private listing: Promise<void> | null = null;
  private listAgain = false;
  private sweepQueue: string[] = [];
  private sweepAt = 0;
  private firstSweep = true;
  private timer: NodeJS.Timeout | null = null;
  private readonly startedAt = Date.now();

  constructor(private readonly host: WalkHost) {}

  /** Load the log, list every run, then sweep; resolves when the listing is done (the sweep goes on). */
  async start(): Promise<void> {
    // a log that fails to load leaves what was read of it: the listing scans every other run, as without one
    await this.host.finishedLog.load().catch((error: Error) => this.host.log(`finished-runs log not read on: ${error.message}`));
    await this.list();
    if (!this.host.stopped()) this.sweepStep();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One pass over .guild/runs' names (a second request while one runs makes it go round once more). */
  list(): Promise<void> {
    if (this.listing) {
      this.listAgain = true;
      return this.listing;
    }
    this.listing = (async () => {
      do {
        this.listAgain = false;
        await this.listOnce();
      } while (this.listAgain && !this.host.stopped());
    })().finally(() => (this.listing = null));
    return this.listing;
  }

  private async listOnce(): Promise<void> {
    const { host } = this;
    let names = 0;
    let scans = 0;
    try {
      for await (const entry of await opendir(host.runsDir, { bufferSize: NAME_BATCH })) {
        if (host.stopped()) break;
        if (++names % NAME_BATCH === 0) await this.yield();
        if (!isRunId(entry.name) || host.isKnown(entry.name)) continue;
        if (host.finishedLog.isSealed(entry.name)) host.skip(entry.name);
        else {
          host.scan(entry.name, entry.isDirectory());
          if (++scans % SCAN_BATCH === 0) await this.yield();
        }
      }
    } catch (error) {
      host.log(`listing ${host.runsDir} failed (${(error as Error).message}); the next pass lists it again`);
    }
    host.afterBatch();
  }

  private async yield(): Promise<void> {
    this.host.afterBatch();
    await yieldToEvents();
  }

  /** Verify the next SWEEP_SLICE finished runs against their files; a round over all of them starts anew. */
  private sweepStep(): void {
    const { host } = this;
    if (host.stopped()) return;
    if (this.sweepAt >= this.sweepQueue.length) {
      if (this.firstSweep && this.sweepQueue.length) this.firstSweepDone();
      this.sweepQueue = host.finishedRuns();
      this.sweepAt = 0;
      if (this.firstSweep && !this.sweepQueue.length) this.firstSweepDone();
    }
    const end = Math.min(this.sweepAt + SWEEP_SLICE, this.sweepQueue.length);
    for (; this.sweepAt < end; this.sweepAt++) host.verify(this.sweepQueue[this.sweepAt]!);
    host.afterBatch();
    const steps = Math.ceil(this.sweepQueue.length / SWEEP_SLICE) || 1;
    const tick = Math.max(host.fullScanMs / SWEEP_STEPS_PER_INTERVAL, host.fullScanMs / steps);
    this.timer = setTimeout(() => this.sweepStep(), this.firstSweep ? FIRST_SWEEP_TICK_MS : tick);
  }

  private firstSweepDone(): void {
    this.firstSweep = false;
    this.host.log(`every run looked at since start (${this.sweepQueue.length} finished, ${Date.now() - this.startedAt} ms)`);
  }
}
