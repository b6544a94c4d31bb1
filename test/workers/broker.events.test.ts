// events.jsonl is telemetry: a run whose events file cannot be appended (a directory or a FIFO in its place) still
// gets its packet, and the broker says why the line is missing rather than failing the step on every pass.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("broker: an events.jsonl it cannot append", () => {
  for (const [what, plant] of [
    ["a directory", (p: string) => mkdirSync(p)],
    ["a FIFO", (p: string) => execFileSync("mkfifo", [p])],
  ] as const)
    it(`(${what}) leaves the delivery standing and is logged`, async () => {
      const { layout, dropResult } = await gateWithPacket("ev");
      rmSync(layout.events("ev"), { force: true });
      plant(layout.events("ev"));
      const logs: string[] = [];
      const log = (m: string) => logs.push(m);
      dropResult();
      await verifyGate(loadContext(layout), "ev", GATE, () => undefined);
      // the outcome ends round 1: its event line is the one that cannot be appended
      const report = await stepGate(loadContext(layout), "ev", GATE, { log });
      expect(report.error).toBeUndefined();
      expect(report.delivered.map((d) => [d.name, d.result.status])).toEqual([["outcome.json", "delivered"]]);
      expect(existsSync(layout.gateFile("ev", GATE, "outcome.json"))).toBe(true);
      expect(logs).toEqual([expect.stringMatching(/events\.jsonl not appended .*telemetry only/)]);
    });
});
