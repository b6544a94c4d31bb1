import { describe, expect, it } from "vitest";
import { wholeNumberText } from "../../src/core/whole-number.js";

describe("wholeNumberText: a whole number typed as text, read alike by every face", () => {
  it("takes decimal digits (spaces around them allowed) within the bounds", () => {
    expect(wholeNumberText("3", 1, 5)).toBe(3);
    expect(wholeNumberText(" 5\n", 1, 5)).toBe(5);
    expect(wholeNumberText("0", 0, 1_000_000)).toBe(0);
    expect(wholeNumberText("007", 0, 10)).toBe(7);
  });

  it("refuses what Number() would take but a person did not type as a whole number", () => {
    for (const typed of ["1e0", "0x2", "2.0", "+1", "-1", "1_000", "", " ", "Infinity", "2 3"])
      expect(wholeNumberText(typed, 0, 1_000_000), typed).toBeNull();
  });

  it("refuses numbers outside the bounds, and ones too large to be exact", () => {
    expect(wholeNumberText("6", 1, 5)).toBeNull();
    expect(wholeNumberText("0", 1, 5)).toBeNull();
    expect(wholeNumberText("9007199254740993", 0, Number.MAX_SAFE_INTEGER)).toBeNull();
  });
});
