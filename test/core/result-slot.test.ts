// The keys that bind a round to its reviewer worker are compared as the schema spells them: hex in either case.
import { describe, expect, it } from "vitest";
import { deliveryRefusal, failureRefusal } from "../../src/core/result-slot.js";
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
