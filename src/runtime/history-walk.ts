// How a worker covers a large history without stalling: at start it loads .guild/finished-runs.log and lists
// .guild/runs in batches in the background (a run the log does not list is scanned at once, a listed one only named),
// then a paced sweep verifies every known finished run against its files, fast once after start, slowly after that
// (SPEC §18). All of it runs in short time slices that wait while the worker is in the middle of a round, so rounds in
// flight are never held up for more than one slice.
import { opendir } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { isRunId } from "../spec/ids.js";
import { textOf } from "../core/text-of.js";
import type { FinishedRuns } from "../bus/finished-runs.js";
import { TimeSlicer } from "../bus/time-slicer.js";

/** Names read from .guild/runs per directory read. */
const NAME_BATCH = 512;
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
  /** The worker is in the middle of a round: the walk waits (a little) before its next slice. */
  busy(): boolean;
  isKnown(runId: string): boolean;
  /** A run the log lists as finished: known from now on, verified by the sweep. */
  skip(runId: string): void;
  scan(runId: string, isDir?: boolean): void;
  /** Look at a finished run again: cheaply when the log says what its directories' mtimes were, else a scan. */
  verify(runId: string): void;
  /** Known runs with no active gate, read as the sweep goes (runs added meanwhile may come too): what it verifies. */
  finishedRuns(): Iterator<string>;
  /** How many there are now: the sweep's pace (a history restored while the worker runs speeds it up at once). */
  finishedCount(): number;
  /** After each batch: append what the scans sealed or reopened, and start the gates they activated. */
  afterBatch(): void;
  log(message: string): void;
}

export class HistoryWalk {
  private listing: Promise<void> | null = null;
  private listAgain = false;
  /** The sweep's round over the finished runs, read as it goes (never copied: it may be 100,000 names long). */
  private sweepRuns: Iterator<string>;
  private swept = 0;
  private firstSweep = true;
  private readonly ended = new AbortController();
  private readonly slicer: TimeSlicer;
  private readonly startedAt = performance.now();

  constructor(private readonly host: WalkHost) {
    this.slicer = new TimeSlicer(() => host.busy());
    this.sweepRuns = host.finishedRuns();
  }

  /** The first listing, from start() until it is done. */
  private starting: Promise<void> | null = null;

  /** Resolves once the listing of .guild/runs under way (the first included) is done; at once when none is. */
  listed(): Promise<void> {
    return this.listing ?? this.starting ?? Promise.resolve();
  }

  /** Load the log, list every run, then sweep; resolves when the listing is done (the sweep goes on). */
  start(): Promise<void> {
    this.starting = this.begin().finally(() => (this.starting = null));
    return this.starting;
  }

  private async begin(): Promise<void> {
    // a log that fails to load leaves what was read of it: the listing scans every other run, as without one
    const reopened = await this.host.finishedLog.load(this.slicer).catch((error: Error) => {
      this.host.log(`finished-runs log not read on: ${error.message}`);
      return [];
    });
    // a request made while no worker of this kind watched wrote `-<run>`: its gate is found now, not when the
    // listing of the whole history reaches it
    await this.scanAll(reopened);
    await this.list();
    if (!this.host.stopped()) void this.sweep();
  }

  /** Scan the runs in slices; what a slice activates is started before the next one. */
  private async scanAll(runIds: string[]): Promise<void> {
    try {
      for (const runId of runIds) {
        if (this.host.stopped()) return;
        if (this.slicer.due()) await this.yield();
        this.host.scan(runId);
      }
    } catch (error) {
      this.host.log(`scanning the runs the log says were reopened failed (${(error as Error).message}); the listing scans them`);
    }
    this.host.afterBatch();
  }

  stop(): void {
    this.ended.abort();
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
    try {
      for await (const entry of await opendir(host.runsDir, { bufferSize: NAME_BATCH })) {
        if (host.stopped()) break;
        if (this.slicer.due()) await this.yield();
        if (!isRunId(entry.name) || host.isKnown(entry.name)) continue;
        if (host.finishedLog.isSealed(entry.name)) host.skip(entry.name);
        else host.scan(entry.name, entry.isDirectory());
      }
    } catch (error) {
      host.log(`listing ${host.runsDir} failed (${(error as Error).message}); the next pass lists it again`);
    }
    host.afterBatch();
  }

  /** What the slice found is started first; the next slice waits for it (a little). */
  private async yield(): Promise<void> {
    this.host.afterBatch();
    await this.slicer.pause();
  }

  /** The sweep, until the worker stops: a step, then its pace, then a wait while the worker is in the middle of a round. */
  private async sweep(): Promise<void> {
    while (!this.host.stopped()) {
      let tick = FIRST_SWEEP_TICK_MS;
      try {
        tick = this.sweepStep();
      } catch (error) {
        this.host.log(`history sweep step failed (${(error as Error).stack ?? textOf(error)}); the sweep goes on`);
      }
      try {
        await sleep(tick, undefined, { signal: this.ended.signal });
      } catch {
        return; // stopped
      }
      await this.slicer.pause();
    }
  }

  /** Verify the next SWEEP_SLICE finished runs against their files (a round over all of them starts anew); the pace. */
  private sweepStep(): number {
    const { host } = this;
    for (let n = 0; n < SWEEP_SLICE; n++) {
      const next = this.sweepRuns.next();
      if (next.done) {
        this.sweepDone();
        break;
      }
      host.verify(next.value);
      this.swept++;
    }
    host.afterBatch();
    const steps = Math.ceil(host.finishedCount() / SWEEP_SLICE) || 1;
    return this.firstSweep ? FIRST_SWEEP_TICK_MS : Math.max(host.fullScanMs / SWEEP_STEPS_PER_INTERVAL, host.fullScanMs / steps);
  }

  /** A round over every finished run is done: the next one starts. */
  private sweepDone(): void {
    const ms = Math.round(performance.now() - this.startedAt);
    if (this.firstSweep) this.host.log(`every run looked at since start (${this.swept} finished, ${ms} ms)`);
    this.firstSweep = false;
    this.swept = 0;
    this.sweepRuns = this.host.finishedRuns();
  }
}
