// An escalation is the broker's only when the gate's files lead the broker to its reason at its round (SPEC §6,
// escalation-<n>.json): one dropped on a round the broker would restart is not, whatever decide() does without it, so
// no person is asked to force-pass a round whose reviewer reviewed other bytes (found by the bounded explorer:
// broker > result1:otherbytes > verifier > stray escalation1 > decide1:force-pass > broker). The broker's own stays
// the broker's after the author edits the artifact, though decide() would restart the round on the new bytes now.
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { decideEscalation, resubmit } from "../../src/commands/author.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { failureRecord } from "../../src/core/dispatch-plan.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket, stalledAtUnchangedResubmit } from "../helpers/one-gate.js";

const past = () => new Date(Date.now() - 60_000); // past the grace a foreign writer has to finish a file in place
const OTHER_BYTES = "0".repeat(64);

describe("an escalation dropped on a round whose reviewer reviewed other bytes", () => {
  it.each([
    ["no_verdict", ["retry", "force-pass", "rework"]],
    ["identity_unverified", ["retry", "force-pass", "rework"]],
    ["cap_hit", ["force-pass", "extend-cap", "rework"]],
    ["restart_cap_hit", ["retry", "force-pass", "rework"]],
    ["stalled", ["force-pass", "extend-cap", "rework"]],
    ["unavailable", ["retry", "force-pass", "rework"]],
    ["artifact_missing", ["retry", "force-pass", "rework"]],
  ])("is not the broker's (%s): nobody can force-pass the round, and the broker restarts it", async (reason, options) => {
    const run = `other-bytes-${reason.replaceAll("_", "-")}`;
    const g = await gateWithPacket(run);
    const ctx = loadContext(g.layout);
    g.dropResult({ artifact_sha256_reviewed: OTHER_BYTES });
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    expect(existsSync(g.file("verdict-1.json"))).toBe(true);
    const stray = { schema_version: "guild_bus.escalation.v1", run_id: run, gate: GATE, round: 1, reason, detail: "dropped", options };
    g.drop("escalation-1.json", JSON.stringify({ ...stray, at: new Date().toISOString() }));
    const view = viewGate(ctx, run, GATE);
    expect(view.decision.state).not.toBe("awaiting_decision");
    expect(view.snapshot.problems).toContainEqual(
      expect.objectContaining({ file: "escalation-1.json", reason: expect.stringMatching(/^not the broker's: /) }),
    );
    expect(await decideEscalation(ctx, run, GATE, { choice: "force-pass", decidedBy: "someone" })).toMatchObject({ ok: false });
    utimesSync(g.file("escalation-1.json"), past(), past());
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("escalation-1.json"))).toBe(false);
    expect(existsSync(g.file("outcome.json"))).toBe(false);
    expect(existsSync(g.file("packet-2.md"))).toBe(true);
  });
});

describe("the broker's own escalation, after the author edits the artifact", () => {
  it.each([
    ["no_verdict", "a no_verdict failure"],
    ["identity_unverified", "a pass by a reviewer of no known family"],
    ["cap_hit", "findings at the cap"],
  ])("stays the broker's (%s, from %s), and a person may still force-pass it", async (reason) => {
    const run = `own-${reason.replaceAll("_", "-")}`;
    const g = await gateWithPacket(run, { cap: 1 });
    const ctx = loadContext(g.layout);
    if (reason === "no_verdict") {
      const P = readGate(g.layout, run, GATE).packets.get(1)!;
      const why = "the reviewer timed out";
      g.drop(
        "failure-1.json",
        JSON.stringify(failureRecord(P, { kind: "no_verdict", reason: why, attempts: [], at: new Date().toISOString() }, {})),
      );
    } else {
      g.dropResult(
        reason === "cap_hit"
          ? { verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] }
          : { reviewer_model: "mystery-model-7" },
      );
      await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    }
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason });
    writeFileSync(g.artifact, "# Spec\n\nrevised meanwhile\n");
    utimesSync(g.file("escalation-1.json"), past(), past());
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason });
    expect(viewGate(ctx, run, GATE).decision.state).toBe("awaiting_decision");
    expect(await decideEscalation(ctx, run, GATE, { choice: "force-pass", decidedBy: "me" })).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "force_passed" });
  });

  it("stays the broker's (stalled, from an unchanged resubmit) once the author edits the artifact", async () => {
    const run = "own-stalled";
    const { g, ctx } = await stalledAtUnchangedResubmit(run);
    writeFileSync(g.artifact, "# Spec\n\nrevised after the stall\n");
    utimesSync(g.file("escalation-1.json"), past(), past());
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "stalled" });
    expect(viewGate(ctx, run, GATE).decision.state).toBe("awaiting_decision");
  });
});

describe("the broker's own stall, after a resubmit that changed only a redacted secret", () => {
  it("stays the broker's (an unchanged resubmit after round 2, whose bytes round 1 reviewed with another secret)", async () => {
    const run = "own-stalled-redacted";
    const secret = (s: string) => `# Spec\n\nkey = ghp_${s}\n`;
    const g = await gateWithPacket(run, { text: secret("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5") });
    const ctx = loadContext(g.layout);
    const written = () => utimesSync(g.artifact, past(), past()); // settled: not a save in progress
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    // the scrubbed bytes stay those round 1 reviewed; the raw file does not, so no stall: round 2 is issued
    writeFileSync(g.artifact, secret("Zz3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zQQ"));
    written();
    expect(await resubmit(ctx, run, GATE)).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("packet-2.md"))).toBe(true);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "another defect" }] }, 2);
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    expect(await resubmit(ctx, run, GATE)).toMatchObject({ ok: true }); // unchanged since round 2: a stall
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-2.json"), "utf8"))).toMatchObject({
      reason: "stalled",
      stall: { pattern: "unchanged_resubmit" },
    });
    utimesSync(g.file("escalation-2.json"), past(), past());
    expect(viewGate(ctx, run, GATE).snapshot.problems).toEqual([]);
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-2.json"), "utf8"))).toMatchObject({ reason: "stalled" });
    expect(viewGate(ctx, run, GATE).decision.state).toBe("awaiting_decision");
  });
});
