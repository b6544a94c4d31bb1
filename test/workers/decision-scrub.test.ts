// A decision's free text reaches trail.md and the console. `guild-bus decide` scrubs its note, but a decision file
// may come from any tool (SPEC §3): one dropped with a secret in its note or decided_by was shown as it was, where a
// result's findings, a memory or a rebuttal from a foreign writer are scrubbed before any view shows them.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const KEY = "AKIAIOSFODNN7EXAMPLE";
const TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";

describe("a decision dropped by another tool", () => {
  it("is shown with its note and decided_by scrubbed, in trail.md and on the console's page", async () => {
    const run = "dropped-decision";
    const g = await gateWithPacket(run, { cap: 1 });
    const ctx = loadContext(g.layout);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "cap_hit" });
    g.drop(
      "decision-1.json",
      JSON.stringify({
        schema_version: "guild_bus.decision.v1",
        run_id: run,
        gate: GATE,
        round: 1,
        choice: "rework",
        note: `rotate ${KEY} first`,
        decided_by: `ci ${TOKEN}`,
        at: new Date().toISOString(),
      }),
    );
    await stepGate(ctx, run, GATE);
    const trail = readFileSync(g.file("trail.md"), "utf8");
    expect(trail).toMatch(/- decision: rework — rotate \[REDACTED:[^\]]+\] first \(by ci \[REDACTED:[^\]]+\],/);
    const decision = gateTimeline(ctx, run, GATE).rounds.find((r) => r.round === 1)!.decision!;
    expect(decision.note).toMatch(/^rotate \[REDACTED:[^\]]+\] first$/);
    expect(JSON.stringify(decision)).not.toMatch(new RegExp(`${KEY}|${TOKEN}`));
  });
});
