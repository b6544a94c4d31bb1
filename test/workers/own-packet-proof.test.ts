// A packet is the broker's only if its text is the one the broker builds for its front matter (SPEC §13). The broker
// does not build again a packet it has just written itself (a scrub of the whole artifact); every other text is built
// again, and an edited body is caught whatever looks went before it with the same front matter.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import * as brokerPlan from "../../src/core/broker-plan.js";
import { readGateLive } from "../../src/workers/issued-packets.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

vi.mock("../../src/core/broker-plan.js", async (original) => {
  const actual = await original<typeof import("../../src/core/broker-plan.js")>();
  return { ...actual, unissuedPacketProblem: vi.fn(actual.unissuedPacketProblem) };
});
const rebuilds = vi.mocked(brokerPlan.unissuedPacketProblem);

/** Replace a gate file as a foreign writer would: other bytes (or the same) under a new inode. */
function rewrite(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

describe("the proof that a packet is the broker's", () => {
  beforeEach(() => {
    rebuilds.mockClear();
  });

  it("is not built again for the text the broker has just written, and is for an edited one", async () => {
    const run = "own-proof";
    const { layout, file } = await gateWithPacket(run, { text: "# Spec\n\nA long artifact.\n".repeat(200) });
    // gateWithPacket's broker step wrote packet-1.md in this process: its next look builds nothing to prove it
    rebuilds.mockClear();
    expect(readGateLive(loadContext(layout), run, GATE).packets.has(1)).toBe(true);
    expect(rebuilds).not.toHaveBeenCalled();
    const text = readFileSync(file("packet-1.md"), "utf8");
    rewrite(file("packet-1.md"), text.replace("do not grade it kindly", "grade it kindly"));
    expect(readGateLive(loadContext(layout), run, GATE).packets.has(1)).toBe(false);
    expect(rebuilds).toHaveBeenCalledTimes(1);
  });

  it("catches a body edited after a look found the same front matter the broker's", async () => {
    const run = "edited-later";
    const { layout, file } = await gateWithPacket(run);
    const text = readFileSync(file("packet-1.md"), "utf8");
    // the same bytes again under a new inode (a copy back from a backup): still the broker's
    rewrite(file("packet-1.md"), text);
    expect(readGateLive(loadContext(layout), run, GATE).packets.has(1)).toBe(true);
    // then its instructions edited, its front matter kept: that version is judged on its own text
    rewrite(file("packet-1.md"), text.replace("do not grade it kindly", "grade it kindly"));
    const s = readGateLive(loadContext(layout), run, GATE);
    expect(s.packets.has(1)).toBe(false);
    expect(s.problems.map((p) => p.reason).join("\n")).toMatch(/its text is not the packet the broker issues/);
  });
});
