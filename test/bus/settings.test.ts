import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { loadSettings } from "../../src/bus/settings.js";
import { familyOfHost } from "../../src/core/family.js";
import { readBounded } from "../../src/bus/read-bounded.js";
import { scrub, scrubOptions } from "../../src/core/scrub.js";
import { commandAdapter } from "../../src/adapters/command.js";
import { directInput } from "../helpers/cli-suite.js";
import { tempRoot } from "../helpers/tmp.js";

function load(content: string) {
  const root = tempRoot();
  mkdirSync(path.join(root, ".guild"));
  writeFileSync(path.join(root, ".guild", "settings.json"), content);
  return loadSettings(new Layout(root));
}

describe("settings", () => {
  it("missing settings are the defaults, with no problem", () => {
    expect(loadSettings(new Layout(tempRoot()))).toEqual({ settings: {}, problems: [], missing: true });
  });

  it("a host_families entry naming no family is refused with a reason, never taken as an author's family", () => {
    const { settings, problems } = load(JSON.stringify({ host_families: { claude: "martian" } }));
    expect(problems).toEqual([expect.stringMatching(/^settings\.json: host_families\.claude: .*; ignoring host_families$/)]);
    expect(settings.host_families).toBeUndefined();
    expect(familyOfHost("claude", settings)).toBe("anthropic");
  });

  it("an unparseable or non-object file falls back to defaults with a reason", () => {
    expect(load("{").problems[0]).toMatch(/not valid JSON/);
    expect(load("[1]").problems[0]).toMatch(/not a JSON object/);
  });

  it("a settings.json that is not a regular file is named once: the problem follows the file's name, not its path again", () => {
    const root = tempRoot();
    mkdirSync(path.join(root, ".guild", "settings.json"), { recursive: true });
    const { problems } = loadSettings(new Layout(root));
    expect(problems).toEqual(["settings.json unreadable: not a regular file (a directory); using defaults"]);
  });

  it("two .guild links to each other are named as a loop of links, never as a settings file that is a symlink", () => {
    const root = tempRoot();
    for (const d of ["a", "b"]) mkdirSync(path.join(root, d));
    symlinkSync("../b/.guild", path.join(root, "a", ".guild"));
    symlinkSync("../a/.guild", path.join(root, "b", ".guild"));
    const loop = `${path.join(root, "a", ".guild")} is a symbolic link that leads back to itself (-> ../b/.guild, a loop of links)`;
    const loaded = loadSettings(new Layout(path.join(root, "a")));
    expect(loaded.problems).toEqual([expect.stringContaining(loop)]);
    expect(loaded.problems[0]).not.toMatch(/is a symlink|deliver a regular file/);
    // a bus file read without following links: the loop on its path, not "is a symlink"
    expect(() => readBounded(path.join(root, "a", ".guild", "runs", "x.json"), { max: 10 })).toThrow(loop);
    // a final link is still one (deliver a regular file)
    mkdirSync(path.join(root, "c"));
    writeFileSync(path.join(root, "c", "real.json"), "{}");
    symlinkSync("real.json", path.join(root, "c", "link.json"));
    expect(() => readBounded(path.join(root, "c", "link.json"), { max: 10 })).toThrow(
      /link\.json: is a symlink \(deliver a regular file\)$/,
    );
  });

  it("nesting deeper than the bus reads is a problem with defaults, not a crash of every worker and command", () => {
    const deep = `{"review":"cross","x":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    expect(load(deep)).toEqual({
      settings: {},
      problems: ["settings.json is not valid JSON: nested deeper than 64 levels; using defaults"],
      incomplete: true,
    });
  });

  it("a reviewer, weak reviewer or fallback naming no provider is a problem, as --reviewer is (a typo never pins a weak review)", () => {
    const providers = { "gpt-rev": { adapter: "command", model: "gpt-5", argv: ["x"], fallback: ["codex", "gpt-rve"] } };
    const r = load(JSON.stringify({ reviewer: "gpt-rve", weak_reviewer: "constructor", providers }));
    expect(r.problems).toEqual([
      expect.stringMatching(
        /^settings\.json: reviewer: "gpt-rve" is not a configured provider \(did you mean "gpt-rev"\?\).*; ignoring reviewer$/,
      ),
      expect.stringMatching(/^settings\.json: weak_reviewer: "constructor" is not a configured provider/),
      expect.stringMatching(/^settings\.json: providers\.gpt-rev\.fallback: "gpt-rve" is not/),
    ]);
    expect(r.settings).toMatchObject({ providers: { "gpt-rev": { fallback: ["codex"] } } });
    expect(r.settings.reviewer).toBeUndefined();
    expect(r.settings.weak_reviewer).toBeUndefined();
    for (const reviewer of ["auto", "manual", "codex", "gpt-rev"])
      expect(load(JSON.stringify({ reviewer, providers })).problems).toHaveLength(1);
  });

  it("a settings.json Guild shares holds Guild's own keys: left to Guild, not refused as unknown; a typo still is", () => {
    // keys as Guild's `config set` writes them, beside the ones both read
    const guild = {
      rigor: "deep",
      review: "local",
      host: "claude",
      loop_cap: 16,
      codex_cap: 4,
      adversarial_review_provider: "codex-cli",
      roles: { host: null, advisory: null, adversarial: null },
      secrets_policy: { redaction_patterns: ["hunter\\d"], fail_mode_durable: "closed", fail_mode_telemetry: "open" },
      defaults: { adversarial: "on" },
    };
    const r = load(JSON.stringify(guild));
    expect(r.problems).toEqual([]);
    expect(r.settings).toMatchObject({ review: "local", codex_cap: 4, secrets_policy: { redaction_patterns: ["hunter\\d"] } });
    expect(load(JSON.stringify({ ...guild, rigour: "deep" })).problems).toEqual([
      expect.stringMatching(/^settings\.json: unknown key "rigour"/),
    ]);
  });

  it("a $schema key (an editor's hint: the published settings schema) is no unknown key; a misspelt one is", () => {
    const hint = "./node_modules/guild-bus/bus-spec/schemas/settings.schema.json";
    expect(load(JSON.stringify({ $schema: hint, review: "local" }))).toMatchObject({ problems: [], settings: { review: "local" } });
    expect(load(JSON.stringify({ schema: hint })).problems).toEqual([
      expect.stringMatching(/^settings\.json: unknown key "schema" \(did you mean "\$schema"\?\)/),
    ]);
  });

  it("a misspelt key below the top (secrets_policy, stop_gate, a tier) is named with a did-you-mean, never dropped in silence", () => {
    const r = load(
      JSON.stringify({
        // the project's secret pattern under a misspelt key: unread, the secret would reach the reviewer unredacted
        secrets_policy: { redaction_pattern: ["ACME-[0-9]+"], fail_mode_durable: "closed" },
        stop_gate: { enable: true },
        providers: { x: { adapter: "codex", effort_tiers: { deep_audit: { effort: "high" }, regular: { efort: "high" } } } },
      }),
    );
    expect(r.problems).toEqual([
      'settings.json: secrets_policy: unknown key "redaction_pattern" (did you mean "redaction_patterns"?)',
      'settings.json: stop_gate: unknown key "enable" (did you mean "enabled"?)',
      'settings.json: providers.x.effort_tiers: unknown key "deep_audit" (did you mean "deep-audit"?)',
      'settings.json: providers.x.effort_tiers.regular: unknown key "efort" (did you mean "effort"?)',
    ]);
    expect(r.incomplete).toBeUndefined(); // reported, as an unknown key at the top: nothing the bus reads was dropped
  });

  it("a gate_quorum or gate_tiers key that is no gate is named: its quorum or tier would apply to no gate", () => {
    const r = load(
      JSON.stringify({
        gate_quorum: { "G-Spec": { need: 2 }, "G-planning": { need: 2, of: 3 }, "G-lane:api": { need: 1 } },
        gate_tiers: { "G-lane:*": "deep-audit", "G-lane": "regular", "G-plan": "deep-audit" },
      }),
    );
    expect(r.problems).toEqual([
      expect.stringMatching(/^settings\.json: gate_quorum: "G-Spec" is not a gate \(did you mean "G-spec"\?\): its entry applies to none/),
      expect.stringMatching(
        /^settings\.json: gate_quorum: "G-planning" is not a gate: its entry applies to none \(G-init .*; G-lane: every lane\)$/,
      ),
      expect.stringMatching(/^settings\.json: gate_tiers: "G-lane:\*" is not a gate \(did you mean "G-lane"\?\)/),
    ]);
  });

  it("a value the schema takes but no use can is named with its key and the fix, and kept: the use refuses on it alike", async () => {
    const r = load(
      JSON.stringify({
        secrets_policy: { redaction_patterns: ["(", "a*", "ACME-[0-9]+"] },
        providers: {
          cmd: { adapter: "command" },
          api: { adapter: "http", model: "deepseek-chat", base_url: "https://user:pw@api.example/v1" },
          gem: { adapter: "gemini", effort_floor: "high" },
          cdx: { adapter: "codex", effort: "high", effort_tiers: { "deep-audit": { effort: "low" } }, effort_floor: "medium" },
        },
        gate_tiers: { "G-lane": "deep-audit" },
        gate_quorum: { "G-spec": { need: 3, of: 2 } },
        family_aliases: { " ": "openai", mymodel: "unknown" },
      }),
    );
    const [patterns, scrubs] = [
      "settings.json: secrets_policy.redaction_patterns: invalid redaction pattern",
      "(every scrub refuses until it is fixed or removed)",
    ];
    const dispatches = "(every dispatch to it is refused before it runs: fix the entry)";
    expect(r.problems).toEqual([
      `${patterns} "(": Invalid regular expression: /(/g: Unterminated group ${scrubs}`,
      `${patterns} "a*": it matches the empty string ${scrubs}`,
      `settings.json: providers.cmd: the command adapter needs argv ${dispatches}`,
      `settings.json: providers.api: credentials in base_url are refused (name the key with api_key_env) ${dispatches}`,
      `settings.json: providers.gem: effort_floor high cannot be guaranteed: effort not supported by this CLI ${dispatches}`,
      `settings.json: providers.cdx: the deep-audit tier's effort low is below effort_floor medium ${dispatches}`,
      "settings.json: gate_quorum.G-spec: quorum 3/2: need 3 exceeds of 2 (K of N) (every request of the gate is refused)",
      'settings.json: family_aliases." ": a blank needle matches no model (the classifier ignores it: fix or remove it)',
      expect.stringMatching(/^settings\.json: family_aliases\."mymodel": "unknown" is no family a model can be classified as \(openai, /),
    ]);
    expect(r.incomplete).toBeUndefined(); // nothing dropped: a pattern left out would let its secrets through
    expect(r.settings.secrets_policy?.redaction_patterns).toEqual(["(", "a*", "ACME-[0-9]+"]);
    // the use refuses with the words the check said
    expect(() => scrub("text", scrubOptions(r.settings))).toThrow('invalid redaction pattern "(": Invalid regular expression');
    const dispatched = await commandAdapter.dispatch({ providerId: "cmd", config: r.settings.providers!.cmd! } as never);
    expect(dispatched).toEqual({ kind: "not-run", reason: "provider cmd: the command adapter needs argv" });
  });

  it("a base_url on an adapter that sends none (command, copilot, manual, external) is no problem, and the command runs", async () => {
    const base_url = "localhost:11434"; // no scheme, as a note of where the tool's own server runs
    const argv = [process.execPath, "-e", "process.stdout.write('reviewed')"];
    const r = load(
      JSON.stringify({
        providers: {
          mine: { adapter: "command", model: "qwen3-coder", argv, base_url },
          copilot: { adapter: "copilot", base_url: "https://user:pw@api.example" },
          person: { adapter: "manual", base_url },
          ext: { adapter: "external", base_url },
        },
      }),
    );
    expect(r.problems).toEqual([]);
    const root = tempRoot("guild-bus-settings-base-url-");
    const dispatched = await commandAdapter.dispatch(directInput(root, "mine", r.settings.providers!.mine!, "packet\n"));
    expect(dispatched).toMatchObject({ kind: "output", text: "reviewed" });
  });

  it("a providers key that is no provider id is named with a did-you-mean, as a misspelt key is", () => {
    const r = load(
      JSON.stringify({ reviewer: "my-gpt", providers: { "My-GPT": { adapter: "command", argv: ["x"] }, Claude: { adapter: "claude" } } }),
    );
    expect(r.problems.slice(0, 2)).toEqual([
      expect.stringMatching(/^settings\.json: providers: "My-GPT" is not a provider id \(did you mean "my-gpt"\?\): a lower-case letter/),
      expect.stringMatching(/^settings\.json: providers: "Claude" is not a provider id \(did you mean "claude"\?\)/),
    ]);
    expect(r.problems.join("\n")).not.toContain("Invalid key in record");
  });

  it("one bad value drops only that key or provider; the rest still applies", () => {
    const r = load(
      JSON.stringify({
        codex_cap: "ten",
        review: "cross",
        providers: {
          good: { adapter: "command", model: "gpt-5", argv: ["x"] },
          bad: { adapter: "telepathy" },
        },
        secrets_policy: { redaction_patterns: ["internal-[0-9]+"] },
      }),
    );
    expect(r.settings.codex_cap).toBeUndefined();
    expect(r.settings.review).toBe("cross");
    expect(Object.keys(r.settings.providers ?? {})).toEqual(["good"]);
    expect(r.settings.secrets_policy?.redaction_patterns).toEqual(["internal-[0-9]+"]);
    expect(r.problems).toHaveLength(2);
    expect(r.problems.join("\n")).toMatch(/codex_cap[\s\S]*ignoring codex_cap/);
    expect(r.problems.join("\n")).toMatch(/ignoring provider bad/);
  });
});
