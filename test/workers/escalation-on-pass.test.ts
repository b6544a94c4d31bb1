// A stray escalation on a round whose reviewer passed is not the broker's (SPEC §6, escalation-<n>.json): the broker
// raises nothing on a pass that re-derives but its outcome, so nobody can turn the reviewer's pass into a force-pass,
// an extra round or a stop. Only a pass that does not re-derive from its sealed result is the broker's no_verdict.
import { existsSync, mkdirSync, readFileSync, utimesSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { decideEscalation } from "../../src/commands/author.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { sha256Hex } from "../../src/core/sha.js";
import { forgedPassingVerdict } from "../helpers/forged.js";
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
    const choice = options.includes("force-pass") ? "force-pass" : "stop";
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
    const result = readFileSync(g.file("result-1.json"));
    mkdirSync(g.file(".verified"), { recursive: true });
    g.drop(".verified/result-1.json", result.toString("utf8"));
    const forged = forgedPassingVerdict({
      run,
      gate: GATE,
      round: 1,
      packetId: g.field("packet_id"),
      packetSha: sha256Hex(readFileSync(g.file("packet-1.md"))),
      resultSha: sha256Hex(result),
      artifactSha: g.field("artifact_sha256"),
    });
    g.drop("verdict-1.json", JSON.stringify(forged));
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
});
