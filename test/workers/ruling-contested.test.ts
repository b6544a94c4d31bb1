// A ruling round rules on every blocker of the round the author contests: one the reviewer listed only among its
// findings (severity blocking) is contested too, and a ruling that withdraws only the other leaves the gate closed.
import { readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { rebut } from "../../src/commands/author.js";
import { checkGates } from "../../src/commands/check.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("a ruling round", () => {
  it("lists and counts a blocker given only among the findings", async () => {
    const run = "ruling-severe";
    const g = await gateWithPacket(run, { difficulty: "hard" });
    const ctx = loadContext(g.layout);
    const later = () => Date.now() + 60_000;
    g.dropResult({
      verdict: "issues",
      blocking_findings: [{ severity: "blocking", title: "Style nit A" }],
      findings: [{ severity: "blocking", title: "Auth bypass B" }],
    });
    await verifyGate(ctx, run, GATE, () => undefined, later());
    expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ blocking_count: 2 });
    await stepGate(ctx, run, GATE);
    expect(await rebut(ctx, run, GATE, "Neither is a defect.")).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    const ruling = readFileSync(g.file("packet-2.md"), "utf8");
    expect(ruling).toContain("### Finding 1: Style nit A");
    expect(ruling).toContain("### Finding 2: Auth bypass B");
    // the reviewer withdraws A and says nothing of B: B stands, the gate does not pass
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(ruling)![1]!.replace(/^"|"$/g, "");
    g.drop(
      "result-2.json",
      JSON.stringify({
        schema_version: "review_result.v1",
        packet_id: field("packet_id"),
        artifact_sha256_reviewed: field("artifact_sha256"),
        verdict: "satisfied",
        blocking_findings: [],
        rulings: [{ finding: "Style nit A", ruling: "withdrawn" }],
        reviewer_model: "gpt-5",
      }),
    );
    await verifyGate(ctx, run, GATE, () => undefined, later());
    expect(JSON.parse(readFileSync(g.file("verdict-2.json"), "utf8"))).toMatchObject({ rulings: { upheld: 1, withdrawn: 1 } });
    await stepGate(ctx, run, GATE);
    expect(viewGate(ctx, run, GATE).snapshot.outcome?.status).not.toBe("satisfied");
  });

  it("once passed, no longer checks as passed when the findings it ruled on cannot be read any more", async () => {
    const run = "ruling-unread";
    const g = await gateWithPacket(run, { difficulty: "hard" });
    const ctx = loadContext(g.layout);
    const later = () => Date.now() + 60_000;
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "Auth bypass B" }] });
    await verifyGate(ctx, run, GATE, () => undefined, later());
    await stepGate(ctx, run, GATE);
    expect(await rebut(ctx, run, GATE, "Not a defect.")).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    const ruling = readFileSync(g.file("packet-2.md"), "utf8");
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(ruling)![1]!.replace(/^"|"$/g, "");
    g.drop(
      "result-2.json",
      JSON.stringify({
        schema_version: "review_result.v1",
        packet_id: field("packet_id"),
        artifact_sha256_reviewed: field("artifact_sha256"),
        verdict: "satisfied",
        blocking_findings: [],
        rulings: [{ finding: "Auth bypass B", ruling: "withdrawn" }],
        reviewer_model: "gpt-5",
      }),
    );
    await verifyGate(ctx, run, GATE, () => undefined, later());
    await stepGate(ctx, run, GATE);
    expect(viewGate(ctx, run, GATE).snapshot.outcome?.status).toBe("satisfied");
    const check = () => checkGates(loadContext(g.layout), { require: [GATE] });
    expect(await check()).toMatchObject({ ok: true, passed: true });
    rmSync(g.file("result-1.json"));
    const after = await check();
    expect(after).toMatchObject({ ok: true, passed: false });
  });
});
