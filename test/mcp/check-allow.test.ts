// The MCP `check` tool is the CLI's `check` (SPEC §25): it checks only the gates named, and accepts a weak pass and a
// human's force-pass only when asked, as `--gate`, `--allow-weak` and `--allow-force-pass` do: without those inputs an MCP
// client could not ask the question a project's CI asks with them.
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { decideEscalation } from "../../src/commands/author.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { inMemoryMcp, textOf } from "../helpers/mcp-client.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

async function checkTwice(g: { layout: Parameters<typeof inMemoryMcp>[0] }, allow: Record<string, boolean>) {
  const mcp = await inMemoryMcp(g.layout);
  try {
    return [await mcp.call("check", { require: [GATE] }), await mcp.call("check", { require: [GATE], ...allow })];
  } finally {
    await mcp.close();
  }
}

describe("the MCP check tool's gates, allow_weak and allow_force_pass", () => {
  it("gates checks only the gates named, as --gate does", async () => {
    const g = await gateWithPacket("two");
    g.dropResult();
    await verifyGate(loadContext(g.layout), "two", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), "two", GATE);
    // another gate of the project, still under review
    expect(
      await requestReview(g.layout, { artifact: "docs/spec.md", gate: "G-plan", author: "claude", reviewer: "manual", runId: "two" }),
    ).toMatchObject({ ok: true });
    const mcp = await inMemoryMcp(g.layout);
    try {
      const every = await mcp.call("check", {});
      expect(textOf(every)).toMatch(/^FAIL two G-plan /m);
      const one = await mcp.call("check", { gates: [GATE] });
      expect(textOf(one)).toMatch(/^PASS two G-spec /m);
      expect(textOf(one)).not.toMatch(/G-plan/);
      expect(one.structuredContent).toMatchObject({ passed: true });
      const refused = await mcp.call("check", { gates: ["not a gate"] });
      expect(refused.isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });

  it("allow_weak accepts a pass by a reviewer of the author's family, as --allow-weak does", async () => {
    const g = await gateWithPacket("weak");
    // the reviewer reports a model of the author's family: the pass is recorded weak
    g.dropResult({ reviewer_model: "claude-sonnet-4-5" });
    await verifyGate(loadContext(g.layout), "weak", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), "weak", GATE);
    const [plain, allowed] = await checkTwice(g, { allow_weak: true });
    expect(textOf(plain!)).toMatch(/^FAIL weak G-spec .*not strong \(allow with --allow-weak, `allow_weak` over MCP\)/m);
    expect(plain!.structuredContent).toMatchObject({ passed: false });
    expect(textOf(allowed!)).toMatch(/^PASS weak G-spec /m);
    expect(allowed!.structuredContent).toMatchObject({ passed: true });
  });

  it("allow_force_pass accepts a gate a human force-passed, as --allow-force-pass does", async () => {
    const g = await gateWithPacket("forced", { cap: 1 });
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "the cache bound is unstated" }] });
    await verifyGate(loadContext(g.layout), "forced", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), "forced", GATE);
    const decided = await decideEscalation(loadContext(g.layout), "forced", GATE, { choice: "force-pass", decidedBy: "me" });
    expect(decided).toMatchObject({ ok: true });
    await stepGate(loadContext(g.layout), "forced", GATE);
    const [plain, allowed] = await checkTwice(g, { allow_force_pass: true });
    expect(textOf(plain!)).toMatch(
      /^FAIL forced G-spec .*force-passed by a human decision \(allow with --allow-force-pass, `allow_force_pass` over MCP\)/m,
    );
    expect(textOf(allowed!)).toMatch(/^PASS forced G-spec .*force_passed at round 1/m);
    expect(allowed!.structuredContent).toMatchObject({ passed: true });
  });
});
