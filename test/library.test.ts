// The library API (`import … from "guild-bus"`) does what the CLI commands do: gateStatus answers what
// `guild-bus status <run> <gate> --json` prints for the gate, and refuses what that command refuses.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../src/bus/context.js";
import { gateStatuses } from "../src/commands/status.js";
import { gateStatus } from "../src/index.js";
import { GATE, gateWithPacket } from "./helpers/one-gate.js";

describe("gateStatus", () => {
  it("is the gate's row of status --json: the next step and the exit code a script acts on", async () => {
    const g = await gateWithPacket("lib-status");
    const answer = gateStatuses(loadContext(g.layout), { run: "lib-status", gate: GATE });
    const row = answer.ok ? answer.rows[0] : null;
    expect(gateStatus(g.root, "lib-status", GATE)).toEqual(row);
    expect(gateStatus(g.root, "lib-status", GATE)).toMatchObject({
      exit_code: 6,
      next: { waiting_on: "a person (the manual reviewer)", person_first: true },
    });
  });

  it("throws, as status refuses, for a gate that does not exist or on settings with problems", async () => {
    const g = await gateWithPacket("lib-refused");
    expect(() => gateStatus(g.root, "lib-refused", "G-plan")).toThrow(/G-plan/);
    writeFileSync(g.layout.settings, JSON.stringify({ max_rounds: "five" }));
    expect(() => gateStatus(g.root, "lib-refused", GATE)).toThrow(/max_rounds/);
  });
});
