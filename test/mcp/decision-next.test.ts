// wait's next step at a human decision (exit 4) never tells the client to call what decide refuses it (SPEC §25):
// any answer to a human checkpoint, and force-pass, are the user's to run; nor do the loop and /decide commands.
import { describe, expect, it } from "vitest";
import { inMemoryMcp } from "../helpers/mcp-client.js";
import { claudeCommands, GEMINI_COMMANDS, PLUGIN_SKILL, REVIEW_LOOP } from "../../src/commands/host-files.js";
import { loadContext } from "../../src/bus/context.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

async function escalated(run: string, o: { humanCheckpoint?: boolean; cap?: number }) {
  const g = await gateWithPacket(run, o);
  g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "broken" }] });
  await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
  await stepGate(loadContext(g.layout), run, GATE);
  return inMemoryMcp(g.layout);
}

describe("wait at a human decision", () => {
  it("a human checkpoint: the user answers it, the client is not told to call decide", async () => {
    const { call, close } = await escalated("checkpoint", { humanCheckpoint: true });
    try {
      const waited = await call("wait", { run_id: "checkpoint", gate: GATE, timeout_seconds: 1 });
      expect(waited.structuredContent!.options).toContain("continue");
      const next = waited.structuredContent!.next!;
      expect(next).toMatch(/^a human decision is needed/);
      expect(next).toContain("`guild-bus decide checkpoint G-spec continue|stop|rework --round 1`");
      expect(next).not.toMatch(/then call decide/);
      // status says the same, with the run, the gate and the round decide needs: no placeholder to fill in
      const shown = await call("status", { run_id: "checkpoint", gate: GATE });
      expect(JSON.stringify(shown.structuredContent)).toContain(
        "guild-bus decide checkpoint G-spec continue|stop|rework --round 1 [--note",
      );
      expect(JSON.stringify(shown.structuredContent)).not.toContain("<run>");
      // what the next step would have had it do is refused
      expect((await call("decide", { run_id: "checkpoint", gate: GATE, choice: "continue" })).isError).toBe(true);
      // and what the hosts are taught says so: a /decide of the user's continue is handed back as the command to run
      for (const taught of [REVIEW_LOOP, claudeCommands(PLUGIN_SKILL).decide!, GEMINI_COMMANDS.decide!])
        expect(taught.replace(/\s+/g, " ")).toMatch(
          /refuses force-pass and any answer to a human checkpoint|any answer to a human checkpoint \(continue, stop, rework\), are the user's own/,
        );
    } finally {
      await close();
    }
  });

  it("an escalation offering force-pass: the client decides the rest, the user force-passes", async () => {
    const { call, close } = await escalated("capped", { cap: 1 });
    try {
      const waited = await call("wait", { run_id: "capped", gate: GATE, timeout_seconds: 1 });
      expect(waited.structuredContent!.options).toContain("force-pass");
      const force = "force-pass is theirs to run (`guild-bus decide capped G-spec force-pass --round 1`";
      expect(waited.structuredContent!.next).toContain(force);
      // the round goes with the call it is told to make: decide refuses to name none past round 1
      expect(waited.structuredContent!.next).toMatch(
        /^a human decision is needed: ask the user, then call decide with the option they chose and round 1;/,
      );
    } finally {
      await close();
    }
  });
});
