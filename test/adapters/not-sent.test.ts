// What proves that a reviewer's request never left (SPEC §15): each CLI's own messages, on the shapes the pinned CLIs
// print; the key variables a CLI child gets are the ones detection counts; codex's retries are off on every provider.
import { describe, expect, it } from "vitest";
import { classifyClaudeExit } from "../../src/adapters/claude.js";
import { codexProviderArgs } from "../../src/adapters/codex.js";
import { childEnv } from "../../src/adapters/environment.js";
import { messageText } from "../../src/adapters/http.js";
import { provesNotSent } from "../../src/adapters/not-sent.js";
import { detectProviders, type Probe } from "../../src/adapters/probe.js";
import { dispatchProject } from "../../src/adapters/types.js";
import { ADAPTER_KIND_INFO, CLI_KINDS } from "../../src/core/adapter-kinds.js";
import { Layout } from "../../src/bus/layout.js";
import { ProviderConfig, type PacketFrontMatter } from "../../src/spec/schemas.js";
import { withEnv } from "../helpers/cli-review.js";
import { tempRoot } from "../helpers/tmp.js";

describe("each CLI's proof that nothing was sent", () => {
  it("claude 2.1.332: a refused connection or an unknown host, never a connection dropped after sending", () => {
    expect(provesNotSent("claude", "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)")).toBe(true);
    expect(provesNotSent("claude", "API Error: Can't reach the API server — check your internet or DNS (ENOTFOUND)")).toBe(true);
    expect(
      provesNotSent("claude", "API Error: Connection dropped (ECONNRESET). Check the gateway set in ANTHROPIC_BASE_URL, then try again."),
    ).toBe(false);
    expect(provesNotSent("claude", 'API Error: 500 {"type":"error"} (ECONNREFUSED) and more')).toBe(false);
  });

  it("codex 0.171: waiting for the network after a failed connection, never a dropped stream or a retry", () => {
    expect(provesNotSent("codex", "Reconnecting... waiting for network (Connection failed: error sending request)")).toBe(true);
    expect(provesNotSent("codex", "stream disconnected before completion: error sending request")).toBe(false);
    expect(provesNotSent("codex", "Reconnecting... 1/5 (We’re currently experiencing high demand)")).toBe(false);
  });

  it("gemini 0.61: nothing (its message is the same for a refused connection and one dropped after sending)", () => {
    expect(provesNotSent("gemini", "exception TypeError: fetch failed sending request")).toBe(false);
  });

  const result = (text: string, model = "<synthetic>") =>
    [
      { type: "assistant", message: { model, content: [{ type: "text", text }] } },
      {
        type: "result",
        subtype: "success",
        is_error: true,
        result: text,
        api_error_status: null,
        api_error: "connection_failed",
        duration_api_ms: 0,
      },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n");

  it("claude's refused connection is not-run; a reset, or one after a model answered, may have run", () => {
    const refused = "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)";
    expect(classifyClaudeExit(1, null, result(refused), "")).toMatchObject({
      kind: "not-run",
      reason: expect.stringMatching(/nothing was sent/),
    });
    expect(classifyClaudeExit(1, null, result("API Error: Connection dropped (ECONNRESET). Check the gateway"), "")).toMatchObject({
      kind: "ambiguous",
    });
    const afterAnswer =
      JSON.stringify({ type: "assistant", message: { model: "claude-sonnet-4-5", content: [] } }) + "\n" + result(refused);
    expect(classifyClaudeExit(1, null, afterAnswer, "")).toMatchObject({ kind: "ambiguous" });
  });
});

describe("the key variables a CLI child gets are the ones detection counts", () => {
  const front = { packet_id: "p", round: 1 } as PacketFrontMatter;
  const ALL_KEYS = [
    ...new Set([...CLI_KINDS.flatMap((k) => ADAPTER_KIND_INFO[k].cli!.keyVars), "OPENAI_API_KEY", "GOOGLE_API_KEY", "OTHER_KEY"]),
  ];
  const env = Object.fromEntries(ALL_KEYS.map((k) => [k, `value-of-${k}`]));
  const probe = (vars: Record<string, string>): Probe => ({
    which: (b) => `/usr/bin/${b}`,
    version: async () => ({ kind: "ok", version: "1.0" }),
    stamp: () => null,
    env: vars,
    fileExists: () => false,
    home: "/home/u",
  });

  it.each(CLI_KINDS)("%s: the same variables, and no other provider's", async (kind) => {
    const config = ProviderConfig.parse({ adapter: kind });
    const passed = withEnv(env, () => childEnv({ project: dispatchProject("/tmp", {}), config, front }));
    const given = ALL_KEYS.filter((k) => passed[k] !== undefined);
    expect(given).toEqual([...ADAPTER_KIND_INFO[kind].cli!.keyVars]);
    // each one alone is an auth signal to detection, and nothing else is
    for (const k of ALL_KEYS) {
      const found = await detectProviders({ providers: { x: config } }, new Layout(tempRoot()), probe({ [k]: "v" }));
      expect(found.find((p) => p.id === "x")!.auth !== null, `${kind} ${k}`).toBe(given.includes(k));
    }
  });

  it("with api_key_env, only that key counts, and the CLI's own variables stay behind", async () => {
    const config = ProviderConfig.parse({ adapter: "claude", api_key_env: "OTHER_KEY" });
    const passed = withEnv(env, () => childEnv({ project: dispatchProject("/tmp", {}), config, front }));
    expect(ALL_KEYS.filter((k) => passed[k] !== undefined)).toEqual([]);
    const found = await detectProviders({ providers: { x: config } }, new Layout(tempRoot()), probe({ ANTHROPIC_API_KEY: "v" }));
    expect(found.find((p) => p.id === "x")!.auth).toBeNull();
  });
});

describe("codex: no retries on whichever model provider a dispatch runs on", () => {
  const cfg = (over: Record<string, unknown> = {}) => ProviderConfig.parse({ adapter: "codex", ...over });
  const args = (r: ReturnType<typeof codexProviderArgs>) => (r.ok ? r.args.join(" ") : `refused: ${r.reason}`);

  it("a provider the user's config.toml defines (top level, or the active profile's) gets the retry settings", () => {
    const toml = 'model_provider = "mine"\n[model_providers.mine]\nname = "m"\nbase_url = "http://x"\n';
    expect(args(codexProviderArgs(cfg(), toml))).toBe(
      "-c model_providers.mine.request_max_retries=0 -c model_providers.mine.stream_max_retries=0",
    );
    const profiled = 'profile = "work"\n[profiles.work]\nmodel_provider = "mine"\n[model_providers.mine]\nname = "m"\n';
    expect(args(codexProviderArgs(cfg(), profiled))).toContain("model_providers.mine.request_max_retries=0");
  });

  it("codex's built-in openai (no config, or chosen) becomes an equivalent of the adapter's own, pinned over a profile", () => {
    const NO_RETRIES = 'wire_api="responses",request_max_retries=0,stream_max_retries=0}';
    for (const toml of [null, "", 'model_provider = "openai"\n'])
      expect(args(codexProviderArgs(cfg(), toml))).toBe(
        `-c model_provider="guild_bus" -c model_providers.guild_bus={name="OpenAI",requires_openai_auth=true,${NO_RETRIES}`,
      );
    const profiled = 'openai_base_url = "http://gw/v1"\nprofile = "p1"\n[profiles.p1]\nmodel_provider = "openai"\n';
    expect(args(codexProviderArgs(cfg(), profiled))).toBe(
      '-c model_provider="guild_bus" -c profiles.p1.model_provider="guild_bus" ' +
        `-c model_providers.guild_bus={name="OpenAI",base_url="http://gw/v1",requires_openai_auth=true,${NO_RETRIES}`,
    );
  });

  it("refused: another built-in, extra_args that choose the provider, a config that does not parse", () => {
    for (const id of ["ollama", "lmstudio", "amazon-bedrock"])
      expect(args(codexProviderArgs(cfg(), `model_provider = "${id}"\n`))).toMatch(
        /refused: .*built-ins, whose retries cannot be turned off/,
      );
    for (const extra of [["--profile", "x"], ["-c", 'model_provider="x"'], ["--oss"]])
      expect(args(codexProviderArgs(cfg({ extra_args: extra }), null))).toMatch(/refused: .*extra_args choose the model provider/);
    expect(args(codexProviderArgs(cfg(), "model_provider = "))).toMatch(/refused: .*does not parse/);
  });
});

describe("http: the answer's content", () => {
  it("a string, or an array of parts whose text parts are joined (OpenAI-compatible servers); else nothing", () => {
    expect(messageText("a")).toBe("a");
    expect(messageText([{ type: "text", text: '{"verdict":' }, { type: "image_url" }, { type: "text", text: "1}" }])).toBe('{"verdict":1}');
    expect(messageText(null)).toBeNull();
    expect(messageText({ text: "x" })).toBeNull();
  });
});
