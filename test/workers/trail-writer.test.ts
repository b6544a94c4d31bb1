// trail.md while machines drive a gate may lag by up to TRAIL_PACE_MS, its last state always written; an outcome is
// in the trail before the step that wrote it returns, and no late write of an older state ever replaces it.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { stepGate } from "../../src/workers/broker.js";
import { TRAIL_PACE_MS, TrailWriter } from "../../src/workers/trail-writer.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

afterEach(() => vi.useRealTimers());

const VERIFYING = /result delivered; waiting for the verifier/;

async function paced(run: string) {
  const g = await gateWithPacket(run);
  const trail = () => readFileSync(g.file("trail.md"), "utf8");
  vi.useFakeTimers({ toFake: ["performance", "setTimeout", "clearTimeout"] });
  const trails = new TrailWriter();
  const step = () => stepGate(loadContext(g.layout), run, GATE, { trails });
  await step(); // this writer's first look at the gate
  g.dropResult();
  expect((await step()).decision.state).toBe("verifying");
  return { ...g, trail, step };
}

describe("trail.md while machines drive the gate", () => {
  it("is written at most every TRAIL_PACE_MS, and its last state is written when the pace allows", async () => {
    const { trail } = await paced("tp1");
    expect(trail()).not.toMatch(VERIFYING); // within the pace of the previous write
    vi.advanceTimersByTime(TRAIL_PACE_MS);
    await vi.waitFor(() => expect(trail()).toMatch(VERIFYING), { timeout: 30_000 });
  });

  it("shows the outcome when the step that wrote it returns, and no late write of an older state replaces it", async () => {
    const { layout, trail, step } = await paced("tp2");
    await verifyGate(loadContext(layout), "tp2", GATE, () => undefined);
    const ended = await step();
    expect(ended.delivered.map((d) => d.name)).toEqual(["outcome.json"]);
    expect(trail()).toMatch(/status: satisfied/);
    vi.advanceTimersByTime(TRAIL_PACE_MS * 4);
    await new Promise((done) => setImmediate(done));
    expect(trail()).toMatch(/status: satisfied/);
    expect(trail()).not.toMatch(VERIFYING);
  });
});

describe("trail.md with two brokers on one gate", () => {
  it("keeps the final trail another broker wrote with its outcome over this broker's paced write", async () => {
    const { layout, trail } = await paced("tp3");
    await verifyGate(loadContext(layout), "tp3", GATE, () => undefined);
    const other = await stepGate(loadContext(layout), "tp3", GATE, { trails: new TrailWriter() });
    expect(other.delivered.map((d) => d.name)).toEqual(["outcome.json"]);
    vi.advanceTimersByTime(TRAIL_PACE_MS * 4);
    await new Promise((done) => setImmediate(done));
    expect(trail()).toMatch(/status: satisfied/);
  });
});
