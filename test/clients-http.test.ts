// Real-client tests for the http adapter (OpenAI-compatible chat completions): real workers dispatching through the
// adapter to a scripted mock endpoint on 127.0.0.1, plus direct dispatches for the failure classification.
import { readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { chatCompletionsUrl, httpAdapter, REVIEW_SYSTEM_PROMPT } from "../src/adapters/http.js";
import { ProviderConfig } from "../src/spec/schemas.js";
import { makeProject, type Project, startBus } from "./helpers/bus.js";
import { ARTIFACT_LINE, cliAsync, DIRECT_PROMPT, directInput, guildText, packetField, SECRETS, SPEC, waitStateAsync } from "./helpers/clients.js";
import { closedPort, type MockOpenAI, type MockScript, startMockOpenAI } from "./helpers/mock-openai.js";
import { tempRoot } from "./helpers/tmp.js";

const KEY_ENV = "MOCK_HTTP_REVIEWER_KEY";
const KEY = "mock-http-key-for-tests-only";
const RUN = "r1";
const GATE = "G-spec";
const MODEL = "deepseek-chat";
const REPORTED = "deepseek-v3.2-mock";

let mock: MockOpenAI | undefined;

beforeAll(() => {
  process.env[KEY_ENV] = KEY;
});

afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

function httpProvider(extra: Record<string, unknown> = {}) {
  return { adapter: "http", model: MODEL, base_url: mock!.url, api_key_env: KEY_ENV, timeout_ms: 20_000, ...extra };
}

async function setup(script: MockScript, provider: Record<string, unknown> = {}): Promise<Project> {
  mock = await startMockOpenAI({ apiKey: KEY, ...script });
  const p = makeProject();
  p.settings({ providers: { deepseek: httpProvider(provider) } });
  p.write("docs/spec.md", SPEC);
  startBus(p, ["broker", "verifier", "http"]);
  return p;
}

const review = (p: Project, extra: string[] = ["--author", "claude"]) =>
  cliAsync(p, ["review", "docs/spec.md", "--gate", GATE, "--run-id", RUN, "--wait", "--json", "--timeout", "45", ...extra]);

function expectCleanRequests(p: Project, packetRounds: number[]) {
  const reqs = mock!.requests;
  expect(reqs.length).toBe(packetRounds.length);
  reqs.forEach((r, i) => {
    expect(r.method).toBe("POST");
    expect(r.path).toBe("/v1/chat/completions");
    expect(r.auth).toBe("match");
    expect(r.requestedModel).toBe(MODEL);
    expect(r.structured).toBe(true);
    const messages = r.body!.messages as Array<{ role: string; content: string }>;
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toBe(REVIEW_SYSTEM_PROMPT);
    expect(r.packetId).toBe(packetField(p, RUN, GATE, packetRounds[i]!, "packet_id"));
    expect(r.prompt).toContain(ARTIFACT_LINE);
    expect(r.prompt).toContain("[REDACTED:");
    for (const s of SECRETS) expect(r.raw, `secret ${s.name} reached the endpoint`).not.toContain(s.secret);
  });
  expect(guildText(p)).not.toContain(KEY);
}

const logsOf = (p: Project) => p.logs.join("").slice(-3000);

describe("http adapter (real workers against a mock chat-completions endpoint)", () => {
  it("(1) one round to satisfied: json_schema response format, model reported by the endpoint, exactly one request, no secrets", async () => {
    const p = await setup({ default: "satisfied", model: REPORTED });
    const r = await review(p);
    expect(r.code, r.stderr + logsOf(p)).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "satisfied", state: "done", rounds: 1, independence: "strong", reviewer_host: "deepseek" });
    expect(p.readJson(RUN, GATE, "result-1.json")).toMatchObject({
      verdict: "satisfied", reviewer_host: "deepseek", reviewer_model: REPORTED, reviewer_model_source: "reported", normalized_from: "whole-json",
    });
    expect(p.readJson(RUN, GATE, "outcome.json")).toMatchObject({ status: "satisfied", independence: "strong", reviewer_family: "deepseek", author_family: "anthropic" });
    expectCleanRequests(p, [1]);
    expect(mock!.requests[0]!.body!.response_format).toMatchObject({
      type: "json_schema", json_schema: { name: "review_result_v1", strict: true, schema: { type: "object", additionalProperties: false } },
    });
  });

  it("(2) issues with a blocking finding: the gate waits for the author (exit 3); resubmit → satisfied in round 2", async () => {
    const p = await setup({ sequence: ["issues", "satisfied"], model: REPORTED });
    const r = await review(p);
    expect(r.code, r.stderr + logsOf(p)).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "rework", state: "awaiting_author", rounds: 1 });
    const result = p.readJson<{ verdict: string; blocking_findings: Array<{ title: string; severity: string }> }>(RUN, GATE, "result-1.json");
    expect(result.verdict).toBe("issues");
    expect(result.blocking_findings).toEqual([expect.objectContaining({ severity: "blocking", title: "Mock blocking finding" })]);
    expect(p.files(RUN, GATE)).not.toContain("outcome.json");
    expect(mock!.requests).toHaveLength(1);

    p.write("docs/spec.md", SPEC + "- the button is disabled while exporting\n");
    const again = await cliAsync(p, ["resubmit", RUN, GATE, "--wait", "--json"]);
    expect(again.code, again.stderr + logsOf(p)).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "satisfied", satisfied_at_round: 2, rounds: 2 });
    expectCleanRequests(p, [1, 2]);
    expect(mock!.requests[1]!.prompt).toContain("Prior rounds");
    expect(mock!.requests[1]!.prompt).toContain("Mock blocking finding");
  });

  it("(3) prose ending in a valid ## SATISFIED → satisfied (sentinel)", async () => {
    const p = await setup({ default: "sentinel", model: REPORTED });
    const r = await review(p);
    expect(r.code, r.stderr + logsOf(p)).toBe(0);
    expect(p.readJson(RUN, GATE, "result-1.json")).toMatchObject({ verdict: "satisfied", normalized_from: "sentinel", reviewer_model: REPORTED });
    expectCleanRequests(p, [1]);
  });

  it("(4a) malformed output → exactly one schema-repair request → repaired result (a fenced answer this time)", async () => {
    const p = await setup({ sequence: ["malformed", { behaviour: "satisfied", format: "fenced" }], model: REPORTED });
    const r = await review(p);
    expect(r.code, r.stderr + logsOf(p)).toBe(0);
    expect(p.readJson(RUN, GATE, "result-1.json")).toMatchObject({ verdict: "satisfied", repaired: true, normalized_from: "fenced" });
    expectCleanRequests(p, [1, 1]);
    expect(mock!.requests.map((q) => q.isRepair)).toEqual([false, true]);
    expect(mock!.requests[1]!.prompt).toContain("Your previous answer");
  });

  it("(4b) malformed twice → failure-1.json malformed; the broker restarts the round", async () => {
    const p = await setup({ sequence: ["malformed", "malformed"], default: "satisfied", model: REPORTED });
    const r = await review(p);
    expect(r.code, r.stderr + logsOf(p)).toBe(0);
    expect(p.readJson(RUN, GATE, "failure-1.json")).toMatchObject({ kind: "malformed", round: 1 });
    expect(p.files(RUN, GATE)).not.toContain("result-1.json");
    expect(readFileSync(path.join(p.gateDir(RUN, GATE), "packet-2.md"), "utf8")).toMatch(/restart_reason: malformed/);
    expect(p.readJson(RUN, GATE, "outcome.json")).toMatchObject({ status: "satisfied", satisfied_at_round: 2 });
    expectCleanRequests(p, [1, 1, 2]);
    expect(mock!.requests.map((q) => q.isRepair)).toEqual([false, true, false]);
  });

  it("(5) author gpt-5 (codex), the endpoint reports a gpt model → same family: recorded as weak", async () => {
    const p = await setup({ default: "satisfied", model: "gpt-5.1" });
    const r = await review(p, ["--author", "codex", "--author-model", "gpt-5"]);
    expect(r.code, r.stderr + logsOf(p)).toBe(0);
    expect(readFileSync(path.join(p.gateDir(RUN, GATE), "packet-1.md"), "utf8")).toMatch(/independence: strong/);
    expect(p.readJson(RUN, GATE, "result-1.json")).toMatchObject({ reviewer_model: "gpt-5.1", reviewer_model_source: "reported" });
    expect(p.readJson(RUN, GATE, "verdict-1.json")).toMatchObject({ reviewer_family: "openai", independence_violation: true });
    expect(p.readJson(RUN, GATE, "outcome.json")).toMatchObject({ status: "satisfied", independence: "weak", author_family: "openai" });
    expect(JSON.parse(r.stdout)).toMatchObject({ independence: "weak" });
    expectCleanRequests(p, [1]);
  });

  it("(6) an answer slower than timeout_ms → request aborted, no_verdict, awaiting a decision, never dispatched again", async () => {
    const p = await setup({ default: { behaviour: "satisfied", delayMs: 30_000 } }, { timeout_ms: 1500 });
    expect((await cliAsync(p, ["review", "docs/spec.md", "--gate", GATE, "--run-id", RUN, "--author", "claude"])).code).toBe(0);
    const s = await waitStateAsync(p, RUN, GATE, ["awaiting_decision"], 30_000);
    expect(s.status).toBe("no_verdict");
    const failure = p.readJson(RUN, GATE, "failure-1.json");
    expect(failure).toMatchObject({ kind: "no_verdict" });
    expect(String(failure.reason)).toMatch(/within 1500 ms/);
    expect(p.readJson(RUN, GATE, "escalation-1.json")).toMatchObject({ reason: "no_verdict" });
    expect(mock!.requests).toHaveLength(1);
    expect(mock!.requests[0]!.clientClosed).toBe(true);
    expect(mock!.requests[0]!.answered).toBe(false);
    await sleep(2000); // several reconcile passes (300 ms) of every worker
    expect(mock!.requests).toHaveLength(1);
    expect(p.files(RUN, GATE).filter((f) => /^(attempt|packet)-/.test(f))).toEqual(["attempt-1.json", "packet-1.md"]);
  });

  it("(7a) connection refused → failure unavailable (nothing was sent); the broker selects again without it", async () => {
    const port = await closedPort();
    const p = await setup({ default: "satisfied" }, { base_url: `http://127.0.0.1:${port}/v1` });
    expect((await cliAsync(p, ["review", "docs/spec.md", "--gate", GATE, "--run-id", RUN, "--author", "claude"])).code).toBe(0);
    await p.waitFor(RUN, GATE, (f) => f.includes("failure-1.json"), "failure-1.json");
    const failure = p.readJson(RUN, GATE, "failure-1.json");
    expect(failure).toMatchObject({ kind: "unavailable", reviewer_provider: "deepseek" });
    expect(String(failure.reason)).toMatch(/ECONNREFUSED/);
    expect(p.files(RUN, GATE)).not.toContain("result-1.json");
    await p.waitFor(RUN, GATE, (f) => f.includes("packet-2.md"), "packet-2.md");
    const packet2 = readFileSync(path.join(p.gateDir(RUN, GATE), "packet-2.md"), "utf8");
    expect(packet2).toMatch(/restart_reason: degraded/);
    expect(packet2).not.toMatch(/reviewer_provider: deepseek\n/);
    await sleep(1000);
    expect(p.files(RUN, GATE)).not.toContain("attempt-2.json");
    expect(mock!.requests).toHaveLength(0);
  });

  it("(7b) fallback allowed: connection refused on the addressed provider → its configured fallback reviews (one request)", async () => {
    const port = await closedPort();
    mock = await startMockOpenAI({ apiKey: KEY, default: "satisfied", model: REPORTED });
    const p = makeProject();
    p.settings({
      providers: {
        deepseek: httpProvider({ base_url: `http://127.0.0.1:${port}/v1`, fallback: ["deepseek-backup"] }),
        "deepseek-backup": httpProvider({ selectable: false }),
      },
    });
    p.write("docs/spec.md", SPEC);
    startBus(p, ["broker", "verifier", "http"]);
    const r = await review(p);
    expect(r.code, r.stderr + logsOf(p)).toBe(0);
    const result = p.readJson(RUN, GATE, "result-1.json");
    expect(result).toMatchObject({
      reviewer_host: "deepseek-backup", reviewer_model: REPORTED,
      dispatch_attempts: [
        { provider: "deepseek", outcome: "not-run", reason: expect.stringMatching(/^cannot reach 127\.0\.0\.1:\d+: ECONNREFUSED/) },
        { provider: "deepseek-backup", outcome: "output" },
      ],
    });
    expectCleanRequests(p, [1]);
  });
});

describe("http adapter: classifying endpoint failures (direct dispatch)", () => {
  async function dispatch(script: MockScript, extra: Record<string, unknown> = {}) {
    mock = await startMockOpenAI({ apiKey: KEY, ...script });
    const config = ProviderConfig.parse(httpProvider({ timeout_ms: 5000, ...extra }));
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
    expect(mock!.requests).toHaveLength(1);
    expect(mock!.requests[0]!.auth).toBe("match");
    expect(mock!.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("structured_output: false → no response_format; the fenced block is the answer", async () => {
    const out = await dispatch({ default: "satisfied" }, { structured_output: false });
    expect(out).toMatchObject({ kind: "output", reportedModel: MODEL });
    expect(mock!.requests[0]!.body!.response_format).toBeUndefined();
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
    expect(mock!.requests).toHaveLength(1);
  });

  it("a wrong key → the endpoint's 401 → ambiguous (the request was sent), and the key is not in the reason", async () => {
    process.env.MOCK_HTTP_WRONG_KEY = "wrong-key-value-123";
    const out = await dispatch({ default: "satisfied" }, { api_key_env: "MOCK_HTTP_WRONG_KEY" });
    expect(out).toMatchObject({ kind: "ambiguous" });
    expect(JSON.stringify(out)).not.toContain("wrong-key-value-123");
    expect(mock!.requests[0]!.auth).toBe("mismatch");
  });

  it("slow answer past timeout_ms → ambiguous; the request is aborted", async () => {
    const out = await dispatch({ default: { behaviour: "satisfied", delayMs: 10_000 } }, { timeout_ms: 300 });
    expect(out).toMatchObject({ kind: "ambiguous" });
    expect((out as { reason: string }).reason).toMatch(/within 300 ms/);
    await sleep(100);
    expect(mock!.requests).toHaveLength(1);
    expect(mock!.requests[0]!.clientClosed).toBe(true);
  });

  it("connection refused, unset key, missing base_url, credentials in base_url → not-run without a request", async () => {
    const port = await closedPort();
    expect(await dispatch({}, { base_url: `http://127.0.0.1:${port}/v1` })).toMatchObject({ kind: "not-run" });
    expect(mock!.requests).toHaveLength(0);
    await mock!.close();
    expect(await dispatch({}, { api_key_env: "GUILD_BUS_TEST_UNSET_KEY" })).toMatchObject({ kind: "not-run" });
    expect(mock!.requests).toHaveLength(0);
    await mock!.close();
    expect(await dispatch({}, { base_url: undefined })).toMatchObject({ kind: "not-run" });
    expect(mock!.requests).toHaveLength(0);
    await mock!.close();
    mock = await startMockOpenAI({ apiKey: KEY });
    const withCredentials = ProviderConfig.parse(httpProvider({ base_url: `http://user:pw@127.0.0.1:${mock.port}/v1` }));
    expect(await httpAdapter.dispatch(directInput(tempRoot("guild-bus-http-direct-"), "deepseek", withCredentials, DIRECT_PROMPT))).toMatchObject({ kind: "not-run" });
    expect(mock.requests).toHaveLength(0);
  });
});
