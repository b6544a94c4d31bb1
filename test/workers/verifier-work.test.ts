// The verifier's work per round (issue #15): a packet it proves the broker's, and the result it judges, are each parsed
// once; the proof and the verdict are the same as when they were parsed again.
import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { sha256Hex } from "../../src/core/sha.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const parsed = { packets: 0, results: 0 };
vi.mock("../../src/core/packet.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/core/packet.js")>();
  return { ...real, parsePacket: (text: string) => (parsed.packets++, real.parsePacket(text)) };
});
vi.mock("../../src/core/result-wire.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/core/result-wire.js")>();
  return { ...real, parseReviewResult: (raw: string) => (parsed.results++, real.parseReviewResult(raw)) };
});

beforeEach(() => {
  parsed.packets = 0;
  parsed.results = 0;
});

describe("the verifier, judging a result to a packet the broker issued", () => {
  it("reads the packet's front matter at most once and the result once, and seals both as read", async () => {
    const run = "verifier-work";
    const g = await gateWithPacket(run);
    g.dropResult();
    parsed.packets = 0;
    parsed.results = 0;
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    const verdict = JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"));
    expect(verdict.packet_sha256).toBe(sha256Hex(readFileSync(g.file("packet-1.md"))));
    expect(verdict.result_sha256).toBe(sha256Hex(readFileSync(g.file("result-1.json"))));
    expect(verdict.gate_pass.pass).toBe(true);
    // the reader's parse of the packet (none when this process's broker read it already); the result's in verifyRound
    expect(parsed.packets).toBeLessThanOrEqual(1);
    expect(parsed.results).toBe(1);
  });
});
