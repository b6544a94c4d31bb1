// A reviewer's findings reach the author host unasked in the stop hook's reason and the MCP wait answer: 50 findings
// of 25 000 characters made each over 1.2 MB (Claude Code refuses an MCP answer past 25 000 tokens, and a hook's reason
// that size fills the author's context). Each line and the lines together are bounded; the rest is named by file.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inMemoryMcp } from "../helpers/mcp-client.js";
import { loadContext } from "../../src/bus/context.js";
import { stopGate } from "../../src/commands/stop-gate.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("huge findings shown to the author host", () => {
  it("are bounded in the stop hook's reason and the MCP wait answer", async () => {
    const run = "flood";
    const g = await gateWithPacket(run);
    const findings = Array.from({ length: 50 }, (_, i) => ({ severity: "blocking", title: `finding ${i} ${"word ".repeat(5_000)}` }));
    g.dropResult({ verdict: "issues", findings, blocking_findings: findings });
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), run, GATE);

    writeFileSync(g.layout.settings, JSON.stringify({ stop_gate: { enabled: true } }));
    const hook = await stopGate(loadContext(g.layout), "claude-code");
    const reason = hook.block ? hook.reason : "";
    expect(reason).toContain("finding 0 ");
    expect(reason.length).toBeLessThan(30_000);
    expect(reason).toMatch(/… and \d+ more finding\(s\): the whole list is in \.guild\/runs\/flood\/review\/G-spec\/result-1\.json/);
    expect(reason).toContain("Stop-gate block 1 of 2"); // the way out is still said

    const mcp = await inMemoryMcp(g.layout);
    try {
      const r = await mcp.call("wait", { run_id: run, gate: GATE, timeout_seconds: 1 });
      const text = (r.content[0] as { text: string }).text;
      expect(text).toContain("finding 0 ");
      expect(text.length).toBeLessThan(30_000);
      expect(text).toContain("Next: revise the artifact");
      expect(text).toContain("result-1.json");
    } finally {
      await mcp.close();
    }
  });
});
