// A worker's presence file names the gates it keeps failing on (SPEC §15): one failure is not named (a passing race),
// a body of another shape or a planted one says nothing it should not, and what is shown stays on one safe line.
import { describe, expect, it } from "vitest";
import { parseAdvert } from "../../src/core/advertised.js";
import { stuckGatesIn, withStuckGates } from "../../src/core/stuck.js";

const gate = (n: number, tries = 3) => ({ run_id: "r1", gate: `G-${n}`, tries, since: "2026-12-06T10:00:00.000Z", error: `EIO ${n}` });

describe("stuck gates in a presence file", () => {
  it("are named from the second failure in a row, at most five, the latest kept, beside the advertisement", () => {
    expect(withStuckGates(null, [gate(1, 1)])).toBeNull();
    const advert = '{"host":"h","providers":["p"]}\n';
    expect(withStuckGates(advert, [gate(1, 1)])).toBe(advert);
    const body = withStuckGates(
      advert,
      [1, 2, 3, 4, 5, 6, 7].map((n) => gate(n)),
    )!;
    expect(parseAdvert(body)).toEqual({ host: "h", providers: ["p"] });
    expect(stuckGatesIn(body).map((g) => g.gate)).toEqual(["G-3", "G-4", "G-5", "G-6", "G-7"]);
    expect(stuckGatesIn(withStuckGates(null, [gate(1, 2)])!)).toEqual([gate(1, 2)]);
  });

  it("read back from a planted or torn body: only well-formed entries, each error on one line with escapes shown", () => {
    expect(stuckGatesIn("")).toEqual([]);
    expect(stuckGatesIn('{"stuck":"x"}')).toEqual([]);
    const planted = JSON.stringify({
      stuck: [
        { run_id: "r1", gate: "G", tries: "9", since: "t", error: "e" },
        { ...gate(1), error: "a\nb\u001b[2J" },
      ],
    });
    expect(stuckGatesIn(planted)).toEqual([{ ...gate(1), error: "a\\u000ab\\u001b[2J" }]);
    expect(stuckGatesIn(JSON.stringify({ stuck: [{ ...gate(1), error: "x".repeat(5000) }] }))[0]!.error).toHaveLength(300);
  });
});
