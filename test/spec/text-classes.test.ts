// The schemas' spelled-out classes (src/spec/text-classes.ts) are exactly JavaScript's \p{Cc}\p{Cf}\p{Zl}\p{Zp} and \s
// for the running Node: when its Unicode tables move, this fails and prints the table to paste.
import { describe, expect, it } from "vitest";
import { SPACE, SPACE_RANGES, UNPRINTABLE, UNPRINTABLE_RANGES } from "../../src/spec/text-classes.js";

function rangesOf(re: RegExp): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  for (let cp = 0; cp <= 0x110000; cp++) {
    const hit = cp <= 0x10ffff && re.test(String.fromCodePoint(cp));
    if (hit && start < 0) start = cp;
    if (!hit && start >= 0) {
      out.push([start, cp - 1]);
      start = -1;
    }
  }
  return out;
}
const table = (r: [number, number][]) => r.map(([a, b]) => `  [0x${a.toString(16)}, 0x${b.toString(16)}],`).join("\n");

describe("src/spec/text-classes.ts", () => {
  it("UNPRINTABLE_RANGES is \\p{Cc} ∪ \\p{Cf} ∪ \\p{Zl} ∪ \\p{Zp} as this Node sees them", () => {
    const now = rangesOf(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    expect(UNPRINTABLE_RANGES, `Unicode ${process.versions.unicode}:\n${table(now)}`).toEqual(now);
  });

  it("SPACE_RANGES is \\s as this Node sees it", () => {
    const now = rangesOf(/\s/u);
    expect(SPACE_RANGES, table(now)).toEqual(now);
  });

  it("the class strings match exactly the code points of their tables", () => {
    const unprintable = new RegExp(`^[${UNPRINTABLE}]$`, "u");
    const space = new RegExp(`^[${SPACE}]$`, "u");
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const c = String.fromCodePoint(cp);
      if (unprintable.test(c) !== /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(c)) throw new Error(`U+${cp.toString(16)}: UNPRINTABLE disagrees`);
      if (space.test(c) !== /\s/u.test(c)) throw new Error(`U+${cp.toString(16)}: SPACE disagrees`);
    }
  });
});
