// An escalation dropped while the gate waits for the author is not the broker's (foreignEscalationProblem), and the
// author's answer that follows (a resubmit) must not make it one: a person would then be offered, and could choose,
// force-pass on a round whose reviewer found blockers and that no broker ever escalated. Found by bounded exhaustive
// exploration of the gate's interleavings (stray escalation, then resubmit, then decide force-pass).
import { existsSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { decideEscalation, resubmit } from "../../src/commands/author.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket, stalledAtUnchangedResubmit } from "../helpers/one-gate.js";

const stray = (run: string, reason: string) =>
  JSON.stringify({
    schema_version: "guild_bus.escalation.v1",
    run_id: run,
    gate: GATE,
    round: 1,
    reason,
    detail: "dropped by another tool",
    options: ["retry", "force-pass", "rework"],
    at: new Date().toISOString(),
  });

describe("an escalation dropped during the author's turn", () => {
  it.each(["no_verdict", "cap_hit", "unavailable"])("stays foreign after the author resubmits (%s)", async (reason) => {
    const run = `before-answer-${reason.replace("_", "-")}`;
    const g = await gateWithPacket(run);
    const ctx = loadContext(g.layout);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    expect(viewGate(ctx, run, GATE).decision.state).toBe("awaiting_author");
    g.drop("escalation-1.json", stray(run, reason));
    writeFileSync(g.artifact, "# Spec\n\nrevised\n");
    expect(await resubmit(ctx, run, GATE)).toMatchObject({ ok: true });
    // the gate goes on to round 2 on the revised bytes; nobody is asked to decide round 1
    expect(viewGate(ctx, run, GATE).decision.state).not.toBe("awaiting_decision");
    expect(await decideEscalation(ctx, run, GATE, { choice: "force-pass", decidedBy: "me" })).toMatchObject({ ok: false });
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("outcome.json"))).toBe(false);
    expect(existsSync(g.file("packet-2.md"))).toBe(true);
  });

  it("the broker's own stall at the resubmit stays the broker's", async () => {
    const run = "before-answer-stall";
    const { ctx } = await stalledAtUnchangedResubmit(run);
    expect(viewGate(ctx, run, GATE).decision.state).toBe("awaiting_decision");
  });
});
