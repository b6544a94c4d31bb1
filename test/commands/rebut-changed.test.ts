// A rebuttal is ruled on the bytes of the round it contests (SPEC §21): once the artifact changed since that round was
// sent, `rebut` refuses and says to resubmit; a rebuttal written before an edit gets a full round, never a ruling.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { rebut } from "../../src/commands/author.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { tempRoot } from "../helpers/tmp.js";

const RUN = "r1";
const GATE = "G-spec";

/** A hard gate whose round 1 blocked on one finding: the author's turn. */
async function blockedRound() {
  const root = tempRoot();
  mkdirSync(path.join(root, "docs"));
  const artifact = path.join(root, "docs", "spec.md");
  writeFileSync(artifact, "# Spec\n");
  const layout = new Layout(root);
  const req = { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: RUN, difficulty: "hard" as const };
  expect(await requestReview(layout, req)).toMatchObject({ ok: true });
  await stepGate(loadContext(layout), RUN, GATE);
  const packet = readFileSync(layout.gateFile(RUN, GATE, "packet-1.md"), "utf8");
  const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!.replace(/^"|"$/g, "");
  const result = {
    schema_version: "review_result.v1",
    packet_id: field("packet_id"),
    artifact_sha256_reviewed: field("artifact_sha256"),
    verdict: "issues",
    blocking_findings: [{ severity: "blocking", title: "no threat model" }],
    reviewer_model: "gpt-5",
  };
  writeFileSync(path.join(root, "drop.tmp"), JSON.stringify(result));
  renameSync(path.join(root, "drop.tmp"), layout.gateFile(RUN, GATE, "result-1.json"));
  await verifyGate(loadContext(layout), RUN, GATE, () => undefined, Date.now() + 60_000);
  await stepGate(loadContext(layout), RUN, GATE);
  return { layout, artifact };
}

describe("rebut: only on the bytes of the contested round", () => {
  it("refuses once the artifact changed since the round was sent, and writes nothing; unchanged bytes may be contested", async () => {
    const { layout, artifact } = await blockedRound();
    writeFileSync(artifact, "# Spec\n\nAdmin endpoints skip authentication.\n");
    const refused = await rebut(loadContext(layout), RUN, GATE, "the finding does not hold");
    expect(refused).toEqual({ ok: false, error: expect.stringContaining("the artifact changed since round 1 was sent") });
    expect(refused.ok || refused.error).toMatch(/resubmit the revised artifact/);
    writeFileSync(artifact, "# Spec\n");
    expect(await rebut(loadContext(layout), RUN, GATE, "the finding does not hold")).toEqual({ ok: true, round: 1 });
  });

  it("an edit after the rebuttal gets a full round on the new bytes, not a ruling", async () => {
    const { layout, artifact } = await blockedRound();
    expect(await rebut(loadContext(layout), RUN, GATE, "the finding does not hold")).toEqual({ ok: true, round: 1 });
    writeFileSync(artifact, "# Spec\n\nAdmin endpoints skip authentication.\n");
    await stepGate(loadContext(layout), RUN, GATE);
    const packet2 = readFileSync(layout.gateFile(RUN, GATE, "packet-2.md"), "utf8");
    expect(packet2).toMatch(/^restart_reason: null$/m);
    expect(packet2).toMatch(/^counted_round: 2$/m);
    expect(packet2).not.toContain("Contested findings");
    expect(packet2).toContain("Admin endpoints skip authentication.");
  });
});
