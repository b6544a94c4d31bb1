// A single reviewer's pass whose verifier sealed an independence violation only under the family settings in force
// while it verified (SPEC §6, §17 rule 11): put back before the broker writes the outcome, the packet's maps class the
// families apart again, yet the outcome is weak — its families must be the ones the violation was sealed under.
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

const RUN = "vf";
const GATE = "G-plan";
const PROVIDERS = { acme: { adapter: "command", model: "acme-1", argv: [process.execPath, "-e", "0"] } };
/** acme-1 is openai by the settings' alias alone, so an alias edit moves it anywhere. */
const SETTINGS = { providers: PROVIDERS, family_aliases: { "acme-1": "openai" } };

describe("a pass sealed weak under the family settings when it was verified, put back since", () => {
  it.each([
    // acme-1 then of the author's family
    ["family_aliases", { family_aliases: { "acme-1": "anthropic" } }, ["anthropic", "host-map", "anthropic", "same"]],
    // acme-1 then of none
    ["family_aliases", { family_aliases: {} }, ["anthropic", "host-map", "unknown", "unknown"]],
    // the author then of another family than its packet says: of none a review can be independent of (§17)
    ["host_families", { host_families: { claude: "google" } }, ["unknown", "unknown", "openai", "unknown"]],
  ])("records the families an edit to %s made weak, and re-derives as written", async (_, edit, families) => {
    const root = tempRoot("guild-bus-violation-families-");
    mkdirSync(path.join(root, "docs"), { recursive: true });
    mkdirSync(path.join(root, ".guild"), { recursive: true });
    const setSettings = (s: Record<string, unknown>) =>
      writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ ...SETTINGS, ...s }));
    setSettings({});
    writeFileSync(path.join(root, "docs", "plan.md"), "# Plan\n");
    const layout = new Layout(root);
    expect(await requestReview(layout, { artifact: "docs/plan.md", gate: GATE, author: "claude", runId: RUN })).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), RUN, GATE);
    await stepGate(loadContext(layout), RUN, GATE);
    const adapter: ReviewerAdapter = { dispatch: async (input) => passingAnswer(input.front) };
    const opts = { serves: ["command" as const], adapters: { command: adapter }, log: () => {}, held: new Map() };
    await reviewGate(loadContext(layout), RUN, GATE, opts, new AbortController().signal);
    setSettings(edit);
    await verifyGate(loadContext(layout), RUN, GATE, () => undefined, Date.now() + 60_000);
    setSettings({});
    const [author_family, author_family_source, reviewer_family, family_relation] = families;
    expect(readGate(layout, RUN, GATE).verdicts.get(1)).toMatchObject({
      reviewer_family: "openai",
      independence_violation: true,
      violation_families: { author_family, author_family_source, reviewer_family, family_relation },
    });
    const ctx = loadContext(layout);
    await stepGate(ctx, RUN, GATE);
    expect(readGate(layout, RUN, GATE).outcome).toMatchObject({
      status: "satisfied",
      independence: "weak",
      author_family,
      author_family_source,
      reviewer_family,
      family_relation,
      // the reason names the families the fields record, not only the packet's maps' word for the reviewer
      reason: expect.stringContaining(
        `verified classed it with the author's family or with none (reviewer ${reviewer_family}, author ${author_family};`,
      ),
    });
    expect(viewGate(ctx, RUN, GATE).unproven).toBeUndefined();
    expect(await checkGates(ctx, { require: [GATE], allowWeak: true })).toMatchObject({ ok: true, passed: true });
  });
});
