// A result the verifier's rules did not foresee (building its verdict throws) is moved aside with the reason, once:
// retried on every pass it would hold its gate in "verifying" for ever. A disk error is retried instead.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { tempRoot } from "../helpers/tmp.js";

const failures: Error[] = [];
vi.mock("../../src/core/score-gate.js", async (original) => {
  const real = await original<typeof import("../../src/core/score-gate.js")>();
  return {
    ...real,
    evaluateScoreGate: (...args: Parameters<typeof real.evaluateScoreGate>) => {
      const failure = failures.shift();
      if (failure) throw failure;
      return real.evaluateScoreGate(...args);
    },
  };
});

const RUN = "unjudged";
const GATE = "G-spec";

describe("verifier: a result it cannot judge", () => {
  it("is rejected with the reason (a bug's TypeError), while a disk error leaves it for the next pass", async () => {
    const root = tempRoot("guild-bus-unjudged-");
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
    writeFileSync(
      path.join(root, "drop.tmp"),
      JSON.stringify({
        schema_version: "review_result.v1",
        packet_id: field("packet_id"),
        artifact_sha256_reviewed: field("artifact_sha256"),
        verdict: "satisfied",
        blocking_findings: [],
        reviewer_model: "gpt-5",
      }),
    );
    renameSync(path.join(root, "drop.tmp"), file("result-1.json"));

    failures.push(Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
    await expect(verifyGate(loadContext(layout), RUN, GATE, () => undefined)).rejects.toThrow(/EIO/);
    expect(existsSync(file("result-1.json"))).toBe(true); // still there for the next pass

    failures.push(new TypeError("Cannot convert object to primitive value"));
    await verifyGate(loadContext(layout), RUN, GATE, () => undefined);
    expect(existsSync(file("verdict-1.json"))).toBe(false);
    const rejected = path.join(layout.gateDir(RUN, GATE), "rejected");
    const reasons = readdirSync(rejected).filter((f) => f.endsWith(".reason.json"));
    expect(reasons).toHaveLength(1);
    expect(JSON.parse(readFileSync(path.join(rejected, reasons[0]!), "utf8")).reason).toMatch(
      /the verifier cannot judge it: Cannot convert object to primitive value/,
    );
  });
});
