// A ruling round is judged on the contested findings as its packet showed them to the reviewer (SPEC §7
// `contested_titles`, §21.2): the titles are recorded in the packet, bound by its sha and proven the broker's while the
// round is open, so a redaction-patterns edit after the seal changes neither the broker's judgement of the ruling's pass
// (no no_verdict it would move aside again once the edit is undone) nor what `check` says of it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { planStep } from "../../src/core/broker-plan.js";
import { parsePacket } from "../../src/core/packet.js";
import { brokerInput } from "../../src/workers/gate-reads.js";
import { rebut } from "../../src/commands/author.js";
import { checkGates } from "../../src/commands/check.js";
import { stepGate } from "../../src/workers/broker.js";
import { readGateLive } from "../../src/workers/issued-packets.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

const REDACT = { secrets_policy: { redaction_patterns: ["ACME-[0-9]+"] } };
type Gate = Awaited<ReturnType<typeof gateWithPacket>>;

const setSettings = (g: Gate, settings: Record<string, unknown>) =>
  writeFileSync(path.join(g.root, ".guild", "settings.json"), JSON.stringify(settings));

/** Round 1 blocked on one finding of this title, verified, and contested by the author. */
async function rebutted(run: string, title: string, settings?: Record<string, unknown>) {
  const g = await gateWithPacket(run, { difficulty: "hard", ...(settings ? { settings } : {}) });
  const ctx = loadContext(g.layout);
  const verify = () => verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
  g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title }] });
  await verify();
  await stepGate(ctx, run, GATE);
  expect(await rebut(ctx, run, GATE, "Not a defect.")).toMatchObject({ ok: true });
  return { g, ctx, verify };
}

/** `rebutted`, and the broker has issued the ruling packet-2. */
async function contested(run: string, title: string, settings?: Record<string, unknown>) {
  const rebuttal = await rebutted(run, title, settings);
  await stepGate(rebuttal.ctx, run, GATE);
  return rebuttal;
}

/** Round 1 blocked on a finding whose title the redaction patterns scrub, contested, and the ruling round 2 answered
 * withdrawing it by the title its packet showed, and verified. */
async function rulingWithdrawn(run: string): Promise<Gate> {
  const { g, verify } = await contested(run, "Key ACME-123 leaks", REDACT);
  const shown = readFileSync(g.file("packet-2.md"), "utf8");
  const title = /^### Finding 1: (.+)$/m.exec(shown)![1]!;
  expect(title).not.toContain("ACME-123");
  g.dropResult({ rulings: [{ finding: title, ruling: "withdrawn", reason: "fixed" }] }, 2);
  await verify();
  expect(JSON.parse(readFileSync(g.file("verdict-2.json"), "utf8"))).toMatchObject({ rulings: { upheld: 0, withdrawn: 1 } });
  return g;
}

describe("a ruling round's sealed pass, after the redaction patterns change", () => {
  it("ends satisfied as sealed: the broker raises no no_verdict that undoing the edit would move aside", async () => {
    const run = "ruling-redaction-broker";
    const g = await rulingWithdrawn(run);
    setSettings(g, {});
    await stepGate(loadContext(g.layout), run, GATE);
    expect(existsSync(g.file("escalation-2.json"))).toBe(false);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied", final_round: 2 });
  });

  it("checks as passed whatever the redaction patterns say since", async () => {
    const run = "ruling-redaction-check";
    const g = await rulingWithdrawn(run);
    await stepGate(loadContext(g.layout), run, GATE);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied" });
    setSettings(g, {});
    expect(await checkGates(loadContext(g.layout), { require: [GATE] })).toMatchObject({ ok: true, passed: true });
  });
});

describe("a ruling packet whose recorded titles are not the ones it shows", () => {
  it("is not the broker's: no worker acts on it", async () => {
    const run = "ruling-titles-planted";
    const { g, ctx } = await contested(run, "Key ACME-123 leaks", REDACT);
    const text = readFileSync(g.file("packet-2.md"), "utf8");
    expect(text).toMatch(/^contested_titles: \["Key .+ leaks"\]$/m);
    g.drop("packet-2.md", text.replace(/^contested_titles: .*$/m, 'contested_titles: ["anything"]'));
    expect(readGateLive(ctx, run, GATE).problems).toContainEqual(
      expect.objectContaining({ file: "packet-2.md", reason: expect.stringContaining("is not the packet the broker issues") }),
    );
  });
});

describe("the broker's ruling packet", () => {
  it("is planned with the front matter its file holds (what the broker plans from next, without reading it back)", async () => {
    const run = "ruling-planned";
    const { g, ctx } = await rebutted(run, "a defect");
    const s = readGate(g.layout, run, GATE);
    const step = planStep(s, brokerInput(ctx, s, null));
    expect(step).toMatchObject({ type: "write", name: "packet-2.md" });
    if (step.type !== "write") return;
    expect(step.packet).toEqual(parsePacket(step.text).front);
    expect(step.packet?.contested_titles).toEqual(["a defect"]);
  });
});

describe("a ruling packet of the previous build (its maps inline, no contested_titles)", () => {
  it("is still the broker's after an upgrade mid-round: its ruling ends the gate", async () => {
    const run = "ruling-previous-build";
    const { g, ctx, verify } = await contested(run, "a defect");
    const issued = readFileSync(g.file("packet-2.md"), "utf8");
    // what the previous build wrote for this round: the same text, its maps inline and no titles recorded
    const previous = issued
      .replace(/^contested_titles: .*\n/m, "")
      .replace(/^family_maps_sha256: .*$/m, 'family_maps: {"family_aliases":{},"host_families":{}}');
    g.drop("packet-2.md", previous);
    expect(readGateLive(ctx, run, GATE).problems).toEqual([]);
    // ...but titles recorded without the maps' sha are not the previous build's: the titles it shows are the broker's
    const titled = issued
      .replace(/^family_maps_sha256: .*$/m, 'family_maps: {"family_aliases":{},"host_families":{}}')
      .replace(/^contested_titles: .*$/m, 'contested_titles: ["anything"]')
      .replace(/^### Finding 1: .*$/m, "### Finding 1: anything");
    g.drop("packet-2.md", titled);
    expect(readGateLive(ctx, run, GATE).problems).toContainEqual(
      expect.objectContaining({ file: "packet-2.md", reason: expect.stringContaining("is not the packet the broker issues") }),
    );
    g.drop("packet-2.md", previous);
    g.dropResult({ rulings: [{ finding: "a defect", ruling: "withdrawn", reason: "fixed" }] }, 2);
    await verify();
    await stepGate(ctx, run, GATE);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied", independence: "strong" });
  });
});
