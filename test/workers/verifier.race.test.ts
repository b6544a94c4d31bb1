// A stray verdict that lands in the slot between the verifier's read and its delivery: no event wakes the verifier for
// a verdict (its own would wake it every round), so it looks again at once when its delivery finds the slot taken —
// the stray one is moved aside and the round verified, rather than stalling until the full-scan look.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { tempRoot } from "../helpers/tmp.js";

const afterRead: Array<() => void> = [];
vi.mock("../../src/bus/gate-reader.js", async (original) => {
  const real = await original<typeof import("../../src/bus/gate-reader.js")>();
  return {
    ...real,
    readGate: (...args: Parameters<typeof real.readGate>) => {
      const snapshot = real.readGate(...args);
      afterRead.shift()?.();
      return snapshot;
    },
  };
});

const RUN = "race";
const GATE = "G-spec";

describe("verifier: a verdict slot taken after its read", () => {
  it("moves the stray verdict aside and delivers its own in the same handling", async () => {
    const root = tempRoot("guild-bus-race-");
    mkdirSync(path.join(root, "docs"), { recursive: true });
    writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
    const layout = new Layout(root);
    expect(
      await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: RUN }),
    ).toMatchObject({
      ok: true,
    });
    await stepGate(loadContext(layout), RUN, GATE);
    const file = (name: string) => layout.gateFile(RUN, GATE, name);
    const packet = readFileSync(file("packet-1.md"), "utf8");
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!.replace(/^"|"$/g, "");
    const drop = (name: string, text: string) => {
      writeFileSync(path.join(root, "drop.tmp"), text);
      renameSync(path.join(root, "drop.tmp"), file(name));
    };
    drop(
      "result-1.json",
      JSON.stringify({
        schema_version: "review_result.v1",
        packet_id: field("packet_id"),
        artifact_sha256_reviewed: field("artifact_sha256"),
        verdict: "satisfied",
        blocking_findings: [],
        reviewer_model: "gpt-5",
      }),
    );
    afterRead.push(() => drop("verdict-1.json", "{ not a verdict"));
    await verifyGate(loadContext(layout), RUN, GATE, () => undefined);
    expect(JSON.parse(readFileSync(file("verdict-1.json"), "utf8"))).toMatchObject({ round: 1, packet_id: field("packet_id") });
    const rejected = path.join(layout.gateDir(RUN, GATE), "rejected");
    const moved = existsSync(rejected) ? readdirSync(rejected).filter((f) => !f.endsWith(".reason.json")) : [];
    expect(moved).toEqual([expect.stringMatching(/^verdict-1\.json\./)]);
    expect(readFileSync(path.join(rejected, moved[0]!), "utf8")).toBe("{ not a verdict");
  });
});
