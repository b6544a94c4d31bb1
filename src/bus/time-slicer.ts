// How long background work (a large finished-runs log, the listing of .guild/runs, the history sweep) shares a
// worker's event loop with the gates in flight: it runs in slices of a couple of milliseconds, and between two slices
// it waits while the worker is in the middle of a round, so a round never queues behind it for more than one slice
// (SPEC §18).
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";

/** The most a slice runs before it gives the event loop back. */
export const SLICE_MS = 2;
/** The longest a slice waits for the worker's round to end: under a load that never lets up, background work still
 * gets a sixth of the event loop (a first sweep of 100,000 runs then takes about a minute, not 15 s). */
export const MAX_DEFER_MS = 10;
/** How often a waiting slice looks again. */
const BUSY_LOOK_MS = 2;

export class TimeSlicer {
  private sliceStart = performance.now();

  /** `busy`: the worker is in the middle of a round (default: never, as for a log read with no worker around it). */
  constructor(
    private readonly busy: () => boolean = () => false,
    private readonly maxDeferMs = MAX_DEFER_MS,
  ) {}

  /** This slice has used its time: pause() before going on. */
  due(): boolean {
    return performance.now() - this.sliceStart >= SLICE_MS;
  }

  /** One turn of the event loop, then, while the worker is in the middle of a round, up to maxDeferMs more. */
  async pause(): Promise<void> {
    await nextTurn();
    const until = performance.now() + this.maxDeferMs;
    while (this.busy() && performance.now() < until) await sleep(BUSY_LOOK_MS);
    this.sliceStart = performance.now();
  }
}
