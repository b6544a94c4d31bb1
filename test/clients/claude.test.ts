// Real-client tests for the claude adapter: the REAL pinned Claude Code CLI (clients/node_modules/.bin/claude) run by
// real workers, pointed through ANTHROPIC_BASE_URL at a scripted Messages-API mock on 127.0.0.1. No model, no network
// beyond loopback. The scenarios are shared with the gemini tests (test/helpers/cli-suite.ts).
import { realpathSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claudeAdapter } from "../../src/adapters/claude.js";
import { ProviderConfig } from "../../src/spec/schemas.js";
import { REPO } from "../helpers/bus.js";
import { realClientSuite } from "../helpers/cli-suite.js";
import { DIRECT_PROMPT, directInput } from "../helpers/clients.js";
import { type MockEndpoint, PACKET_MARKER, type Reply } from "../helpers/cli-review.js";
import { startMockAnthropic } from "../helpers/mock-anthropic.js";
import { tempRoot } from "../helpers/tmp.js";

realClientSuite({
  kind: "claude",
  adapter: claudeAdapter,
  binary: path.join(REPO, "clients", "node_modules", ".bin", "claude"),
  model: "claude-sonnet-4-5",
  author: { host: "codex", model: "gpt-5", family: "openai" },
  sameFamilyModel: "gpt-5",
  reviewerFamily: "anthropic",
  keyEnv: "MOCK_ANTHROPIC_KEY",
  nativeKeyEnv: "ANTHROPIC_API_KEY",
  refusedConnection: "not-run",
  startMock: startMockAnthropic,
  prepareHome: () => {
    // An empty HOME: no login, no settings. Auth comes from ANTHROPIC_API_KEY, set by the adapter from api_key_env.
  },
  checkReviewRequest: (r) => {
    expect(r.path).toBe("/v1/messages");
    expect(r.headers["x-api-key"]).toBe("[present]");
    const body = r.body as { stream?: boolean; tools?: Array<{ name?: string }> };
    expect(body.stream).toBe(true);
    // Read-only tools only: nothing that edits, runs commands or fetches.
    expect((body.tools ?? []).map((t) => t.name).sort()).toEqual(["Glob", "Grep", "Read"]);
  },
  slowTimeoutMs: 8_000,
  // claude keeps its own state in HOME (.claude.json, its backups) but no transcript: --no-session-persistence.
  expectHomeAfter: (_before, after) => expect(Object.keys(after).filter((f) => f.startsWith(".claude/projects/"))).toEqual([]),
  expectProjectReadable: (seen, root) => {
    expect(realpathSync(seen.cwd)).toBe(realpathSync(root)); // read-only tools, confined to the cwd by dontAsk
    expect(seen.argv).toContain("--setting-sources"); // still no project settings, hooks or CLAUDE.md
  },
  readTool: (file) => ({ name: "Read", args: { file_path: file } }),
  writeTool: (file, content) => ({ name: "Write", args: { file_path: file, content } }),
  fakeOutput: (text, model) =>
    [
      { type: "system", subtype: "init", model },
      { type: "assistant", message: { model, role: "assistant", content: [{ type: "text", text }] } },
      { type: "result", subtype: "success", is_error: false, result: text, api_error_status: null },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n") + "\n",
});

/**
 * The real claude CLI dispatched directly to a fresh mock per test: HOME is an empty directory (no login, no user
 * settings), so the key comes from api_key_env. `mock()` is the test's mock once it dispatched.
 */
function directClaude(label: string) {
  const KEY_ENV = "MOCK_ANTHROPIC_KEY";
  let mock: MockEndpoint | undefined;
  let home: string | undefined;
  afterEach(async () => {
    await mock?.close();
    mock = undefined;
    if (home !== undefined) process.env.HOME = home;
  });
  return {
    mock: () => mock!,
    async dispatch(reply: Reply, provider: { model: string; effort?: string }, prompt = DIRECT_PROMPT) {
      mock = await startMockAnthropic({ apiKey: "mock-anthropic-key", script: [reply] });
      const root = tempRoot(`guild-bus-claude-${label}-`);
      home = process.env.HOME;
      process.env.HOME = root;
      process.env[KEY_ENV] = "mock-anthropic-key";
      const binary = path.join(REPO, "clients", "node_modules", ".bin", "claude");
      const config = ProviderConfig.parse({
        adapter: "claude",
        binary,
        ...provider,
        base_url: mock.url,
        api_key_env: KEY_ENV,
        timeout_ms: 60_000,
      });
      return claudeAdapter.dispatch(directInput(root, "claude", config, prompt));
    },
  };
}

describe("claude adapter: the effort (real claude CLI, direct dispatch)", () => {
  const claude = directClaude("effort");
  const dispatch = (effort: string) => claude.dispatch({ kind: "result", verdict: "satisfied" }, { model: "claude-opus-4-5", effort });

  it("--effort reaches the API as output_config.effort", async () => {
    const out = await dispatch("high");
    expect(out.kind, JSON.stringify(out)).toBe("output");
    const bodies = claude
      .mock()
      .requests.filter((r) => r.path.startsWith("/v1/messages") && !r.path.includes("count_tokens"))
      .map((r) => r.body as { output_config?: { effort?: string } });
    expect(bodies.length).toBeGreaterThan(0);
    for (const b of bodies) expect(b.output_config?.effort).toBe("high");
  });

  it("a level its --help does not list is refused before anything runs (the CLI itself would run at its default)", async () => {
    const out = await dispatch("ultra");
    expect(out).toEqual({
      kind: "not-run",
      capability: "effort_unsupported",
      reason: "claude --effort takes low, medium, high, xhigh, max, not ultra",
    });
    expect(claude.mock().requests).toHaveLength(0);
  });
});

describe("claude adapter: an answer that did not end well is never sent again (real claude CLI, direct dispatch)", () => {
  const claude = directClaude("resend");
  const packet = DIRECT_PROMPT.replace("---\n", `---\n${PACKET_MARKER}\n`); // a review request to the mock
  const dispatch = (reply: Reply) => claude.dispatch(reply, { model: "claude-sonnet-4-5" }, packet);

  // The CLI would send the packet again on its own: without streaming after a failed stream, and after a refusal
  // (again, or to another model). Each is a second paid review of an answer that may already have been produced.
  it.each([
    ["a connection reset mid-answer (no stop reason)", { reset: true }, /ECONNRESET/],
    ["a refusal", { stop: "refusal" }, /can't help with this/],
  ])("%s: ambiguous, after exactly one request", async (_what, ending, said) => {
    const out = await dispatch({ kind: "result", verdict: "satisfied", ...ending });
    expect(out.kind, JSON.stringify(out)).toBe("ambiguous");
    expect(out.kind === "ambiguous" && out.reason).toMatch(said);
    expect(claude.mock().requests.map((r) => r.path)).toEqual(["/v1/messages"]);
    expect(claude.mock().reviewRequests()).toHaveLength(1);
  });
});
