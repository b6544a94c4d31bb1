// Background work (a large finished-runs log, the listing of .guild/runs, the history sweep) gives way to a round in
// flight, and still moves when the worker is never idle (SPEC §18).
import { describe, expect, it } from "vitest";
import { SLICE_MS, TimeSlicer } from "../../src/bus/time-slicer.js";

describe("time slices of background work", () => {
  it("a pause waits while the worker is in the middle of a round, and ends once it is not", async () => {
    let looks = 0;
    const slicer = new TimeSlicer(() => ++looks <= 3, 600_000);
    await slicer.pause();
    expect(looks).toBe(4); // three busy looks, then the idle one that let the slice go on
  });

  it("a worker that is never idle still lets the background work move, one slice per longest wait", async () => {
    let looks = 0;
    const slicer = new TimeSlicer(() => ++looks > 0, 5);
    await slicer.pause();
    await slicer.pause();
    expect(looks).toBeGreaterThanOrEqual(2);
  });

  it("a slice is due once it has run its time", async () => {
    const slicer = new TimeSlicer();
    await slicer.pause();
    const start = performance.now();
    while (performance.now() - start < SLICE_MS * 2);
    expect(slicer.due()).toBe(true);
  });
});
