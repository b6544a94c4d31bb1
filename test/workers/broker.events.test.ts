// events.jsonl is telemetry: a run whose events file cannot be appended (a directory or a FIFO in its place) still
// gets its packet, and the broker says why the line is missing rather than failing the step on every pass.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { tempRoot } from "../helpers/tmp.js";

describe("broker: an events.jsonl it cannot append", () => {
  for (const [what, plant] of [
    ["a directory", (p: string) => mkdirSync(p)],
    ["a FIFO", (p: string) => execFileSync("mkfifo", [p])],
  ] as const)
    it(`(${what}) leaves the delivery standing and is logged`, async () => {
      const root = tempRoot("guild-bus-events-");
      mkdirSync(path.join(root, "docs"), { recursive: true });
      writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
      const layout = new Layout(root);
      expect(
        await requestReview(layout, { artifact: "docs/spec.md", gate: "G-spec", author: "claude", reviewer: "manual", runId: "ev" }),
      ).toMatchObject({
        ok: true,
      });
      rmSync(layout.events("ev"), { force: true });
      plant(layout.events("ev"));
      const logs: string[] = [];
      const log = (m: string) => logs.push(m);
      await stepGate(loadContext(layout), "ev", "G-spec", { log });
      const file = (name: string) => layout.gateFile("ev", "G-spec", name);
      const packet = readFileSync(file("packet-1.md"), "utf8");
      const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!.replace(/^"|"$/g, "");
      const result = { schema_version: "review_result.v1", packet_id: field("packet_id"), verdict: "satisfied", blocking_findings: [] };
      writeFileSync(
        path.join(root, "drop.tmp"),
        JSON.stringify({ ...result, artifact_sha256_reviewed: field("artifact_sha256"), reviewer_model: "gpt-5" }),
      );
      renameSync(path.join(root, "drop.tmp"), file("result-1.json"));
      await verifyGate(loadContext(layout), "ev", "G-spec", () => undefined);
      // the outcome ends round 1: its event line is the one that cannot be appended
      const report = await stepGate(loadContext(layout), "ev", "G-spec", { log });
      expect(report.error).toBeUndefined();
      expect(report.delivered.map((d) => [d.name, d.result.status])).toEqual([["outcome.json", "delivered"]]);
      expect(existsSync(file("outcome.json"))).toBe(true);
      expect(logs).toEqual([expect.stringMatching(/events\.jsonl not appended .*telemetry only/)]);
    });
});
