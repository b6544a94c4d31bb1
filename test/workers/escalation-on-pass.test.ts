// A stray escalation on a round whose reviewer passed is not the broker's (SPEC §6, escalation-<n>.json): the broker
// raises nothing on a pass that re-derives but its outcome, so nobody can turn the reviewer's pass into a force-pass,
// an extra round or a stop. Only a pass that does not re-derive from its sealed result is the broker's no_verdict, and
// only an artifact that moved since the round was sent (other bytes now, or a write since) its restart_cap_hit.
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { decideEscalation } from "../../src/commands/author.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const past = () => new Date(Date.now() - 60_000); // past the grace a foreign writer has to finish a file in place
const CAP = ["force-pass", "extend-cap", "rework"];
const RETRY = ["retry", "force-pass", "rework"];

describe("an escalation dropped on a round whose reviewer passed", () => {
  it.each([
    ["no_verdict", RETRY],
    ["identity_unverified", RETRY],
    ["identity_unverified", RETRY, "claude-opus-4"], // a weak pass (the author's family) ends satisfied, as weak
    ["score_unavailable", RETRY],
    ["cap_hit", CAP],
    ["stalled", CAP],
    ["human_checkpoint", ["continue", "stop", "rework"]],
    ["artifact_missing", ["retry", "rework"]], // the artifact is there, holding the bytes passed, never written since
  ])("is not the broker's (%s): the round ends satisfied, as its reviewer passed it", async (reason, options, model?: string) => {
    const run = `pass-${reason.replaceAll("_", "-")}${model ? "-weak" : ""}`;
    const g = await gateWithPacket(run, { cap: 1, humanCheckpoint: true });
    const ctx = loadContext(g.layout);
    g.dropResult(model ? { reviewer_model: model } : {});
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    expect(existsSync(g.file("verdict-1.json"))).toBe(true);
    const stray = { schema_version: "guild_bus.escalation.v1", run_id: run, gate: GATE, round: 1, reason, detail: "dropped", options };
    g.drop("escalation-1.json", JSON.stringify({ ...stray, at: new Date().toISOString() }));
    expect(viewGate(ctx, run, GATE).snapshot.problems).toContainEqual(
      expect.objectContaining({ file: "escalation-1.json", reason: expect.stringMatching(/^not the broker's: /) }),
    );
    const choice = options.includes("force-pass") ? "force-pass" : options.includes("stop") ? "stop" : "rework";
    expect(await decideEscalation(ctx, run, GATE, { choice, decidedBy: "someone" })).toMatchObject({ ok: false });
    utimesSync(g.file("escalation-1.json"), past(), past());
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("escalation-1.json"))).toBe(false);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied" });
  });

  it("is the broker's own no_verdict when the pass does not re-derive from its sealed result, and stays so", async () => {
    const run = "pass-unproven";
    const g = await gateWithPacket(run);
    const ctx = loadContext(g.layout);
    // a forged passing verdict and seal over a result with a blocker: the broker escalates, never ends the gate
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    g.sealForgedPass();
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({
      reason: "no_verdict",
      detail: expect.stringContaining("does not re-derive"),
    });
    utimesSync(g.file("escalation-1.json"), past(), past());
    expect(viewGate(ctx, run, GATE).snapshot.problems).toEqual([]);
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("escalation-1.json"))).toBe(true);
    expect(viewGate(ctx, run, GATE).decision.state).toBe("awaiting_decision");
  });

  /** A gate under restart_cap 1 whose round 1 passed, the artifact then edited: round 2 (a restart) passes its bytes. */
  async function passedAfterRestart(run: string) {
    const g = await gateWithPacket(run, { settings: { restart_cap: 1 } });
    const ctx = loadContext(g.layout);
    g.dropResult({}, 1);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    writeFileSync(g.artifact, "# Spec\n\nedited\n");
    utimesSync(g.artifact, past(), past()); // settled: not a save in progress
    await stepGate(ctx, run, GATE);
    g.dropResult({}, 2);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    expect(existsSync(g.file("verdict-2.json"))).toBe(true);
    return { g, ctx };
  }

  it("is not the broker's (restart_cap_hit after the cap's restarts) while the artifact was not written since", async () => {
    const run = "pass-restart-cap";
    const { g, ctx } = await passedAfterRestart(run);
    const stray = { schema_version: "guild_bus.escalation.v1", run_id: run, gate: GATE, round: 2, reason: "restart_cap_hit" };
    g.drop("escalation-2.json", JSON.stringify({ ...stray, detail: "dropped", options: RETRY, at: new Date().toISOString() }));
    expect(viewGate(ctx, run, GATE).snapshot.problems).toContainEqual(
      expect.objectContaining({ file: "escalation-2.json", reason: expect.stringMatching(/^not the broker's: restart_cap_hit/) }),
    );
    expect(await decideEscalation(ctx, run, GATE, { choice: "force-pass", decidedBy: "someone", round: 2 })).toMatchObject({ ok: false });
    utimesSync(g.file("escalation-2.json"), past(), past());
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("escalation-2.json"))).toBe(false);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied", final_round: 2 });
  });

  it("is the broker's own restart_cap_hit after the artifact moved, and stays so when the bytes are put back", async () => {
    const run = "pass-restart-cap-own";
    const { g, ctx } = await passedAfterRestart(run);
    const passed = readFileSync(g.artifact, "utf8");
    writeFileSync(g.artifact, "# Spec\n\nedited again\n");
    utimesSync(g.artifact, past(), past());
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-2.json"), "utf8"))).toMatchObject({ reason: "restart_cap_hit" });
    writeFileSync(g.artifact, passed); // the bytes round 2 passed, written again
    utimesSync(g.artifact, past(), past());
    utimesSync(g.file("escalation-2.json"), past(), past());
    expect(viewGate(ctx, run, GATE).snapshot.problems).toEqual([]);
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("escalation-2.json"))).toBe(true);
    expect(viewGate(ctx, run, GATE).decision.state).toBe("awaiting_decision");
  });
});
