// Whether a round's pass re-derives is judged under the family classification in force when its packet was issued
// (SPEC §7 `family_maps`, §6 escalation-<n>.json): the broker's own no_verdict on a pass stays its own when
// family_aliases or host_families are edited after it, a stray no_verdict does not become the broker's by such an edit,
// and an edit after the round was sealed re-judges nothing. The verifier seals a violation under the recorded maps or
// the settings then, so no map a packet records can make a review by the author's family strong.
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { decideEscalation } from "../../src/commands/author.js";
import { checkGates } from "../../src/commands/check.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket, strayMovedAside } from "../helpers/one-gate.js";

const past = () => new Date(Date.now() - 60_000); // past the grace a foreign writer has to finish a file in place
type Gate = Awaited<ReturnType<typeof gateWithPacket>>;

const setSettings = (g: Gate, settings: Record<string, unknown>) =>
  writeFileSync(path.join(g.root, ".guild", "settings.json"), JSON.stringify(settings));

const verify = (g: Gate, run: string) => verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);

/** Round 1 answered by a model no family of the settings in force knows, under a forged strong verdict: the broker's no_verdict. */
async function unknownReviewerNoVerdict(run: string): Promise<Gate> {
  const g = await gateWithPacket(run);
  g.dropResult({ reviewer_model: "acme-1" });
  g.sealForgedPass();
  await stepGate(loadContext(g.layout), run, GATE);
  expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({
    reason: "no_verdict",
    detail: expect.stringContaining("acme-1"),
  });
  return g;
}

/** A no_verdict dropped on round 1, whose reviewer (gpt-5, for claude's artifact) passed it and the verifier sealed. */
async function strayOnPass(run: string): Promise<Gate> {
  const g = await gateWithPacket(run);
  g.dropResult();
  await verify(g, run);
  expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ independence_violation: false });
  const stray = { schema_version: "guild_bus.escalation.v1", run_id: run, gate: GATE, round: 1, reason: "no_verdict" };
  g.drop(
    "escalation-1.json",
    JSON.stringify({ ...stray, detail: "dropped", options: ["retry", "force-pass", "rework"], at: new Date().toISOString() }),
  );
  utimesSync(g.file("escalation-1.json"), past(), past());
  return g;
}

describe("the broker's no_verdict on a pass, after the family settings change", () => {
  it("stays the broker's when family_aliases now name the reviewer's family", async () => {
    const run = "families-aliases-own";
    const g = await unknownReviewerNoVerdict(run);
    setSettings(g, { family_aliases: { "acme-1": "openai" } });
    const ctx = loadContext(g.layout);
    utimesSync(g.file("escalation-1.json"), past(), past());
    expect(viewGate(ctx, run, GATE).snapshot.problems).toEqual([]);
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("escalation-1.json"))).toBe(true);
    expect(readGate(g.layout, run, GATE).outcome).toBeNull();
    expect(await decideEscalation(ctx, run, GATE, { choice: "rework", decidedBy: "me", round: 1 })).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "rework" });
  });

  it("records the families of any other end as the round's packet's maps class them, not as the settings now do", async () => {
    const run = "families-rework-author";
    const g = await unknownReviewerNoVerdict(run);
    setSettings(g, { host_families: { claude: "google" } });
    const ctx = loadContext(g.layout);
    expect(await decideEscalation(ctx, run, GATE, { choice: "rework", decidedBy: "me", round: 1 })).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({
      status: "rework",
      author_family: "anthropic",
      author_family_source: "host-map",
      reviewer_family: "openai", // the forged verdict's gpt-5
      family_relation: "different",
    });
  });

  it.each([
    ["host_families", { host_families: { claude: "openai" } }], // the author now of the reviewer's family
    ["family_aliases", { family_aliases: { "gpt-5": "anthropic" } }], // the reviewer now of no one family
  ])("ends a sealed pass weak when %s now class its reviewer with the author (no no_verdict), as check judges it", async (_, settings) => {
    const run = `families-sealed-${_.replace("_", "-")}`;
    const g = await gateWithPacket(run);
    g.dropResult();
    await verify(g, run);
    mkdirSync(path.join(g.root, ".guild"), { recursive: true });
    setSettings(g, settings);
    const ctx = loadContext(g.layout);
    await stepGate(ctx, run, GATE);
    expect(existsSync(g.file("escalation-1.json"))).toBe(false);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied", independence: "weak" });
    // every face judges the pass as the broker wrote it: re-derived (no unproven end), and a weak review to check
    expect(viewGate(ctx, run, GATE).unproven).toBeUndefined();
    expect(await checkGates(ctx, { require: [GATE], allowWeak: true })).toMatchObject({ ok: true, passed: true });
    const strict = await checkGates(ctx, { require: [GATE] });
    expect(strict).toMatchObject({ ok: true, passed: false });
    expect(JSON.stringify(strict)).toMatch(/independence weak, not strong/);
    expect(JSON.stringify(strict)).not.toMatch(/does not re-derive|under the settings now/);
  });

  it.each([
    ["host_families", {}, { host_families: { claude: "openai" } }, "gpt-5", ["unknown", "openai", "unknown"]],
    ["family_aliases", {}, { family_aliases: { "gpt-5": "anthropic" } }, "gpt-5", ["anthropic", "unknown", "unknown"]],
    // a reviewer the settings once aliased to another family than the author's, now to the author's
    [
      "an alias",
      { family_aliases: { "acme-1": "openai" } },
      { family_aliases: { "acme-1": "anthropic" } },
      "acme-1",
      ["anthropic", "anthropic", "same"],
    ],
  ])("records the families of a pass it ends weak as the settings now class them (%s)", async (_, before, now, model, families) => {
    const run = `families-record-${_.replace(/[_ ]/g, "-")}`;
    const g = await gateWithPacket(run, { settings: before });
    g.dropResult({ reviewer_model: model });
    await verify(g, run);
    setSettings(g, now);
    const ctx = loadContext(g.layout);
    await stepGate(ctx, run, GATE);
    const [author_family, reviewer_family, family_relation] = families;
    // one judgement: the families that made the pass weak, never the packet's maps' "different" beside it
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({
      status: "satisfied",
      independence: "weak",
      author_family,
      reviewer_family,
      family_relation,
      reason: expect.stringContaining("its families as those settings class them"),
    });
    expect(viewGate(ctx, run, GATE).unproven).toBeUndefined();
    expect(await checkGates(ctx, { require: [GATE], allowWeak: true })).toMatchObject({ ok: true, passed: true });
  });
});

describe("a no_verdict dropped on a pass, after the family settings change", () => {
  it.each([
    ["host_families", { host_families: { claude: "openai" } }],
    ["family_aliases", { family_aliases: { "gpt-5": "anthropic" } }],
  ])("is still not the broker's when %s change: the round ends satisfied, as issued", async (_, settings) => {
    const run = `families-stray-${_.replace("_", "-")}`;
    const g = await strayOnPass(run);
    mkdirSync(path.join(g.root, ".guild"), { recursive: true });
    setSettings(g, settings);
    await strayMovedAside(g, run);
  });
});

describe("family_maps a packet records that are not the settings' when its round is verified", () => {
  it("never make a review by the author's family strong: the verifier seals a violation, the pass is weak", async () => {
    const run = "families-planted";
    const g = await gateWithPacket(run);
    // the author's family claimed to be openai, under a host_families entry the settings do not hold
    const planted = readFileSync(g.file("packet-1.md"), "utf8")
      .replace("author_family: anthropic", "author_family: openai")
      .replace(/^family_maps_sha256: .*$/m, 'family_maps: {"family_aliases":{},"host_families":{"claude":"openai"}}')
      .replace("another model family (anthropic)", "another model family (openai)");
    g.drop("packet-1.md", planted);
    g.dropResult({ reviewer_model: "claude-opus-4" }); // the author's family
    await verify(g, run);
    expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ independence_violation: true });
    await stepGate(loadContext(g.layout), run, GATE);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied", independence: "weak" });
  });
});
