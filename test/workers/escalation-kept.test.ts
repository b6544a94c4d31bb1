// The broker's own escalation stays the broker's while the person has not decided: a file that arrives since (a
// "previous dispatch" no_verdict failure, planted or landing late) or an artifact briefly away (a branch switch) may
// lead decide() elsewhere now, but only an escalation whose round still waits on a worker or the author is foreign.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, utimesSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { decideEscalation, resubmit } from "../../src/commands/author.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { failureRecord } from "../../src/core/dispatch-plan.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket, goneAWhile } from "../helpers/one-gate.js";

const past = () => new Date(Date.now() - 60_000); // past the grace a foreign writer has to finish a file in place
const movedEscalations = (dir: string) =>
  existsSync(path.join(dir, "rejected"))
    ? readdirSync(path.join(dir, "rejected")).filter((f) => f.startsWith("escalation-") && !f.endsWith(".reason.json"))
    : [];

describe("the broker's escalation", () => {
  it.each([false, true])("stays when a no_verdict failure lands after it (its decision written: %s)", async (decided) => {
    const run = `late-failure-${decided}`;
    const g = await gateWithPacket(run, { cap: 1 });
    const ctx = loadContext(g.layout);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    if (decided) {
      expect(await decideEscalation(ctx, run, GATE, { choice: "extend-cap", extendBy: 1, decidedBy: "me" })).toMatchObject({ ok: true });
      await stepGate(ctx, run, GATE);
    }
    const P = readGate(g.layout, run, GATE).packets.get(1)!;
    const reason = "a previous dispatch (attempt-1.json) ended without a result; not dispatching a paid review twice";
    g.drop(
      "failure-1.json",
      JSON.stringify(failureRecord(P, { kind: "no_verdict", reason, attempts: [], at: new Date().toISOString() }, {})),
    );
    for (let i = 0; i < 4; i++) {
      for (const f of ["escalation-1.json", "decision-1.json"]) if (existsSync(g.file(f))) utimesSync(g.file(f), past(), past());
      await stepGate(ctx, run, GATE);
    }
    expect(movedEscalations(g.layout.gateDir(run, GATE))).toEqual([]);
    expect(viewGate(ctx, run, GATE).decision.state).toBe(decided ? "awaiting_author" : "awaiting_decision");
  });

  it("a stall stays a stall while the artifact is briefly away", async () => {
    const g = await gateWithPacket("stall-away");
    const ctx = loadContext(g.layout);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx, "stall-away", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, "stall-away", GATE);
    expect(await resubmit(ctx, "stall-away", GATE)).toMatchObject({ ok: true }); // unchanged: a stall
    await stepGate(ctx, "stall-away", GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "stalled" });
    utimesSync(g.file("escalation-1.json"), past(), past());
    renameSync(g.artifact, `${g.artifact}.away`);
    goneAWhile(g.artifact); // away for longer than a save takes: the step reads it as missing
    await stepGate(ctx, "stall-away", GATE);
    renameSync(`${g.artifact}.away`, g.artifact);
    expect(movedEscalations(g.layout.gateDir("stall-away", GATE))).toEqual([]);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "stalled" });
  });
});

describe("an artifact gone for a moment", () => {
  it("is not escalated while its directory just changed (a save or checkout replacing it); gone a while, it is", async () => {
    const g = await gateWithPacket("saved-away");
    const ctx = loadContext(g.layout);
    g.dropResult();
    rmSync(g.artifact); // emacs's first save, `git checkout`: the file is gone, then written anew
    await expect(verifyGate(ctx, "saved-away", GATE, () => undefined, Date.now() + 60_000)).rejects.toThrow(
      /the artifact cannot be read for now: docs\/spec\.md: no such file/,
    );
    // the broker waits for the verifier: nothing it does then reads the artifact
    expect((await stepGate(ctx, "saved-away", GATE)).decision.state).toBe("verifying");
    expect(readdirSync(g.layout.gateDir("saved-away", GATE))).not.toContain("escalation-1.json");
    goneAWhile(g.artifact);
    await verifyGate(ctx, "saved-away", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, "saved-away", GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "artifact_missing" });
  });
});
