// An outcome.json written by hand does not re-derive: the gate reads "unproven", and nothing of the outcome's own
// pass reaches status, wait, --json or an author command's refusal — not its word, nor "satisfied at round N".
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { decideEscalation, rebut, resubmit } from "../../src/commands/author.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";
import { forgedSatisfiedOutcome } from "../helpers/forged.js";

describe("a hand-written satisfied outcome", () => {
  it("shows no satisfied_at_round", async () => {
    const run = "forged";
    const g = await gateWithPacket(run);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "broken" }] });
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), run, GATE);
    writeFileSync(
      g.file("outcome.json"),
      JSON.stringify(
        forgedSatisfiedOutcome({
          run,
          gate: GATE,
          round: 1,
          artifactSha: g.field("artifact_sha256"),
          artifactRawSha: g.field("artifact_raw_sha256"),
          extra: { author_family_source: "host-map", identity_assurance: "declared" },
        }),
      ),
    );
    const view = viewGate(loadContext(g.layout), run, GATE);
    expect(view.output.status).toBe("unproven");
    expect(view.exitCode).toBe(2);
    expect(view.output).not.toHaveProperty("satisfied_at_round");
    // the author commands, on every face, say the gate as the row does: never "outcome satisfied"
    const ctx = loadContext(g.layout);
    const unproven = /\(state: unproven — outcome\.json says satisfied, but that does not re-derive from the gate's files: /;
    for (const refused of [
      await resubmit(ctx, run, GATE),
      await rebut(ctx, run, GATE, "no"),
      await decideEscalation(ctx, run, GATE, { choice: "force-pass", decidedBy: "me" }),
    ]) {
      expect(refused).toEqual({ ok: false, error: expect.stringMatching(unproven) });
      expect(refused.ok ? "" : refused.error).not.toMatch(/outcome satisfied/);
    }
  });
});
