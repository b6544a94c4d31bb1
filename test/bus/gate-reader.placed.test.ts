// A file that names another run, gate or round than its place says which, and what its place holds: the writer's fix.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readGate } from "../../src/bus/gate-reader.js";
import { EMPTY_REBUTTAL } from "../../src/core/person-text.js";
import { MAX_NOTE_BYTES } from "../../src/spec/constants.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("a file in another file's place", () => {
  it("is a problem whose reason names each field that differs and the value the place holds", async () => {
    const run = "placed";
    const { layout, file } = await gateWithPacket(run);
    const at = new Date().toISOString();
    writeFileSync(
      file("resubmit-1.json"),
      JSON.stringify({ schema_version: "guild_bus.resubmit.v1", run_id: run, gate: GATE, after_round: 2, at }),
    );
    const decision = { schema_version: "guild_bus.decision.v1", run_id: "elsewhere", gate: "G-plan", round: 3, choice: "rework", at };
    writeFileSync(file("decision-1.json"), JSON.stringify(decision));
    const reasons = Object.fromEntries(readGate(layout, run, GATE).problems.map((p) => [p.file, p.reason]));
    expect(reasons["resubmit-1.json"]).toBe("names another run, gate or round (after_round 2, not 1 as its name says)");
    expect(reasons["decision-1.json"]).toBe(
      `names another run, gate or round (run_id elsewhere, not ${run}; gate G-plan, not ${GATE}; round 3, not 1 as its name says)`,
    );
  });

  it("a file it cannot read is named by its name in the reason, never by this machine's path to it", async () => {
    const run = "unreadable";
    const { layout, file } = await gateWithPacket(run);
    writeFileSync(file("rebuttal-1.md"), Buffer.from([0x6f, 0x6b, 0xff, 0xfe]));
    writeFileSync(file("decision-1.json"), Buffer.from([0x7b, 0xff, 0x7d]));
    writeFileSync(file("packet-2.md"), Buffer.from([0x2d, 0xff]));
    const reasons = Object.fromEntries(readGate(layout, run, GATE).problems.map((p) => [p.file, p.reason]));
    expect(reasons["rebuttal-1.md"]).toBe("rebuttal-1.md: not valid UTF-8 text");
    expect(reasons["decision-1.json"]).toBe("unreadable: decision-1.json: not valid UTF-8 text");
    expect(reasons["packet-2.md"]).toBe("unreadable: packet-2.md: not valid UTF-8 text");
  });

  it("an empty rebuttal is refused with rebut's reason: it would open a paid ruling round on nothing", async () => {
    const run = "empty-rebuttal";
    const { layout, file } = await gateWithPacket(run);
    writeFileSync(file("rebuttal-1.md"), " \n\t\n");
    const s = readGate(layout, run, GATE);
    expect(s.rebuttals.has(1)).toBe(false);
    expect(s.problems).toContainEqual(expect.objectContaining({ file: "rebuttal-1.md", reason: EMPTY_REBUTTAL }));
  });

  it("a dropped rebuttal or decision note longer than the commands take is refused with their reason, never passed on", async () => {
    const run = "long-texts";
    const { layout, file } = await gateWithPacket(run);
    const long = "x".repeat(MAX_NOTE_BYTES + 1);
    writeFileSync(file("rebuttal-1.md"), long);
    const at = new Date().toISOString();
    writeFileSync(
      file("decision-1.json"),
      JSON.stringify({ schema_version: "guild_bus.decision.v1", run_id: run, gate: GATE, round: 1, choice: "rework", at, note: long }),
    );
    const s = readGate(layout, run, GATE);
    expect(s.rebuttals.has(1)).toBe(false);
    expect(s.decisions.has(1)).toBe(false);
    const reasons = Object.fromEntries(s.problems.map((p) => [p.file, p.reason]));
    expect(reasons["rebuttal-1.md"]).toMatch(/^the rebuttal is 65537 bytes; a rebuttal holds at most 65536 bytes/);
    expect(reasons["decision-1.json"]).toMatch(/^the note is 65537 bytes; a decision's note holds at most 65536 bytes/);
  });
});
