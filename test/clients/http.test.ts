// Real-client tests for the http adapter (OpenAI-compatible chat completions): real workers dispatching through the
// adapter to a scripted mock endpoint on 127.0.0.1, plus direct dispatches for the failure classification. The
// scenarios shared with the codex adapter are in test/helpers/openai-suite.ts.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { chatCompletionsUrl, httpAdapter, REVIEW_SYSTEM_PROMPT } from "../../src/adapters/http.js";
import { ProviderConfig } from "../../src/spec/schemas.js";
import { DIRECT_PROMPT, directInput } from "../helpers/clients.js";
import { closedPort, type MockScript } from "../helpers/mock-openai.js";
import { openaiSuite } from "../helpers/openai-suite.js";
import { tempRoot } from "../helpers/tmp.js";

const KEY_ENV = "MOCK_HTTP_REVIEWER_KEY";
const MODEL = "deepseek-chat";
const REPORTED = "deepseek-v3.2-mock";

/** A base_url nothing listens on: the request provably never left. */
const refused = async () => ({ base_url: `http://127.0.0.1:${await closedPort()}/v1` });

const suite = openaiSuite({
  title: "http adapter (real workers against a mock chat-completions endpoint)",
  worker: "http",
  providerId: "deepseek",
  keyEnv: KEY_ENV,
  key: "mock-http-key-for-tests-only",
  provider: (url) => ({ adapter: "http", model: MODEL, base_url: url, api_key_env: KEY_ENV, timeout_ms: 20_000 }),
  model: MODEL,
  reported: REPORTED,
  reviewerFamily: "deepseek",
  requestPath: "/v1/chat/completions",
  formatField: "response_format",
  checkFormat: (r) => {
    expect(r.body!.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "review_result_v1", strict: true, schema: { type: "object", additionalProperties: false } },
    });
  },
  checkRequest: (r) => {
    const messages = r.body!.messages as Array<{ role: string; content: string }>;
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toBe(REVIEW_SYSTEM_PROMPT);
  },
  repair: { step: { behaviour: "satisfied", format: "fenced" }, normalizedFrom: "fenced", note: "a fenced answer this time" },
  sameFamily: {
    authorArgs: ["--author", "codex", "--author-model", "gpt-5"],
    who: "gpt-5 (codex)",
    reportedModel: "gpt-5.1",
    family: "openai",
  },
  slow: { timeoutMs: 1500, how: "request aborted", reason: (ms) => new RegExp(`within ${ms} ms`) },
  notRun: {
    how: "connection refused",
    provider: refused,
    reason: /ECONNREFUSED/,
    attemptReason: /^cannot reach 127\.0\.0\.1:\d+: ECONNREFUSED/,
  },
});

describe("http adapter: classifying endpoint failures (direct dispatch)", () => {
  async function dispatch(script: MockScript, extra: Record<string, unknown> = {}) {
    await suite.startMock(script);
    const config = ProviderConfig.parse(suite.provider({ timeout_ms: 5000, ...extra }));
    return httpAdapter.dispatch(directInput(tempRoot("guild-bus-http-direct-"), "deepseek", config, DIRECT_PROMPT));
  }

  it("builds <base_url>/chat/completions", () => {
    expect(chatCompletionsUrl("http://h:1/v1/")).toBe("http://h:1/v1/chat/completions");
    expect(chatCompletionsUrl("https://api.example.com/v1")).toBe("https://api.example.com/v1/chat/completions");
  });

  it("a satisfied answer → output, reportedModel = the response's model, bearer key sent, one request", async () => {
    const out = await dispatch({ default: "satisfied", model: REPORTED });
    expect(out).toMatchObject({ kind: "output", reportedModel: REPORTED });
    expect(JSON.parse((out as { text: string }).text)).toMatchObject({ packet_id: "pkt-direct-1", verdict: "satisfied" });
    expect(suite.mock.requests).toHaveLength(1);
    expect(suite.mock.requests[0]!.auth).toBe("match");
    expect(suite.mock.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("structured_output: false → no response_format; the fenced block is the answer", async () => {
    const out = await dispatch({ default: "satisfied" }, { structured_output: false });
    expect(out).toMatchObject({ kind: "output", reportedModel: MODEL });
    expect(suite.mock.requests[0]!.body!.response_format).toBeUndefined();
    expect((out as { text: string }).text).toContain("```review_result.v1");
  });

  it.each([
    ["status-400", "ambiguous"],
    ["status-401", "ambiguous"],
    ["status-403", "ambiguous"],
    ["status-404", "ambiguous"],
    ["status-429", "ambiguous"],
    ["status-500", "ambiguous"],
    ["status-503", "ambiguous"],
    ["drop", "ambiguous"],
    ["not-json", "ambiguous"],
  ] as const)("endpoint answers %s → %s, after exactly one request", async (behaviour, kind) => {
    const out = await dispatch({ default: behaviour });
    expect(out.kind, JSON.stringify(out)).toBe(kind);
    expect(suite.mock.requests).toHaveLength(1);
  });

  it("a body that quotes the key where the reason's cut splits it keeps no piece of the key", async () => {
    const out = await dispatch({ default: "not-json-echo" });
    expect(out).toMatchObject({ kind: "ambiguous", reason: expect.stringContaining("key=[REDACTED") });
    expect(JSON.stringify(out)).not.toContain("mock-http-key");
  });

  it("a wrong key → the endpoint's 401 → ambiguous (the request was sent), and the key is not in the reason", async () => {
    process.env.MOCK_HTTP_WRONG_KEY = "wrong-key-value-123";
    const out = await dispatch({ default: "satisfied" }, { api_key_env: "MOCK_HTTP_WRONG_KEY" });
    expect(out).toMatchObject({ kind: "ambiguous" });
    expect(JSON.stringify(out)).not.toContain("wrong-key-value-123");
    expect(suite.mock.requests[0]!.auth).toBe("mismatch");
  });

  it("slow answer past timeout_ms → ambiguous; the request is aborted", async () => {
    const out = await dispatch({ default: { behaviour: "satisfied", delayMs: 10_000 } }, { timeout_ms: 300 });
    expect(out).toMatchObject({ kind: "ambiguous" });
    expect((out as { reason: string }).reason).toMatch(/within 300 ms/);
    await sleep(100);
    expect(suite.mock.requests).toHaveLength(1);
    expect(suite.mock.requests[0]!.clientClosed).toBe(true);
  });

  it("connection refused, unset key, missing base_url, credentials in base_url → not-run without a request", async () => {
    const port = await closedPort();
    expect(await dispatch({}, { base_url: `http://127.0.0.1:${port}/v1` })).toMatchObject({ kind: "not-run" });
    expect(suite.mock.requests).toHaveLength(0);
    await suite.mock.close();
    // a port fetch refuses before it connects (the Fetch standard's block list): nothing left either
    expect(await dispatch({}, { base_url: "http://127.0.0.1:9/v1" })).toMatchObject({
      kind: "not-run",
      reason: "fetch refuses port 9 of 127.0.0.1:9 (a blocked port; nothing was sent)",
    });
    await suite.mock.close();
    expect(await dispatch({}, { api_key_env: "GUILD_BUS_TEST_UNSET_KEY" })).toMatchObject({ kind: "not-run" });
    expect(suite.mock.requests).toHaveLength(0);
    await suite.mock.close();
    expect(await dispatch({}, { base_url: undefined })).toMatchObject({ kind: "not-run" });
    expect(suite.mock.requests).toHaveLength(0);
    await suite.mock.close();
    const mock = await suite.startMock({});
    const withCredentials = ProviderConfig.parse(suite.provider({ base_url: `http://user:pw@127.0.0.1:${mock.port}/v1` }));
    const direct = directInput(tempRoot("guild-bus-http-direct-"), "deepseek", withCredentials, DIRECT_PROMPT);
    expect(await httpAdapter.dispatch(direct)).toMatchObject({ kind: "not-run" });
    expect(mock.requests).toHaveLength(0);
  });
});
