// The keys that bind a round to its reviewer worker are compared as the schema spells them: hex in either case.
import { describe, expect, it } from "vitest";
import { deliveryRefusal, failureRefusal, resultRefusal } from "../../src/core/result-slot.js";
import { sha256Hex } from "../../src/core/sha.js";
import { DELIVERY_KEY, failure, gate } from "../helpers/snapshots.js";

describe("a dispatch's keys", () => {
  it("bind the worker's answer and its failure whatever the case of the recorded hex", () => {
    const g = gate().packet(1).attempt(1);
    const end = "e".repeat(43);
    const a = g.s.attempts.get(1)!;
    g.s.attempts.set(1, { ...a, delivery_key_sha256: a.delivery_key_sha256!.toUpperCase(), end_key_sha256: sha256Hex(end).toUpperCase() });
    const packet = g.s.packets.get(1)!;
    expect(deliveryRefusal(g.s, packet, { delivery_key: DELIVERY_KEY })).toBeNull();
    expect(deliveryRefusal(g.s, packet, { delivery_key: "x" })).toMatch(/delivery key is missing or wrong/);
    expect(failureRefusal(g.s, packet, { ...failure(1, "malformed"), end_key: end })).toBeNull();
    expect(failureRefusal(g.s, packet, { ...failure(1, "malformed"), end_key: "x" })).toMatch(/end key is missing or wrong/);
  });
});

describe("a result under the plain name in a quorum round", () => {
  it("is refused with the names its members answer under", () => {
    const rule = { need: 2, of: 2 };
    const g = gate().memberPacket(1, "exa", "openai", rule).memberPacket(1, "exb", "google", rule);
    expect(resultRefusal(g.s, 1)).toBe(
      "no packet-1.md was issued: round 1 is a quorum round, whose members answer as result-1.exa.json, result-1.exb.json",
    );
    expect(resultRefusal(gate().packet(1).s, 2)).toBe("no packet-2.md was issued");
  });
});

describe("a result counts only for the open round, from the worker that dispatched it (SPEC §15)", () => {
  it("is refused for a round no dispatch was recorded for, or whose attempt is another packet's or reviewer's", () => {
    const g = gate().packet(1);
    const packet = g.s.packets.get(1)!;
    expect(deliveryRefusal(g.s, packet, { delivery_key: DELIVERY_KEY })).toMatch(/no dispatch was recorded/);
    g.attempt(1);
    expect(deliveryRefusal(g.s, packet, { delivery_key: DELIVERY_KEY })).toBeNull();
    const a = g.s.attempts.get(1)!;
    for (const other of [{ packet_id: "G-spec-other-r1" }, { provider: "someone-else" }]) {
      g.s.attempts.set(1, { ...a, ...other });
      expect(deliveryRefusal(g.s, packet, { delivery_key: DELIVERY_KEY })).toMatch(/another reviewer or packet/);
    }
  });

  it("is refused late for a closed round, and once its round's sealed answer was changed", () => {
    expect(resultRefusal(gate().packet(1).packet(2).s, 1)).toBe("late: round 1 is closed, the open round is 2");
    const g = gate().packet(1);
    expect(resultRefusal(g.s, 1)).toBeNull();
    g.s.brokenSeals.set(1, "result-1.json changed after verification");
    expect(resultRefusal(g.s, 1)).toMatch(/^round 1 was verified already and can take no other result/);
  });
});
