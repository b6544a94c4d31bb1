// Whether a strong round answered from outside the bus went to a reviewer a person named (an `external` provider the
// settings configure) is asked while the round is open, before the verifier seals its verdict (SPEC §7, §13): the
// broker's judgement of a sealed pass and the evidence for its no_verdict then read request.json alone, so a providers
// edit after the seal neither turns the pass into a no_verdict nor makes a stray no_verdict on it the broker's.
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { stepGate } from "../../src/workers/broker.js";
import { readGateLive } from "../../src/workers/issued-packets.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket, strayMovedAside } from "../helpers/one-gate.js";

const past = () => new Date(Date.now() - 60_000); // past the grace a foreign writer has to finish a file in place
const EXTERNAL = { providers: { ext: { adapter: "external", model: "gpt-5" } } };
type Gate = Awaited<ReturnType<typeof gateWithPacket>>;

const setSettings = (g: Gate, settings: Record<string, unknown>) =>
  writeFileSync(path.join(g.root, ".guild", "settings.json"), JSON.stringify(settings));

const verify = (g: Gate, run: string) => verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);

/** Round 1 sent to the configured external reviewer (gpt-5, for claude's artifact), answered satisfied. */
async function externalRound(run: string): Promise<Gate> {
  const g = await gateWithPacket(run, { settings: EXTERNAL, reviewer: "ext" });
  expect(g.field("reviewer_adapter")).toBe("external");
  expect(g.field("independence")).toBe("strong");
  g.dropResult();
  return g;
}

describe("a sealed pass of an external round, after the provider is taken out of the settings", () => {
  it("ends satisfied as it was issued (no no_verdict), and is reported as a pass", async () => {
    const run = "providers-sealed";
    const g = await externalRound(run);
    await verify(g, run);
    expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ independence_violation: false });
    setSettings(g, {});
    const ctx = loadContext(g.layout);
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("escalation-1.json"))).toBe(false);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied", independence: "strong" });
    expect(viewGate(ctx, run, GATE).unproven).toBeUndefined(); // `status`, `wait` and the stop hook report it as a pass
  });

  it("keeps a stray no_verdict dropped on it foreign: the broker moves it aside and the round ends satisfied", async () => {
    const run = "providers-stray";
    const g = await externalRound(run);
    await verify(g, run);
    const stray = { schema_version: "guild_bus.escalation.v1", run_id: run, gate: GATE, round: 1, reason: "no_verdict" };
    g.drop(
      "escalation-1.json",
      JSON.stringify({ ...stray, detail: "dropped", options: ["retry", "force-pass", "rework"], at: new Date().toISOString() }),
    );
    utimesSync(g.file("escalation-1.json"), past(), past());
    setSettings(g, {});
    await strayMovedAside(g, run);
  });
});

describe("an external round whose provider the settings no longer configure while it is open", () => {
  it("gets no verdict: its answer is kept and a person is asked (no_verdict), as for a packet that is not the broker's", async () => {
    const run = "providers-open";
    const g = await externalRound(run);
    setSettings(g, {});
    await verify(g, run);
    expect(existsSync(g.file("verdict-1.json"))).toBe(false);
    expect(existsSync(g.file("result-1.json"))).toBe(true); // an answer a person may have paid for: never moved aside
    const ctx = loadContext(g.layout);
    expect(readGateLive(ctx, run, GATE).problems).toContainEqual(
      expect.objectContaining({ file: "packet-1.md", reason: expect.stringContaining("which settings do not configure so") }),
    );
    utimesSync(g.file("packet-1.md"), past(), past());
    await stepGate(ctx, run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({
      reason: "no_verdict",
      detail: expect.stringContaining("which settings do not configure so"),
    });
    expect(readFileSync(g.file("packet-1.md"), "utf8")).toContain("reviewer_provider: ext"); // kept, not moved aside
  });
});
