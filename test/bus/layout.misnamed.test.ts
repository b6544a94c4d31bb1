// A name of a bus file's kind that is no bus file's (SPEC §2, §5) is moved aside with the name its writer meant.
import { describe, expect, it } from "vitest";
import { misnamedReason, movesAside } from "../../src/bus/layout.js";

describe("misnamedReason", () => {
  it.each([
    ["result-01.json", "round written with leading zeros: rounds are written without them (result-1.json)"],
    ["packet-007.gpt.md", "round written with leading zeros: rounds are written without them (packet-7.gpt.md)"],
    ["escalation-00.json", "round written with leading zeros: rounds are written without them (escalation-0.json)"],
    ["result-0.json", "round 0 is only escalation-0.json's and decision-0.json's: rounds of result files start at 1"],
    ["result-00.json", "round 0 is only escalation-0.json's and decision-0.json's: rounds of result files start at 1"],
    ["result-0.gpt.json", "round 0 has no quorum members: a member's round starts at 1"],
    ["result-1234567890.json", "a round has at most 9 digits"],
    ["escalation-2.gpt.json", "escalation files are the round's, not a quorum member's: escalation-2.json"],
    ["result-1.-gpt.json", "-gpt is not a provider id (^[a-z0-9][a-z0-9._-]{0,63}$)"],
    ["result-1.md", "a result file is .json: result-1.json"],
    ["packet-2.gpt.json", "a packet file is .md: packet-2.gpt.md"],
  ])("%s: %s", (name, reason) => {
    expect(misnamedReason(name)).toBe(reason);
    expect(movesAside(name.startsWith("result") ? "verifier" : "broker", name)).toBe(true);
  });

  it("is null for a round file and for a name of no kind", () => {
    for (const name of ["result-1.json", "result-1.gpt.json", "decision-0.json", "packet-12.md", "notes.txt", "result.json"])
      expect(misnamedReason(name), name).toBeNull();
  });
});
