// WHO reviews: author identity, the selection table, the weak reviewer, and the AC-8 guard as a property.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AuthorIdentity,
  authorIdentity,
  configuredProviders,
  type Provider,
  selectQuorum,
  selectReviewer,
} from "../../src/core/selection.js";
import { MANUAL_PROVIDER } from "../../src/core/policy.js";
import { FAMILIES, type Family, type KnownFamily, type Settings } from "../../src/spec/schemas.js";
import { policy } from "../helpers/snapshots.js";

const cross = policy({ mode: "cross", required: true });
const claudeAuthor: AuthorIdentity = { host: "claude", model: null, family: "anthropic", source: "host-map" };
const unknownAuthor: AuthorIdentity = { host: "copilot", model: null, family: "unknown", source: "unknown" };

function prov(id: string, adapter: Provider["adapter"], family: Family, over: Partial<Provider> = {}): Provider {
  return { id, adapter, model: `${id}-model`, family, selectable: adapter !== "manual", available: true, ...over };
}
const manual = prov(MANUAL_PROVIDER, "manual", "unknown", { model: null });
const codex = prov("codex", "codex", "openai");
const claude = prov("claude", "claude", "anthropic");
const gemini = prov("gemini", "gemini", "google");
const http = prov("ds", "http", "deepseek");
const cmd = prov("cmd", "command", "qwen");

const select = (providers: Provider[], o: { reviewer?: string; author?: AuthorIdentity; settings?: Settings; pol?: typeof cross } = {}) =>
  selectReviewer(o.pol ?? cross, { reviewer: o.reviewer ?? "auto" }, o.author ?? claudeAuthor, providers, o.settings ?? {});

describe("authorIdentity", () => {
  it("a declared model with a known family wins over a host of none (copilot routes to many vendors)", () => {
    expect(authorIdentity({ author_host: "copilot", author_model: "gpt-5" }, {})).toEqual({
      host: "copilot",
      model: "gpt-5",
      family: "openai",
      source: "declared-model",
    });
  });
  it("a declared model of another family than its host's is ambiguous: unknown, the weak path, with the reason", () => {
    const author = authorIdentity({ author_host: "claude-code", author_model: "gpt-5" }, {});
    expect(author).toMatchObject({ family: "unknown", source: "unknown" });
    expect(author.conflict).toBe(
      'the declared model "gpt-5" is openai, but host "claude-code" is anthropic ' +
        "(a host that runs another vendor's model names its family in settings.host_families)",
    );
    expect(select([codex, gemini], { author })).toMatchObject({ independence: "weak", reason: expect.stringContaining(author.conflict!) });
    // the project says what its host runs: then the model is no contradiction
    const proxied = { host_families: { "claude-code": "moonshot" as const } };
    expect(authorIdentity({ author_host: "claude-code", author_model: "kimi-k2" }, proxied)).toMatchObject({
      family: "moonshot",
      source: "declared-model",
    });
  });
  it("no model → the host map (built-in)", () => {
    expect(authorIdentity({ author_host: "codex-cli" }, {})).toEqual({
      host: "codex-cli",
      model: null,
      family: "openai",
      source: "host-map",
    });
  });
  it("a declared model of unknown family falls back to the host map; a blank model counts as none", () => {
    expect(authorIdentity({ author_host: "gemini", author_model: "my-finetune" }, {})).toEqual({
      host: "gemini",
      model: "my-finetune",
      family: "google",
      source: "host-map",
    });
    expect(authorIdentity({ author_host: "claude", author_model: "   " }, {})).toMatchObject({
      model: null,
      family: "anthropic",
      source: "host-map",
    });
  });
  it("settings.host_families and family_aliases are honoured", () => {
    expect(authorIdentity({ author_host: "my-box" }, { host_families: { "my-box": "qwen" } })).toMatchObject({
      family: "qwen",
      source: "host-map",
    });
    expect(
      authorIdentity({ author_host: "x", author_model: "house-model" }, { family_aliases: { "house-model": "mistral" } }),
    ).toMatchObject({ family: "mistral", source: "declared-model" });
  });
  it("an unmappable host with no model → unknown, source unknown (copilot routes to many vendors)", () => {
    expect(authorIdentity({ author_host: "copilot" }, {})).toEqual({ host: "copilot", model: null, family: "unknown", source: "unknown" });
    expect(authorIdentity({ author_host: "some-ide" }, {})).toEqual({
      host: "some-ide",
      model: null,
      family: "unknown",
      source: "unknown",
    });
  });
});

describe("configuredProviders", () => {
  it("families come from the model; manual adapters are never auto-selectable; the built-in manual is added once", () => {
    const ps = configuredProviders({
      providers: {
        codex: { adapter: "codex", model: "gpt-5", input: "stdin", selectable: true },
        quiet: { adapter: "command", model: "qwen3-coder", argv: ["x"], input: "stdin", selectable: false },
        human: { adapter: "manual", input: "stdin", selectable: true },
      },
    });
    expect(ps.map((p) => [p.id, p.family, p.selectable])).toEqual([
      ["codex", "openai", true],
      ["quiet", "qwen", false],
      ["human", "unknown", false],
      [MANUAL_PROVIDER, "unknown", false],
    ]);
  });
  it("a configured provider named manual replaces the built-in one", () => {
    const ps = configuredProviders({ providers: { manual: { adapter: "manual", input: "stdin", selectable: true } } });
    expect(ps.filter((p) => p.id === MANUAL_PROVIDER)).toHaveLength(1);
  });
});

describe("selectReviewer: the table", () => {
  it("review not required → skipped, no provider", () => {
    expect(select([codex], { pol: policy({ required: false, requiredBecause: "review=off" }) })).toEqual({
      status: "skipped",
      provider: null,
      independence: "weak",
      reason: "review not required (review=off)",
    });
  });

  it("review=local → degraded-local, weak, even with a cross-family reviewer available", () => {
    const s = select([codex, claude], { pol: policy({ mode: "local" }) });
    expect(s).toMatchObject({ status: "degraded-local", independence: "weak", provider: { id: "claude" } });
    expect(s.reason).toMatch(/review=local/);
  });

  it("unknown author → weak, never selected, even with a valid pin", () => {
    for (const reviewer of ["auto", "codex"]) {
      const s = select([codex, gemini], { author: unknownAuthor, reviewer });
      expect(s.status).toBe("degraded-local");
      expect(s.independence).toBe("weak");
      expect(s.reason).toMatch(/author family unknown \(host "copilot"\)/);
    }
  });

  it("pin of the author's family → weak (refused as self-review)", () => {
    const s = select([codex, claude], { reviewer: "claude" });
    expect(s).toMatchObject({ status: "degraded-local", independence: "weak" });
    expect(s.reason).toMatch(/pinned reviewer claude is anthropic, the author's family/);
  });

  it("pin of an id that is not configured → weak, no silent substitution with another strong reviewer", () => {
    const s = select([codex, gemini], { reviewer: "codex-cloud" });
    expect(s.status).toBe("degraded-local");
    expect(s.independence).toBe("weak");
    expect(s.reason).toMatch(/^pinned reviewer "codex-cloud" is not configured; \S+ \(\w+\) reviews instead, with weak independence$/);
    expect(s.reason).toContain(`${s.provider!.id} (${s.provider!.family}) reviews instead`);
  });

  it("pin of a provider with no known family → weak", () => {
    const s = select([codex, prov("mystery", "command", "unknown")], { reviewer: "mystery" });
    expect(s).toMatchObject({ status: "degraded-local", independence: "weak" });
    expect(s.reason).toMatch(/no known model family/);
  });

  it("pin of an unavailable provider → weak with its note", () => {
    const s = select([prov("codex", "codex", "openai", { available: false, note: "not on PATH" }), gemini], { reviewer: "codex" });
    expect(s).toMatchObject({ status: "degraded-local", independence: "weak" });
    expect(s.reason).toBe(
      `pinned reviewer codex unavailable: not on PATH; ${s.provider!.id} (${s.provider!.family}) reviews instead, with weak independence`,
    );
  });

  it("pin of the manual reviewer → selected (the family is enforced when the human answers)", () => {
    const s = select([codex, manual], { reviewer: "manual" });
    expect(s).toMatchObject({ status: "selected", independence: "strong", provider: { id: "manual", adapter: "manual" } });
  });

  it("pin of a manual reviewer declared with the author's model family → weak, like any same-family pin", () => {
    const s = select([codex, prov("human", "manual", "anthropic", { model: "claude-opus-4" })], { reviewer: "human" });
    expect(s).toMatchObject({ status: "degraded-local", independence: "weak" });
    expect(s.reason).toMatch(/pinned reviewer human is anthropic, the author's family/);
  });

  it("a valid pin → selected strong, even if not auto-selectable and even when a higher-ranked reviewer exists", () => {
    const s = select([codex, prov("cmd", "command", "qwen", { selectable: false })], { reviewer: "cmd" });
    expect(s).toEqual({
      status: "selected",
      provider: expect.objectContaining({ id: "cmd" }),
      independence: "strong",
      reason: "pinned reviewer cmd (qwen ≠ anthropic)",
    });
  });

  it("the request's pin beats the settings' pin; settings pin applies when the request says auto", () => {
    expect(select([codex, gemini], { reviewer: "gemini", settings: { reviewer: "codex" } }).provider?.id).toBe("gemini");
    expect(select([codex, gemini], { reviewer: "auto", settings: { reviewer: "gemini" } }).provider?.id).toBe("gemini");
    expect(select([codex, gemini], { reviewer: "auto", settings: { reviewer: "auto" } }).provider?.id).toBe("codex");
  });

  it("auto ranks codex > claude > gemini > http > command, then id", () => {
    const gptAuthor: AuthorIdentity = { host: "x", model: "qwen3", family: "qwen", source: "declared-model" };
    const all = [cmd, http, gemini, claude, codex, prov("a-codex", "codex", "openai")];
    const order: string[] = [];
    let left = all.filter((p) => p.family !== "qwen");
    while (left.length) {
      const s = select(left, { author: gptAuthor });
      expect(s.status).toBe("selected");
      order.push(s.provider!.id);
      left = left.filter((p) => p.id !== s.provider!.id);
    }
    expect(order).toEqual(["a-codex", "codex", "claude", "gemini", "ds"]);
    expect(select([cmd, manual], { author: claudeAuthor }).provider?.id).toBe("cmd");
  });

  it("auto skips same-family, unknown-family, unselectable and unavailable providers", () => {
    const s = select([
      claude,
      prov("x", "codex", "unknown"),
      prov("y", "codex", "openai", { selectable: false }),
      prov("z", "codex", "openai", { available: false }),
      manual,
      gemini,
    ]);
    expect(s).toMatchObject({ status: "selected", provider: { id: "gemini" }, reason: "auto: gemini (google ≠ anthropic)" });
  });

  it("nothing eligible → weak with the reason", () => {
    const s = select([claude, manual]);
    expect(s).toMatchObject({
      status: "degraded-local",
      independence: "weak",
      reason: "no available reviewer of a family other than anthropic",
    });
  });

  it("nothing eligible, but reviewers here without a known family: the reason names them and the setting that fixes it", () => {
    // a configured {"adapter": "codex"} without a model: the review fell to a person and nothing said why
    const s = select([claude, prov("cx", "codex", "unknown", { model: null }), prov("cp", "copilot", "unknown"), manual]);
    expect(s).toMatchObject({
      status: "degraded-local",
      independence: "weak",
      reason:
        "no available reviewer of a family other than anthropic (cx, cp: no known model family, never selected for a strong review; " +
        'set a "model" for providers.cx, copilot_profiles for providers.cp in .guild/settings.json)',
    });
  });

  it("nothing eligible, but a reviewer of another family is configured and cannot run: the reason names it and why", () => {
    // a configured codex missing from PATH: the review fell to a person and the note said only "no available reviewer"
    const down = prov("codex", "codex", "openai", { available: false, note: "codex not found on PATH" });
    const sameFamily = prov("cl2", "claude", "anthropic", { available: false, note: "claude not found on PATH" });
    const s = select([claude, down, sameFamily, manual]);
    expect(s).toMatchObject({
      status: "degraded-local",
      reason:
        "no available reviewer of a family other than anthropic (codex: here but cannot run, not installed or not signed in; " +
        "`guild-bus providers` says why and how to enable it)",
    });
  });

  it("a reviewer with a model of no known family: the fix is that model's family (family_aliases), not a model it has", () => {
    const s = select([claude, prov("mytool", "command", "unknown", { model: "acme-coder-7" }), manual]);
    expect(s).toMatchObject({
      status: "degraded-local",
      reason:
        "no available reviewer of a family other than anthropic (mytool: no known model family, never selected for a strong review; " +
        'set family_aliases for its model "acme-coder-7" (providers.mytool) in .guild/settings.json)',
    });
  });
});

describe("selectReviewer: which reviewer runs the weak path", () => {
  const weakPick = (providers: Provider[], settings: Settings = {}) =>
    select(providers, { pol: policy({ mode: "local" }), settings }).provider?.id;

  it("settings.weak_reviewer first (when available)", () => {
    expect(weakPick([codex, claude, gemini], { weak_reviewer: "gemini" })).toBe("gemini");
    expect(weakPick([codex, claude, prov("gemini", "gemini", "google", { available: false })], { weak_reviewer: "gemini" })).toBe("claude");
  });
  it("then a non-manual provider of the author's family", () => {
    expect(weakPick([codex, manual, claude])).toBe("claude");
  });
  it("then any non-manual provider", () => {
    expect(weakPick([manual, gemini, codex])).toBe("gemini");
  });
  it("then the manual reviewer, and a built-in manual when nothing is configured at all", () => {
    expect(weakPick([manual, prov("codex", "codex", "openai", { available: false })])).toBe("manual");
    expect(select([], { pol: policy({ mode: "local" }) }).provider).toMatchObject({ id: "manual", adapter: "manual", family: "unknown" });
  });
  it("an unknown author family does not count as 'the author's family' for the weak pick", () => {
    const s = select([prov("u", "command", "unknown"), gemini], { author: unknownAuthor });
    expect(s.provider?.id).toBe("u"); // first non-manual, not matched as same-family
  });
});

describe("selectReviewer: AC-8 as a property", () => {
  const familyArb = fc.constantFrom(...FAMILIES);
  const providerArb = fc
    .record({
      id: fc.constantFrom("codex", "claude", "gemini", "ds", "cmd", "manual", "human", "x1", "x2"),
      adapter: fc.constantFrom(
        "codex" as const,
        "claude" as const,
        "gemini" as const,
        "http" as const,
        "command" as const,
        "manual" as const,
      ),
      family: familyArb,
      selectable: fc.boolean(),
      available: fc.boolean(),
    })
    .map((p): Provider => ({ ...p, model: null }));
  const authorArb = fc.record({
    host: fc.constantFrom("claude", "codex", "copilot", "x"),
    model: fc.constant(null),
    family: familyArb,
    source: fc.constantFrom("declared-model" as const, "host-map" as const, "unknown" as const),
  });

  it(`never selected with a same-family or unknown-family provider, or for an unknown author; \
the manual pin is the only unknown-family selection`, () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(providerArb, { selector: (p) => p.id, maxLength: 6 }),
        authorArb,
        fc.constantFrom("auto", "codex", "claude", "manual", "human", "nope", "x1"),
        fc.option(fc.constantFrom("auto", "gemini", "x2"), { nil: undefined }),
        fc.option(fc.constantFrom("codex", "x1", "manual"), { nil: undefined }),
        fc.constantFrom("cross" as const, "local" as const, "off" as const),
        fc.boolean(),
        // eslint-disable-next-line @typescript-eslint/max-params -- fast-check passes one argument per arbitrary
        (providers, author, reviewer, settingsPin, weakReviewer, mode, required) => {
          const settings: Settings = {
            ...(settingsPin ? { reviewer: settingsPin } : {}),
            ...(weakReviewer ? { weak_reviewer: weakReviewer } : {}),
          };
          const s = selectReviewer(policy({ mode, required }), { reviewer }, author, providers, settings);
          if (!required) {
            expect(s).toMatchObject({ status: "skipped", provider: null });
            return;
          }
          expect(s.status).not.toBe("skipped"); // a required review is never skipped at the WHO layer
          expect(s.provider).not.toBeNull();
          expect(s.independence).toBe(s.status === "selected" ? "strong" : "weak");
          if (s.status === "selected") {
            expect(mode).not.toBe("local");
            expect(author.family).not.toBe("unknown");
            expect(s.provider!.available).toBe(true);
            const p = s.provider!;
            expect(p.family).not.toBe(author.family);
            if (p.adapter === "manual" && p.family === "unknown") {
              // A human reviewer whose family is not known up front: only by an explicit pin, and
              // acceptManualResponse enforces a known, different family when the human answers.
              expect([reviewer === "auto" ? settingsPin : reviewer]).toContain(p.id);
            } else {
              expect(s.provider!.family).not.toBe("unknown");
              expect(s.provider!.family).not.toBe(author.family);
            }
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("selectQuorum at difficulty nightmare", () => {
  const rule = { need: 2, of: 2 };
  const round = { rule, fixed: [], exclude: [] as string[] };

  it("says the reviewers that cannot read the repository were left out, not that their families are missing", () => {
    const out = selectQuorum(policy({ difficulty: "nightmare" }), claudeAuthor, [http, cmd], round);
    expect(out).toHaveProperty("unavailable");
    const why = (out as { unavailable: string }).unavailable;
    expect(why).toMatch(/difficulty nightmare: only reviewers that read the repository/);
    expect(why).toContain("ds (http), cmd (command)");
    expect(why).toMatch(/use difficulty hard/);
    expect(why).toContain("(codex, claude, gemini)"); // copilot is never a quorum member
  });

  it("says nothing of nightmare below it, nor when every reviewer left out reads files", () => {
    for (const out of [
      selectQuorum(policy({ difficulty: "hard" }), claudeAuthor, [http], round),
      selectQuorum(policy({ difficulty: "nightmare" }), claudeAuthor, [codex], round),
    ])
      expect((out as { unavailable: string }).unavailable).not.toMatch(/nightmare/);
  });
});

describe("selectQuorum with a rule naming the author's family", () => {
  it("says no reviewer can make it pass, instead of asking to configure a family that is configured", () => {
    const rule = { need: 2, of: 2, families: ["anthropic", "openai"] as KnownFamily[] };
    const out = selectQuorum(policy({}), claudeAuthor, [codex, claude, gemini], { rule, fixed: [], exclude: [] });
    const why = (out as { unavailable: string }).unavailable;
    expect(why).toMatch(/names anthropic, the author's own family, whose reviews never count/);
    expect(why).not.toMatch(/configure or enable providers/);
  });
});
