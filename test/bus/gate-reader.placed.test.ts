// A file that names another run, gate or round than its place says which, and what its place holds: the writer's fix.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readGate } from "../../src/bus/gate-reader.js";
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
});
