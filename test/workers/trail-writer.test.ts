// trail.md while machines drive a gate may lag by up to TRAIL_PACE_MS, its last state always written; an outcome is
// in the trail before the step that wrote it returns, and no late write of an older state ever replaces it.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { stepGate } from "../../src/workers/broker.js";
import { TRAIL_GAP_MS, TRAIL_PACE_MS, TrailWriter } from "../../src/workers/trail-writer.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

afterEach(() => vi.useRealTimers());

const VERIFYING = /result delivered; waiting for the verifier/;

/** Waits on the real clock (vi.waitFor would move the fake one on). */
async function until(done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 30_000; !done();) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((next) => setImmediate(next));
  }
}

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

describe("trail.md of a gate removed while its write waits", () => {
  it("is not written, and no directory is made for it (a deleted run does not come back holding a trail)", async () => {
    const { layout } = await paced("tr1");
    const runDir = layout.runDir("tr1");
    rmSync(runDir, { recursive: true });
    vi.advanceTimersByTime(TRAIL_PACE_MS * 4);
    await new Promise((done) => setImmediate(done));
    await until(() => readdirSync(path.join(layout.guild, "tmp")).length === 0); // the paced write has come and gone
    expect(existsSync(runDir)).toBe(false);
  });
});

describe("trail.md of many gates moving at once", () => {
  it("paced writes of all gates are TRAIL_GAP_MS apart, each gate's last state still written; an outcome is not held back", async () => {
    const gates = await Promise.all(["tg1", "tg2", "tg3"].map(async (run) => ({ run, ...(await gateWithPacket(run)) })));
    vi.useFakeTimers({ toFake: ["performance", "setTimeout", "clearTimeout"] });
    const trails = new TrailWriter();
    const step = (g: (typeof gates)[number]) => stepGate(loadContext(g.layout), g.run, GATE, { trails });
    for (const g of gates) await step(g); // this writer's first look at each, written paced
    await vi.advanceTimersByTimeAsync(TRAIL_PACE_MS * 4); // each write done when its timer fires
    for (const g of gates) {
      g.dropResult();
      expect((await step(g)).decision.state).toBe("verifying");
    }
    const shows = () => gates.map((g) => VERIFYING.test(readFileSync(g.file("trail.md"), "utf8")));
    await until(() => shows()[0]!);
    expect(shows()).toEqual([true, false, false]);
    vi.advanceTimersByTime(TRAIL_GAP_MS);
    await until(() => shows()[1]!);
    expect(shows()).toEqual([true, true, false]);
    // the third gate's slot is still ahead: its outcome is written with the step that delivers it
    await verifyGate(loadContext(gates[2]!.layout), "tg3", GATE, () => undefined);
    expect((await step(gates[2]!)).delivered.map((d) => d.name)).toEqual(["outcome.json"]);
    expect(readFileSync(gates[2]!.file("trail.md"), "utf8")).toMatch(/status: satisfied/);
    vi.advanceTimersByTime(TRAIL_GAP_MS * 4);
    await new Promise((done) => setImmediate(done));
    expect(readFileSync(gates[2]!.file("trail.md"), "utf8")).toMatch(/status: satisfied/);
  });
});

describe("trail.md after a broker restarts among open gates", () => {
  it("a first look at a gate whose trail already says so takes no slot, so the next real change is not held back", async () => {
    const gates = await Promise.all(["tr1", "tr2", "tr3", "tr4"].map(async (run) => ({ run, ...(await gateWithPacket(run)) })));
    vi.useFakeTimers({ toFake: ["performance", "setTimeout", "clearTimeout"] });
    const step = (g: (typeof gates)[number], trails: TrailWriter) => stepGate(loadContext(g.layout), g.run, GATE, { trails });
    const before = new TrailWriter();
    for (const g of gates) await step(g, before);
    await vi.advanceTimersByTimeAsync(TRAIL_PACE_MS * 8); // every trail written
    const restarted = new TrailWriter();
    for (const g of gates.slice(0, 3)) await step(g, restarted); // nothing changed: each trail already says so
    const moved = gates[3]!; // its first look since the restart is a real change
    moved.dropResult();
    expect((await step(moved, restarted)).decision.state).toBe("verifying");
    expect(readFileSync(moved.file("trail.md"), "utf8")).toMatch(VERIFYING); // written with the step: no slot ahead of it
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
