// A long gate's trail.md can pass the 4 MiB gate-file limit (every round's findings, 50 rounds of them). An ended
// gate's trail that already says what the broker would write must not be written again: each rewrite moves the gate
// directory's mtime, which makes the workers look at the ended gate once more — a loop rewriting megabytes every 2 s.
import { statSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { MAX_FILE_BYTES } from "../../src/spec/constants.js";
import { stepGate } from "../../src/workers/broker.js";
import { TrailWriter } from "../../src/workers/trail-writer.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

// the trail of a gate with a long history, without driving fifty rounds: the real text, then history past the limit
vi.mock(import("../../src/core/broker-plan.js"), async (original) => {
  const real = await original();
  const history = `\n${"- finding of an earlier round\n".repeat(Math.ceil(MAX_FILE_BYTES / 30) + 1)}`;
  return { ...real, trailText: (...a: Parameters<typeof real.trailText>) => (real.trailText(...a) ?? "") + history };
});

describe("trail.md over 4 MiB", () => {
  it("of an ended gate that already says so is not written again by a broker's later look", async () => {
    const g = await gateWithPacket("tl1");
    g.dropResult();
    await verifyGate(loadContext(g.layout), "tl1", GATE, () => undefined);
    const ended = await stepGate(loadContext(g.layout), "tl1", GATE, { trails: new TrailWriter() });
    expect(ended.delivered.map((d) => d.name)).toEqual(["outcome.json"]);
    const before = statSync(g.file("trail.md"));
    expect(before.size).toBeGreaterThan(MAX_FILE_BYTES);
    // a later look (a file arrived, or a restarted broker): its writer has no record of the gate
    await stepGate(loadContext(g.layout), "tl1", GATE, { trails: new TrailWriter() });
    expect(statSync(g.file("trail.md")).ino).toBe(before.ino);
  });
});
