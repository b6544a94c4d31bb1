// A reviewer may put a blocker in blocking_findings alone, beside an empty or partial `findings` list: the gate
// counts it (SPEC §11 condition 5), so every face that tells the author what to fix — the MCP findings and wait tools
// (findingsOf), the stop hook's reason, status's last_round, trail.md and the console's timeline — must list it.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { roundFindings } from "../../src/commands/findings.js";
import { gateStatuses } from "../../src/commands/status.js";
import { stopGate } from "../../src/commands/stop-gate.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const BLOCKER = "SQL injection in the login handler";

async function gateWith(findings: unknown[]) {
  const run = `blockers-${findings.length}`;
  const g = await gateWithPacket(run);
  g.dropResult({ verdict: "issues", findings, blocking_findings: [{ severity: "blocking", title: BLOCKER }] });
  await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
  await stepGate(loadContext(g.layout), run, GATE);
  return { ...g, run };
}

describe("a blocker listed only in blocking_findings", () => {
  for (const findings of [[], [{ severity: "low", title: "a typo in §2" }]]) {
    it(`is shown to the author beside findings ${JSON.stringify(findings)}`, async () => {
      const { layout, run, file } = await gateWith(findings);
      const ctx = loadContext(layout);

      const found = roundFindings(ctx, run, GATE);
      expect(found.ok && found.findings.map((f) => f.title)).toContain(BLOCKER);
      if (findings.length) expect(found.ok && found.findings.map((f) => f.title)).toContain("a typo in §2");

      const status = gateStatuses(ctx, { run, gate: GATE });
      expect(status.ok && status.rows[0]!.last_round?.findings.map((f) => f.title)).toContain(BLOCKER);

      writeFileSync(layout.settings, JSON.stringify({ stop_gate: { enabled: true } }));
      const hook = await stopGate(loadContext(layout), "claude-code");
      expect(hook.block && hook.reason).toContain(BLOCKER);

      expect(readFileSync(file("trail.md"), "utf8")).toContain(BLOCKER);

      const timeline = gateTimeline(loadContext(layout), run, GATE);
      expect(timeline.rounds.flatMap((r) => r.findings.map((f) => f.title))).toContain(BLOCKER);
    });
  }

  it("is shown as a blocker where findings gives the same title a lower severity", async () => {
    const { layout, run } = await gateWith([{ severity: "low", title: BLOCKER }]);
    const found = roundFindings(loadContext(layout), run, GATE);
    expect(found.ok && found.findings.filter((f) => f.title === BLOCKER).map((f) => f.severity)).toEqual(["blocking"]);
  });
});
