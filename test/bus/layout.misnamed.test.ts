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
    // spelled otherwise, still of no kind: a person's copy of the trail, notes
    for (const name of ["Trail.md", "Notes.txt", "trail.md ", "Rejected"]) expect(misnamedReason(name), name).toBeNull();
  });

  // A name that looks like the bus name, or is it on a case-insensitive filesystem, is no bus file: said with the
  // name meant, and moved aside by that kind's mover (it was "not a bus file name", left in place for good)
  const AS_WRITTEN = "the bus reads a name only as it writes it (lower case, plain ASCII, nothing around it)";
  it.each([
    ["Response-1.md", '"Response-1.md"', "response-1.md", "manual"],
    ["RESULT-1.JSON", '"RESULT-1.JSON"', "result-1.json", "verifier"],
    ["response-1.md ", '"response-1.md "', "response-1.md", "manual"],
    ["response-1.md.", '"response-1.md."', "response-1.md", "manual"],
    [" decision-2.json", '" decision-2.json"', "decision-2.json", "broker"],
    ["result-\uff11.json", '"result-\uff11.json"', "result-1.json", "verifier"],
    ["result-1\u200b.json", '"result-1\\u200b.json"', "result-1.json", "verifier"],
    ["\ufeffrequest.json", '"\\ufeffrequest.json"', "request.json", "broker"],
    ["Outcome.json", '"Outcome.json"', "outcome.json", "broker"],
    ["result-1.GPT.json", '"result-1.GPT.json"', "result-1.gpt.json", "verifier"],
  ] as const)("%j, shown %s, is not %s: moved by the %s", (name, quoted, meant, mover) => {
    expect(misnamedReason(name)).toBe(`${quoted} is not ${meant}: ${AS_WRITTEN}`);
    for (const worker of ["broker", "verifier", "manual"] as const) expect(movesAside(worker, name), worker).toBe(worker === mover);
  });

  it("names what else is wrong with a name spelled otherwise", () => {
    const padded = "round written with leading zeros: rounds are written without them (result-1.json)";
    expect(misnamedReason("Result-01.json")).toBe(`"Result-01.json" is not result-01.json: ${AS_WRITTEN}; and ${padded}`);
    expect(misnamedReason("result-1.md ")).toBe(
      `"result-1.md " is not result-1.md: ${AS_WRITTEN}; and a result file is .json: result-1.json`,
    );
  });
});
