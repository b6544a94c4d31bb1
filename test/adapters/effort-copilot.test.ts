// Units of the model and effort policy and the copilot adapter: argv builders, --help capability checks (copilot
// 1.0.102's help as a fixture; the pinned CLIs' own help is checked in test/clients/help.test.ts), the classification
// of explicit capability refusals, the (model, effort) plan and its fallback chain, and copilot's family per author.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { capabilityError } from "../../src/adapters/capability-errors.js";
import { claudeArgv, classifyClaudeExit } from "../../src/adapters/claude.js";
import { codexArgv } from "../../src/adapters/codex.js";
import {
  classifyCopilotExit,
  COPILOT_FLAGS,
  copilotArgv,
  copilotHelpCheck,
  profileModel,
  resolveProfile,
} from "../../src/adapters/copilot.js";
import { classifyGeminiExit, geminiArgv, unendedFinish } from "../../src/adapters/gemini.js";
import { advertises } from "../../src/adapters/help.js";
import { configuredProviders, selectReviewer } from "../../src/core/selection.js";
import { ProviderConfig } from "../../src/spec/schemas.js";
import { attemptRecord, describeAttempt, dispatchChain, gateTier, initialPair, nextPair } from "../../src/core/dispatch-plan.js";
import { REPO } from "../helpers/bus.js";
import { directInput } from "../helpers/clients.js";
import { packet, policy } from "../helpers/snapshots.js";
import { tempRoot } from "../helpers/tmp.js";

const COPILOT_HELP = readFileSync(path.join(REPO, "fixtures", "copilot-help-1.0.102.txt"), "utf8");
const cfg = (over: Record<string, unknown>) => ProviderConfig.parse(over);

describe("argv builders: the effort is explicit on every call", () => {
  const files = { schema: "/s/schema.json", lastMessage: "/s/last.txt" };

  it("codex: -c model_reasoning_effort=<effort> (a TOML string), nothing without an effort", () => {
    const argv = codexArgv({ config: cfg({ adapter: "codex", model: "gpt-5.6-sol", effort: "xhigh" }) }, files);
    expect(argv.slice(argv.indexOf("--model"), argv.indexOf("--model") + 4)).toEqual([
      "--model",
      "gpt-5.6-sol",
      "-c",
      'model_reasoning_effort="xhigh"',
    ]);
    expect(argv.at(-1)).toBe("-");
    expect(codexArgv({ config: cfg({ adapter: "codex" }) }, files).join(" ")).not.toContain("model_reasoning_effort");
  });

  it("claude: --effort <level>; gemini has no effort flag, so none is ever sent", () => {
    expect(claudeArgv(cfg({ adapter: "claude", model: "claude-opus-4", effort: "max" }), "claude")).toEqual(
      expect.arrayContaining(["--model", "claude-opus-4", "--effort", "max"]),
    );
    expect(claudeArgv(cfg({ adapter: "claude" }), "claude")).not.toContain("--effort");
    expect(geminiArgv(cfg({ adapter: "gemini", model: "gemini-2.5-pro", effort: "high" }), "gemini").join(" ")).not.toMatch(
      /effort|thinking/,
    );
  });

  it("copilot: profile, the profile's model, the effort flag --help advertises, read-only tools, the packet file's path only", () => {
    const argv = copilotArgv("copilot", {
      profile: "rev-openai",
      model: "gpt-5.4",
      effortFlag: "--effort",
      effort: "xhigh",
      packetFile: "/tmp/x/packet.md",
      configDir: "/tmp/x",
    });
    expect(argv).toEqual([
      "copilot",
      "--prompt",
      expect.stringContaining("/tmp/x/packet.md"),
      "--silent",
      "--agent",
      "rev-openai",
      "--model",
      "gpt-5.4",
      "--effort",
      "xhigh",
      "--allow-tool=read",
      "--deny-tool=shell",
      "--deny-tool=write",
      "--add-dir=/tmp/x",
      "--no-custom-instructions",
      "--no-ask-user",
      "--disable-builtin-mcps",
      "--no-auto-update",
      "--no-color",
    ]);
    // every flag it uses is one the capability check requires
    for (const a of argv.slice(1).filter((x) => x.startsWith("--"))) {
      const name = a.split("=")[0]!;
      expect([...COPILOT_FLAGS, "--effort"]).toContain(name);
    }
  });
});

describe("--help capability checks", () => {
  it("copilot 1.0.102 advertises every flag used, and its effort flag as --reasoning-effort (whole-token match, not --effort)", () => {
    expect(advertises(COPILOT_HELP, "--effort")).toBe(false);
    expect(copilotHelpCheck(COPILOT_HELP, "xhigh")).toEqual({ flag: "--reasoning-effort" });
    expect(copilotHelpCheck(COPILOT_HELP, null)).toEqual({ flag: null });
    expect(copilotHelpCheck(COPILOT_HELP, "ultra")).toEqual({
      refused: "copilot --reasoning-effort takes none, minimal, low, medium, high, xhigh, max, not ultra",
      capability: "effort_unsupported",
    });
  });

  it("a help without a flag it needs, or without any effort flag, is refused", () => {
    const noAllow = COPILOT_HELP.replace(/--allow-tool\b/g, "--permit-tool");
    expect(copilotHelpCheck(noAllow, "high")).toEqual({ refused: "copilot --help does not advertise --allow-tool" });
    const noEffort = COPILOT_HELP.replace(/--reasoning-effort\b/g, "--thinking");
    expect(copilotHelpCheck(noEffort, "high")).toEqual({
      refused: "copilot --help advertises no effort flag (--effort or --reasoning-effort)",
      capability: "effort_unsupported",
    });
    expect(copilotHelpCheck(noEffort, null)).toEqual({ flag: null });
  });
});

describe("capability errors: only an explicit refusal of the effort or the model", () => {
  it.each([
    [
      "OpenAI 400 on the effort",
      `{"error":{"message":"Unsupported value: 'reasoning.effort' does not support 'xhigh' with this model.",` +
        `"param":"reasoning.effort","code":"unsupported_value"}}`,
      "effort_unsupported",
    ],
    ["claude API refusal", "API Error: 400 This model does not support the effort parameter.", "effort_unsupported"],
    ["a CLI rejecting the value", "error: invalid value 'ultra' for '--reasoning-effort <level>'", "effort_unsupported"],
    [
      "codex config enum",
      "Error loading config: unknown variant `ultra`, expected one of `low`, `medium` in `model_reasoning_effort`",
      "effort_unsupported",
    ],
    ["OpenAI model_not_found", "The model `gpt-9` does not exist or you do not have access to it.", "model_unknown"],
    [
      "claude's model message",
      "There's an issue with the selected model (claude-x). It may not exist or you may not have access to it.",
      "model_unknown",
    ],
    ["copilot BYOK", "Model 'x' not found on provider at http://h/v1 (HTTP 404).", "model_unknown"],
  ])("%s → %s", (_what, text, expected) => {
    expect(capabilityError(text)).toBe(expected);
  });

  it.each([
    ["a rate limit", "Error: 429 Too Many Requests: the model does not support this many requests"],
    ["auth", "401 Unauthorized: invalid api key for model gpt-5"],
    ["a timeout", "request timed out; effort xhigh not supported in time"],
    ["a server error", "HTTP 503: model overloaded, not available"],
    ["a transport error", "connection reset while streaming; effort unsupported?"],
    ["codex's own catalog warning", "Model metadata for `gpt-9` not found. Defaulting to fallback metadata"],
    ["an unrelated failure", "turn failed: tool crashed"],
  ])("never for %s", (_what, text) => {
    expect(capabilityError(text)).toBeUndefined();
  });

  it("adapters classify the refusals they saw from the real CLIs as not-run with the capability", () => {
    const claudeEvents = (text: string, status: number | null) =>
      JSON.stringify({ type: "result", is_error: true, result: text, api_error_status: status, subtype: "success", duration_api_ms: 0 });
    expect(
      classifyClaudeExit(
        1,
        null,
        claudeEvents(
          "There's an issue with the selected model (claude-bogus-9). It may not exist or you may not have access to it. " +
            "Run --model to pick a different model.",
          404,
        ),
        "",
      ),
    ).toMatchObject({ kind: "not-run", capability: "model_unknown" });
    expect(
      classifyClaudeExit(1, null, claudeEvents("API Error: 400 This model does not support the effort parameter.", 400), ""),
    ).toMatchObject({ kind: "not-run", capability: "effort_unsupported" });
    expect(classifyClaudeExit(1, null, claudeEvents("API Error: 429 rate limited", 429), "")).toMatchObject({ kind: "ambiguous" });
    // an error without an API status (a dropped connection, a refusal) is marked "success", which says nothing
    expect(classifyClaudeExit(1, null, claudeEvents("API Error: Connection to the API was lost (ECONNRESET).", null), "")).toEqual({
      kind: "ambiguous",
      reason: "claude reported an error (exit 1): API Error: Connection to the API was lost (ECONNRESET).",
    });
    const geminiError = JSON.stringify({
      error: { type: "ApiError", message: "models/gemini-9 is not found for API version v1beta, or model is not supported", code: 404 },
    });
    expect(classifyGeminiExit(148, null, "", geminiError)).toMatchObject({ kind: "not-run", capability: "model_unknown" });
    expect(classifyGeminiExit(173, null, "", JSON.stringify({ error: { message: "quota exceeded", code: 429 } }))).toMatchObject({
      kind: "ambiguous",
    });
    expect(classifyGeminiExit(127, null, "", "/usr/bin/env: 'node': No such file or directory\n")).toMatchObject({ kind: "not-run" });
    expect(classifyGeminiExit(127, null, "", "not found\n/usr/bin/env: 'node'\n")).toMatchObject({ kind: "ambiguous" });
    // gemini stopped the model (a loop it detected) and printed what it had: not an answer the model ended
    expect(
      classifyGeminiExit(0, null, JSON.stringify({ response: "## SATISFIED", warnings: ["Loop detected, stopping execution"] }), ""),
    ).toEqual({
      kind: "ambiguous",
      reason: "gemini warned during the run (Loop detected, stopping execution); such an answer is not read",
    });
    // a MiB of "env " on one line that never says "not found" is read in one pass, not rescanned from every "env"
    expect(classifyGeminiExit(127, null, "", "env ".repeat(1 << 18))).toMatchObject({ kind: "ambiguous" });
  });

  it("gemini's telemetry: the first main-conversation response not ended by the model names how it ended", () => {
    // pretty-printed records one after another, as gemini 0.61 writes its local telemetry file
    const record = (attributes: object) => JSON.stringify({ resource: { "a{": "}" }, attributes }, null, 2);
    const response = (role: string, finish: string[]) =>
      record({ "event.name": "gemini_cli.api_response", role, finish_reasons: finish, note: "a line\n}\nin a string" });
    const file = (...records: string[]) => records.join("\n") + "\n";
    expect(unendedFinish(file(record({ "event.name": "gemini_cli.config" }), response("main", ["stop"])))).toBeNull();
    // a utility call (the model router) cut short says nothing about the answer
    expect(unendedFinish(file(response("utility_router", ["length"]), response("main", ["stop"])))).toBeNull();
    expect(unendedFinish(file(response("main", ["stop"]), response("main", ["length"])))).toBe("length");
    expect(unendedFinish(file(response("main", ["content_filter"]), "{\n  not json\n}", response("main", ["stop"])))).toBe(
      "content_filter",
    );
    expect(unendedFinish("")).toBeNull(); // no file: nothing said
  });

  it("copilot: an answer is declared output; a refusal, a missing agent or no login is not-run; a 429 or a crash may have run", () => {
    const id = { model: "gpt-5.4", profile: "rev-openai" };
    expect(classifyCopilotExit(0, null, "```review_result.v1\n{}\n```", "", id)).toEqual({
      kind: "output",
      text: "```review_result.v1\n{}\n```",
      reportedModel: null,
      declared: id,
    });
    expect(
      classifyCopilotExit(1, null, "", "\n400 Unsupported value: 'reasoning.effort' does not support 'xhigh' with this model.", id),
    ).toMatchObject({ kind: "not-run", capability: "effort_unsupported" });
    expect(classifyCopilotExit(1, null, "", "No such agent: rev-openai, available: ", id)).toMatchObject({ kind: "not-run" });
    expect(
      classifyCopilotExit(1, null, "", "Error: No authentication information found.\n\nCopilot can be authenticated", id),
    ).toMatchObject({ kind: "not-run" });
    expect(classifyCopilotExit(1, null, "", "Error: 429 Too Many Requests", id).kind).toBe("ambiguous");
    expect(classifyCopilotExit(0, null, "", "", id).kind).toBe("ambiguous");
    expect(classifyCopilotExit(null, "SIGKILL", "", "", id).kind).toBe("ambiguous");
  });
});

describe("the (model, effort) plan", () => {
  it("gate tiers: exact gate, G-lane for lane gates, regular otherwise", () => {
    const settings = { gate_tiers: { "G-plan": "deep-audit" as const, "G-lane": "deep-audit" as const } };
    expect(gateTier(settings, "G-plan")).toBe("deep-audit");
    expect(gateTier(settings, "G-lane:api")).toBe("deep-audit");
    expect(gateTier(settings, "G-spec")).toBe("regular");
    expect(gateTier({}, "G-plan")).toBe("regular");
  });

  it("the tier's model and effort win over the provider's; the floor is enforced before anything runs", () => {
    const c = cfg({
      adapter: "codex",
      model: "gpt-5.6-sol",
      effort: "xhigh",
      effort_tiers: { "deep-audit": { effort: "ultra" } },
      effort_floor: "xhigh",
    });
    expect(initialPair(c, "deep-audit")).toEqual({ ok: true, pair: { model: "gpt-5.6-sol", effort: "ultra" } });
    expect(initialPair(c, "regular")).toEqual({ ok: true, pair: { model: "gpt-5.6-sol", effort: "xhigh" } });
    expect(initialPair({ ...c, effort: "high" }, "regular")).toEqual({
      ok: false,
      why: "the regular tier's effort high is below effort_floor xhigh",
    });
    expect(initialPair({ ...c, effort: undefined }, "regular")).toEqual({
      ok: false,
      why: "effort_floor xhigh is set but no effort is configured for the regular tier",
    });
    expect(initialPair(cfg({ adapter: "codex" }), "regular")).toEqual({ ok: true, pair: { model: null, effort: null } });
  });

  it("a first model other than the packet's must keep its strong independence: a settings edit since the packet, or a tier's model", () => {
    const P = packet(1); // strong, for gpt-5, a claude author's
    const promised = { packet: P, aliases: {} };
    // the model the packet names was judged by the selection: sent as it is
    expect(initialPair(cfg({ adapter: "codex", model: "gpt-5" }), "regular", promised)).toEqual({
      ok: true,
      pair: { model: "gpt-5", effort: null },
    });
    // another model of a counting family keeps the promise
    expect(initialPair(cfg({ adapter: "codex", model: "gpt-5.5" }), "regular", promised)).toMatchObject({ ok: true });
    // the author's family, or no known one, would make the paid review a weak one: nothing is dispatched
    expect(initialPair(cfg({ adapter: "codex", model: "claude-opus-4-1" }), "regular", promised)).toEqual({
      ok: false,
      why:
        "the packet was issued for gpt-5, and the provider's model is now claude-opus-4-1: " +
        "anthropic cannot keep strong independence from anthropic",
    });
    expect(initialPair(cfg({ adapter: "codex" }), "regular", promised)).toEqual({
      ok: false,
      why:
        "the packet was issued for gpt-5, and the provider's model is now the default model: " +
        "unknown cannot keep strong independence from anthropic",
    });
    const tiered = cfg({ adapter: "codex", model: "gpt-5", effort_tiers: { "deep-audit": { model: "claude-opus-4-1" } } });
    expect(initialPair(tiered, "regular", promised)).toMatchObject({ ok: true });
    expect(initialPair(tiered, "deep-audit", promised)).toMatchObject({ ok: false });
    // a weak packet promised nothing of the kind
    expect(
      initialPair(cfg({ adapter: "codex", model: "claude-opus-4-1" }), "regular", { packet: { ...P, independence: "weak" }, aliases: {} }),
    ).toMatchObject({
      ok: true,
    });
  });

  it("a CLI without effort control: said so, not pretended; refused outright when a floor is set", () => {
    expect(initialPair(cfg({ adapter: "gemini", model: "gemini-2.5-pro", effort: "high" }), "regular")).toEqual({
      ok: true,
      pair: { model: "gemini-2.5-pro", effort: null, note: "effort not supported by this CLI; high not sent" },
    });
    expect(initialPair(cfg({ adapter: "gemini", effort: "high", effort_floor: "high" }), "regular")).toEqual({
      ok: false,
      why: "effort_floor high cannot be guaranteed: effort not supported by this CLI",
    });
    expect(initialPair(cfg({ adapter: "command", argv: ["x"], effort: "high" }), "regular")).toMatchObject({
      ok: true,
      pair: { effort: null, note: "effort not supported by the command adapter; high not sent" },
    });
  });

  it("effort steps go strictly down effort_chain, never below the floor; model steps keep the packet's independence", () => {
    const P = packet(1);
    const c = cfg({
      adapter: "codex",
      effort_chain: ["ultra", "xhigh", "high", "medium"],
      effort_floor: "high",
      model_chain: ["gpt-5.5", "claude-opus-4", "gpt-5.4"],
    });
    const tried = new Set<string | null>(["gpt-5.6-sol"]);
    expect(nextPair(c, { model: "m", effort: "ultra" }, "effort_unsupported", { packet: P, aliases: {}, models: tried })).toEqual({
      ok: true,
      pair: { model: "m", effort: "xhigh" },
    });
    expect(nextPair(c, { model: "m", effort: "max" }, "effort_unsupported", { packet: P, aliases: {}, models: tried })).toEqual({
      ok: true,
      pair: { model: "m", effort: "xhigh" },
    }); // not in the chain: the next weaker entry
    expect(nextPair(c, { model: "m", effort: "high" }, "effort_unsupported", { packet: P, aliases: {}, models: tried })).toEqual({
      ok: false,
      why: "the next effort medium is below effort_floor high",
    });
    expect(nextPair(c, { model: "m", effort: null }, "effort_unsupported", { packet: P, aliases: {}, models: tried })).toEqual({
      ok: false,
      why: "no effort was sent",
    });
    expect(
      nextPair({ ...c, effort_chain: undefined }, { model: "m", effort: "xhigh" }, "effort_unsupported", {
        packet: P,
        aliases: {},
        models: tried,
      }),
    ).toEqual({ ok: false, why: "effort_chain has no effort below xhigh" });
    expect(nextPair(c, { model: "gpt-5.6-sol", effort: "xhigh" }, "model_unknown", { packet: P, aliases: {}, models: tried })).toEqual({
      ok: true,
      pair: { model: "gpt-5.5", effort: "xhigh" },
    });
    // an anthropic model cannot review a claude-authored strong packet: skipped
    expect(nextPair(c, { model: "gpt-5.5", effort: "xhigh" }, "model_unknown", { packet: P, aliases: {}, models: tried })).toEqual({
      ok: true,
      pair: { model: "gpt-5.4", effort: "xhigh" },
    });
    expect(nextPair(c, { model: "gpt-5.4", effort: "xhigh" }, "model_unknown", { packet: P, aliases: {}, models: tried })).toEqual({
      ok: false,
      why: "model_chain has no further model",
    });
    expect(
      nextPair(cfg({ adapter: "copilot" }), { model: null, effort: "high" }, "model_unknown", { packet: P, aliases: {}, models: tried }),
    ).toEqual({ ok: false, why: "copilot runs its agent profile's model: no model fallback" });
  });

  it("a quorum member is answered only by a model of its own family: a tier's model, a model step, a fallback provider", () => {
    // the member gem (google) of a 2/2 round whose other member is openai: an openai stand-in would make the round's
    // two reviews one family's, which count once (SPEC §26) — the round could never pass on them
    const member = packet(1, {
      packet_id: "G-spec-run-x-r1+gem",
      reviewer_provider: "gem",
      reviewer_adapter: "gemini",
      reviewer_model: "gemini-2.5-pro",
      reviewer_family: "google",
      quorum: { need: 2, of: 2 },
    });
    const keep = { packet: member, aliases: {} };
    const gem = cfg({ adapter: "gemini", model: "gemini-2.5-pro", effort_tiers: { "deep-audit": { model: "gpt-5-mini" } } });
    expect(initialPair(gem, "regular", keep)).toEqual({ ok: true, pair: { model: "gemini-2.5-pro", effort: null } });
    expect(initialPair(gem, "deep-audit", keep)).toEqual({
      ok: false,
      why:
        "the deep-audit tier's model gpt-5-mini is refused: " +
        "openai is not gem's family in the quorum round (google): families must stay distinct",
    });
    expect(initialPair({ ...gem, effort_tiers: { "deep-audit": { model: "gemini-2.5-flash" } } }, "deep-audit", keep)).toMatchObject({
      ok: true,
    });
    // a single reviewer's packet keeps only strong independence: another known family than the author's may stand in
    expect(initialPair(gem, "deep-audit", { packet: packet(1), aliases: {} })).toMatchObject({ ok: true });
    expect(
      initialPair({ ...gem, effort_tiers: { "deep-audit": { model: "claude-opus-4" } } }, "deep-audit", { packet: packet(1), aliases: {} }),
    ).toEqual({
      ok: false,
      why: "the deep-audit tier's model claude-opus-4 is refused: anthropic cannot keep strong independence from anthropic",
    });
    const chain = cfg({ adapter: "gemini", model_chain: ["gpt-5.5", "claude-opus-4", "gemini-2.5-flash"] });
    expect(
      nextPair(chain, { model: "gemini-2.5-pro", effort: null }, "model_unknown", { ...keep, models: new Set(["gemini-2.5-pro"]) }),
    ).toEqual({
      ok: true,
      pair: { model: "gemini-2.5-flash", effort: null },
    });
    const settings = {
      providers: {
        gem: cfg({ adapter: "gemini", model: "gemini-2.5-pro", fallback: ["mini", "flash"] }),
        mini: cfg({ adapter: "codex", model: "gpt-5-mini", selectable: false }),
        flash: cfg({ adapter: "gemini", model: "gemini-2.5-flash", selectable: false }),
      },
    };
    const planned = dispatchChain(member, settings, () => true);
    expect(planned).toMatchObject({ ok: true, links: [{ id: "gem" }, { id: "flash" }] });
    expect(planned.skipped).toEqual([
      "mini: fallback refused, family openai is not gem's family in the quorum round (google): families must stay distinct",
    ]);
    expect(dispatchChain(packet(1, { ...member, quorum: undefined }), settings, () => true)).toMatchObject({
      links: [{ id: "gem" }, { id: "mini" }, { id: "flash" }],
    });
  });

  it("attempt records carry the pair, the capability and copilot's declared model; one readable line each", () => {
    const c = cfg({ adapter: "copilot" });
    const a = attemptRecord({
      provider: "copilot",
      config: c,
      pair: { model: null, effort: "xhigh" },
      tier: "regular",
      outcome: { kind: "not-run", capability: "effort_unsupported", reason: "refused", declared: { model: "gpt-5.4", profile: "p" } },
      scrub: {},
    });
    expect(a).toEqual({
      provider: "copilot",
      adapter: "copilot",
      model: "gpt-5.4",
      effort: "xhigh",
      tier: "regular",
      outcome: "not-run",
      capability: "effort_unsupported",
      reason: "refused",
    });
    expect(describeAttempt(a)).toBe("copilot (gpt-5.4, effort xhigh) did not run [effort_unsupported] (refused)");
  });
});

describe("copilot: a family per author, from configured profiles", () => {
  const settings = {
    providers: {
      copilot: {
        adapter: "copilot" as const,
        input: "stdin" as const,
        selectable: true,
        copilot_profiles: { openai: "rev-openai", anthropic: "rev-claude" },
      },
    },
  };
  const author = (family: "anthropic" | "openai" | "google") => ({ host: "h", model: null, family, source: "host-map" as const });

  it("takes the first configured family other than the author's, so it can be selected strong", () => {
    const providers = configuredProviders(settings);
    expect(selectReviewer(policy(), { reviewer: "copilot" }, author("anthropic"), providers, settings)).toMatchObject({
      status: "selected",
      independence: "strong",
      provider: { id: "copilot", family: "openai" },
    });
    expect(selectReviewer(policy(), { reviewer: "copilot" }, author("openai"), providers, settings)).toMatchObject({
      status: "selected",
      provider: { family: "anthropic" },
    });
  });

  it("without profiles it has no family: never auto-selected, and a pin degrades to the weak path", () => {
    const bare = { providers: { copilot: { adapter: "copilot" as const, input: "stdin" as const, selectable: true } } };
    const providers = configuredProviders(bare);
    expect(selectReviewer(policy(), { reviewer: "auto" }, author("anthropic"), providers, bare)).toMatchObject({
      status: "degraded-local",
    });
    expect(selectReviewer(policy(), { reviewer: "copilot" }, author("anthropic"), providers, bare)).toMatchObject({
      status: "degraded-local",
      reason: "pinned reviewer copilot has no known model family",
    });
  });

  it("reads the profile's model from its YAML front matter and checks it is of the family it is configured for", () => {
    expect(profileModel('---\nname: r\nmodel: "gpt-5.4"\n---\nbody')).toBe("gpt-5.4");
    expect(profileModel("no front matter\nmodel: gpt-5.4")).toBeNull();
    const root = tempRoot("guild-bus-copilot-");
    const write = (name: string, text: string) => {
      const file = path.join(root, ".github", "agents", `${name}.agent.md`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    };
    write("rev-openai", "---\nmodel: gpt-5.4\n---\n");
    write("rev-claude", "---\nmodel: gpt-5.4\n---\n"); // misconfigured: an openai model under the anthropic key
    const input = (authorFamily: "anthropic" | "openai") => {
      const i = directInput(root, "copilot", cfg(settings.providers.copilot), "");
      return { ...i, front: { ...i.front, author_family: authorFamily } };
    };
    expect(resolveProfile(input("anthropic"))).toMatchObject({
      ok: true,
      chosen: { profile: "rev-openai", family: "openai", model: "gpt-5.4" },
    });
    expect(resolveProfile(input("openai"))).toEqual({
      ok: false,
      reason: "profile rev-claude is configured for anthropic but its model gpt-5.4 is openai",
    });
  });
});
