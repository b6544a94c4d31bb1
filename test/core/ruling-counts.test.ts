// The rulings a result counts (SPEC §21): only a withdrawal withdraws, and rulings in a shape other than a list are no
// withdrawal of anything (a reader of the file alone must not see fewer upheld findings than the bus does).
import { describe, expect, it } from "vitest";
import { rulingCounts } from "../../src/core/verdict-pass.js";

describe("rulingCounts", () => {
  const contested = [{ title: "No rollback", fields: {} }];

  it("a list: every ruling but a withdrawal is upheld; in a ruling round a contested finding stands unless withdrawn", () => {
    expect(
      rulingCounts(
        [
          { finding: "x", ruling: "upheld" },
          { finding: "y", ruling: "withdrawn" },
        ],
        null,
      ),
    ).toEqual({ upheld: 1, withdrawn: 1 });
    expect(rulingCounts([{ finding: "No rollback", ruling: "withdrawn" }], contested)).toEqual({ upheld: 0, withdrawn: 1 });
    expect(rulingCounts([], contested)).toEqual({ upheld: 1, withdrawn: 0 });
  });

  it("absent or null is no ruling; any other shape counts as one upheld, never as none", () => {
    for (const none of [undefined, null]) expect(rulingCounts(none, null)).toEqual({ upheld: 0, withdrawn: 0 });
    for (const odd of [{ finding: "x", ruling: "withdrawn" }, "withdrawn", 0, true])
      expect(rulingCounts(odd, null), JSON.stringify(odd)).toEqual({ upheld: 1, withdrawn: 0 });
    expect(rulingCounts({ finding: "No rollback", ruling: "withdrawn" }, contested)).toEqual({ upheld: 1, withdrawn: 0 });
  });
});
