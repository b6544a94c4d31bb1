// A quorum pass judged under the family settings in force when the broker writes its outcome (SPEC §26, §17): one the
// settings now make a family short is written weak, with a reason naming them, and every report reads it so — never
// `satisfied` strong beside an `unproven` `status --verify`.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { checkGates } from "../../src/commands/check.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { reviewGate } from "../../src/workers/reviewer.js";
import { verifyGate } from "../../src/workers/verifier.js";
import type { ReviewerAdapter } from "../../src/adapters/types.js";
import { passingAnswer } from "../helpers/answers.js";
import { tempRoot } from "../helpers/tmp.js";

const RUN = "qf";
const GATE = "G-plan";
const provider = (model: string) => ({ adapter: "command", model, argv: [process.execPath, "-e", "0"] });
const PROVIDERS = { gpt: provider("gpt-5"), gem: provider("gemini-2.5-pro") };

/** A 2/2 quorum round reviewed and sealed by gpt (openai) and gem (google) for claude's artifact; `atVerify`: the
 * settings edit in force while the verifier seals it (put back after). */
async function sealedQuorumPass(
  atVerify?: Record<string, unknown>,
): Promise<{ layout: Layout; setSettings: (s: Record<string, unknown>) => void }> {
  const root = tempRoot("guild-bus-quorum-families-");
  mkdirSync(path.join(root, "docs"), { recursive: true });
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  const setSettings = (s: Record<string, unknown>) =>
    writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ providers: PROVIDERS, ...s }));
  setSettings({});
  writeFileSync(path.join(root, "docs", "plan.md"), "# Plan\n");
  const layout = new Layout(root);
  const asked = { artifact: "docs/plan.md", gate: GATE, author: "claude", runId: RUN, quorum: { need: 2, of: 2 } };
  expect(await requestReview(layout, asked)).toMatchObject({ ok: true });
  await stepGate(loadContext(layout), RUN, GATE);
  await stepGate(loadContext(layout), RUN, GATE);
  const adapter: ReviewerAdapter = {
    dispatch: async (input) => passingAnswer(input.front),
  };
  const opts = { serves: ["command" as const], adapters: { command: adapter }, log: () => {}, held: new Map() };
  await reviewGate(loadContext(layout), RUN, GATE, opts, new AbortController().signal);
  if (atVerify) setSettings(atVerify);
  await verifyGate(loadContext(layout), RUN, GATE, () => undefined, Date.now() + 60_000);
  setSettings({});
  const s = readGate(layout, RUN, GATE);
  const violations = Object.fromEntries([...s.members].map(([id, m]) => [id, m.verdicts.get(1)?.independence_violation]));
  expect(violations).toEqual({ gpt: false, gem: atVerify !== undefined });
  return { layout, setSettings };
}

describe("a quorum pass the family settings now make a family short", () => {
  it.each([
    // gem now of no one family (its name says google, the alias anthropic)
    ["family_aliases", { family_aliases: { "gemini-2.5-pro": "anthropic" } }, ["anthropic", "unknown", "unknown"]],
    // the author now of another family than its packets say: of none that counts (§17), so no member counts
    ["host_families", { host_families: { claude: "google" } }, ["unknown", "google", "unknown"]],
  ])("is written satisfied weak when %s change, naming the settings, and re-derives as written", async (_, edit, families) => {
    const { layout, setSettings } = await sealedQuorumPass();
    setSettings(edit);
    const ctx = loadContext(layout);
    await stepGate(ctx, RUN, GATE);
    const [author_family, reviewer_family, family_relation] = families;
    expect(readGate(layout, RUN, GATE).outcome).toMatchObject({
      status: "satisfied",
      independence: "weak",
      author_family,
      reviewer_family,
      family_relation,
      quorum: {
        members: [
          { provider: "gem", family: "google" },
          { provider: "gpt", family: "openai" },
        ],
      },
      reason: expect.stringMatching(/but not under the settings now .*famil(y|ies) short.*: a weak review/),
    });
    expect(viewGate(ctx, RUN, GATE).unproven).toBeUndefined();
    expect(await checkGates(ctx, { require: [GATE], allowWeak: true })).toMatchObject({ ok: true, passed: true });
    const strict = await checkGates(ctx, { require: [GATE] });
    expect(strict).toMatchObject({ ok: true, passed: false });
    expect(JSON.stringify(strict)).toMatch(/independence weak, not strong/);
    expect(JSON.stringify(strict)).not.toMatch(/does not re-derive/);
  });

  it("stays strong when the settings still count both families", async () => {
    const { layout } = await sealedQuorumPass();
    await stepGate(loadContext(layout), RUN, GATE);
    expect(readGate(layout, RUN, GATE).outcome).toMatchObject({
      status: "satisfied",
      independence: "strong",
      family_relation: "different",
    });
  });

  // gem classed anthropic, the author's family, while it was verified: the sealed verdict decides, not the settings now
  const edit = { family_aliases: { "gemini-2.5-pro": "anthropic" } };
  it.each([
    ["put back", {}],
    ["still in force", edit],
  ])("does not count a member whose verifier sealed a violation, the settings %s: it escalates", async (_, now) => {
    const { layout, setSettings } = await sealedQuorumPass(edit);
    setSettings(now);
    const ctx = loadContext(layout);
    await stepGate(ctx, RUN, GATE);
    const s = readGate(layout, RUN, GATE);
    expect(s.outcome).toBeNull();
    expect(s.escalations.get(1)).toMatchObject({
      reason: "identity_unverified",
      detail: expect.stringMatching(/1 more passing family needed.*gem: its verdict sealed an independence violation/),
    });
  });
});
