// A stray verdict that lands in the slot between the verifier's read and its delivery: no event wakes the verifier for
// a verdict (its own would wake it every round), so it looks again at once when its delivery finds the slot taken —
// the stray one is moved aside and the round verified, rather than stalling until the full-scan look.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const afterRead: Array<() => void> = [];
vi.mock("../../src/bus/gate-reader.js", async (original) => {
  const real = await original<typeof import("../../src/bus/gate-reader.js")>();
  return {
    ...real,
    readGateToAct: (...args: Parameters<typeof real.readGateToAct>) => {
      const snapshot = real.readGateToAct(...args);
      afterRead.shift()?.();
      return snapshot;
    },
  };
});

const RUN = "race";

describe("verifier: a verdict slot taken after its read", () => {
  it("moves the stray verdict aside and delivers its own in the same handling", async () => {
    const { layout, file, field, drop, dropResult } = await gateWithPacket(RUN);
    dropResult();
    afterRead.push(() => drop("verdict-1.json", "{ not a verdict"));
    await verifyGate(loadContext(layout), RUN, GATE, () => undefined);
    expect(JSON.parse(readFileSync(file("verdict-1.json"), "utf8"))).toMatchObject({ round: 1, packet_id: field("packet_id") });
    const rejected = path.join(layout.gateDir(RUN, GATE), "rejected");
    const moved = existsSync(rejected) ? readdirSync(rejected).filter((f) => !f.endsWith(".reason.json")) : [];
    expect(moved).toEqual([expect.stringMatching(/^verdict-1\.json\./)]);
    expect(readFileSync(path.join(rejected, moved[0]!), "utf8")).toBe("{ not a verdict");
  });
});
