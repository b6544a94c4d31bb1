// `check` gives CI's verdict, so it is never reached on settings the project did not write: the CLI refused settings
// with problems before it called check, but the MCP `check` tool judged on what was left of them. A key dropped for one
// bad value (here family_aliases, which makes the reviewer's model ambiguous) passed a gate the project's settings fail.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inMemoryMcp, textOf } from "../helpers/mcp-client.js";
import { loadContext } from "../../src/bus/context.js";
import { checkGates } from "../../src/commands/check.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("check and status on settings with problems", () => {
  it("are refused on every face, never judged on the settings that are left", async () => {
    const run = "passed";
    const { layout, dropResult } = await gateWithPacket(run);
    dropResult();
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    expect(await checkGates(loadContext(layout), { require: [GATE] })).toMatchObject({ ok: true, passed: true });

    // what the project meant: gpt-5 is served by anthropic here, so the pass is not strong
    const meant = { "gpt-5": "anthropic" };
    writeFileSync(layout.settings, JSON.stringify({ family_aliases: meant }));
    expect(await checkGates(loadContext(layout), { require: [GATE] })).toMatchObject({ ok: true, passed: false });

    // the same with one bad value beside it: the key is dropped, and its defaults would pass the gate
    writeFileSync(layout.settings, JSON.stringify({ family_aliases: { ...meant, mycorp: "not-a-family" } }));
    const refused = await checkGates(loadContext(layout), { require: [GATE] });
    expect(refused).toMatchObject({ ok: false });
    expect(!refused.ok && refused.error).toMatch(/family_aliases\.mycorp.*no gate was judged — fix the settings first/);

    const mcp = await inMemoryMcp(layout);
    try {
      const answer = await mcp.call("check", { require: [GATE] });
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).not.toMatch(/^PASS/m);
      expect(textOf(answer)).toMatch(/family_aliases\.mycorp/);
      // status too names the problem and judges no gate (it showed the pass, under a "settings problem" line)
      const status = await mcp.call("status", {});
      expect(textOf(status)).toMatch(/^settings problem \(tell the user\): .*family_aliases\.mycorp/);
      expect(textOf(status)).not.toMatch(/satisfied/);
      expect(status.structuredContent).toMatchObject({ gates: [] });
    } finally {
      await mcp.close();
    }
  });
});
