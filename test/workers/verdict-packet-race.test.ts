// The verdict binds the packet bytes it was judged against (SPEC §15). A packet edited after the verifier looked at
// the gate but before it hashed the packet must not get a verdict judged on the old fields and bound to the new bytes.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { sha256Hex } from "../../src/core/sha.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

let afterLook: (() => void) | undefined;
vi.mock("../../src/bus/gate-reader.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/bus/gate-reader.js")>();
  return {
    ...real,
    readGateToAct: (...args: Parameters<typeof real.readGateToAct>) => {
      const snapshot = real.readGateToAct(...args);
      const edit = afterLook;
      afterLook = undefined;
      edit?.();
      return snapshot;
    },
  };
});

describe("a packet edited between the verifier's look and its verdict", () => {
  it("is judged by the bytes the verdict names: an author family edited to the reviewer's is a violation", async () => {
    const run = "packet-race";
    const g = await gateWithPacket(run);
    g.dropResult();
    // edited everywhere the family shows, so the packet is still one the broker would write for its front matter
    afterLook = () => writeFileSync(g.file("packet-1.md"), readFileSync(g.file("packet-1.md"), "utf8").replace(/anthropic/g, "openai"));
    const ctx = loadContext(g.layout);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    const verdict = JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"));
    expect(verdict.packet_sha256).toBe(sha256Hex(readFileSync(g.file("packet-1.md"))));
    expect(verdict.reviewer_family).toBe("openai");
    expect(verdict.independence_violation).toBe(true);
  });
});
