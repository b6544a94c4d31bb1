// The scenarios shared by the codex and http tests: real workers (broker, verifier and `worker codex|http`) on a temp
// project, dispatching to the scripted OpenAI-compatible mock (test/helpers/mock-openai.ts) on 127.0.0.1.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { makeProject, type Project, startBus, stopChild } from "./bus.js";
import { waitSeconds } from "./machine.js";
import { ARTIFACT_LINE, type CliResult, cliAsync, guildText, packetField, SECRETS, SPEC, until, waitStateAsync } from "./clients.js";
import { type Behaviour, type MockOpenAI, type MockScript, type RecordedRequest, type Step, startMockOpenAI } from "./mock-openai.js";

export const RUN = "r1";
export const GATE = "G-spec";

type Provider = Record<string, unknown>;

export interface OpenAIClientSpec {
  /** The describe title. */
  title: string;
  worker: "codex" | "http";
  /** The provider id in settings (and the reviewer_host it reports). */
  providerId: string;
  /** A real CLI that must exist (codex); none for the in-process http adapter. */
  binary?: string;
  keyEnv: string;
  key: string;
  /** The provider config for the mock at `url`, before per-test overrides. */
  provider(url: string): Provider;
  /** The model pinned in the config, and the one the mock reports back. */
  model: string;
  reported: string;
  reviewerFamily: string;
  /** /v1/responses (codex) or /v1/chat/completions (http). */
  requestPath: string;
  /** Where the request carries its json_schema (for the test title), and what it must look like. */
  formatField: string;
  checkFormat(r: RecordedRequest): void;
  /** Adapter-specific checks of every request. */
  checkRequest?(r: RecordedRequest): void;
  /** Per-project preparation before the bus starts (codex: a scratch CODEX_HOME); returns extra settings. */
  prepare?(p: Project): Record<string, unknown>;
  /** The answer to the repair request, and the normalized_from it yields. */
  repair: { step: Behaviour | Step; normalizedFrom: string; note: string };
  /** An author whose family the reported model shares. */
  sameFamily: { authorArgs: string[]; who: string; reportedModel: string; family: string };
  /** The slow-answer scenario: how the client is stopped, and the failure reason it leaves. */
  slow: { timeoutMs: number; how: string; reason(timeoutMs: number): RegExp };
  /** A provider override that provably fails before any request, and the reasons it leaves. */
  notRun: { how: string; provider(): Promise<Provider>; reason: RegExp; attemptReason: RegExp };
  /** Adapter-specific tests, run inside the suite's describe. */
  extraTests?(s: OpenAISuite): void;
}

export interface OpenAISuite {
  /** The current test's mock (closed after each test). */
  readonly mock: MockOpenAI;
  startMock(script: MockScript): Promise<MockOpenAI>;
  provider(extra?: Provider): Provider;
  setup(script: MockScript, provider?: Provider, providers?: () => Record<string, Provider>): Promise<Project>;
  review(p: Project, extra?: string[]): Promise<CliResult>;
  expectCleanRequests(p: Project, packetRounds: number[]): void;
  logsOf(p: Project): string;
}

export function openaiSuite(spec: OpenAIClientSpec): OpenAISuite {
  let current: MockOpenAI | undefined;
  /** The workers `setup` started last. */
  let bus: ChildProcess[] = [];

  beforeAll(() => {
    if (spec.binary && !existsSync(spec.binary))
      throw new Error(`the pinned ${spec.worker} CLI is missing at ${spec.binary}: run npm --prefix clients ci`);
    process.env[spec.keyEnv] = spec.key;
  });

  afterEach(async () => {
    await current?.close();
    current = undefined;
  });

  const s: OpenAISuite = {
    get mock() {
      if (!current) throw new Error("no mock started in this test");
      return current;
    },
    async startMock(script) {
      current = await startMockOpenAI({ apiKey: spec.key, ...script });
      return current;
    },
    provider: (extra = {}) => ({ ...spec.provider(s.mock.url), ...extra }),
    /** A project whose only reviewer is the provider (or `providers`), and the bus running. */
    async setup(script, provider = {}, providers) {
      await s.startMock(script);
      const p = makeProject();
      const extra = spec.prepare?.(p) ?? {};
      p.settings({ providers: providers?.() ?? { [spec.providerId]: s.provider(provider) }, ...extra });
      p.write("docs/spec.md", SPEC);
      bus = startBus(p, ["broker", "verifier", spec.worker]);
      return p;
    },
    review: (p, extra = ["--author", "claude"]) =>
      cliAsync(p, ["review", "docs/spec.md", "--gate", GATE, "--run-id", RUN, "--wait", "--json", "--timeout", waitSeconds(45), ...extra]),
    /** What every request must look like: the adapter's call, our key, the packet, and no secret. */
    expectCleanRequests(p, packetRounds) {
      const reqs = s.mock.requests;
      expect(reqs.length).toBe(packetRounds.length);
      reqs.forEach((r, i) => {
        expect(r.method).toBe("POST");
        expect(r.path).toBe(spec.requestPath);
        expect(r.auth).toBe("match");
        expect(r.requestedModel).toBe(spec.model);
        expect(r.structured).toBe(true);
        spec.checkRequest?.(r);
        expect(r.packetId).toBe(packetField(p, RUN, GATE, packetRounds[i]!, "packet_id"));
        expect(r.prompt).toContain(ARTIFACT_LINE);
        expect(r.prompt).toContain("[REDACTED:");
        for (const x of SECRETS) expect(r.raw, `secret ${x.name} reached the endpoint`).not.toContain(x.secret);
      });
      expect(guildText(p)).not.toContain(spec.key);
    },
    logsOf: (p) => p.logs.join("").slice(-3000),
  };
  const { setup, review, expectCleanRequests, logsOf } = s;
  const id = spec.providerId;
  const packetText = (p: Project, round: number) => readFileSync(path.join(p.gateDir(RUN, GATE), `packet-${round}.md`), "utf8");
  // Starts a review without waiting (for scenarios that end in a state --wait would not report as done).
  const start = async (p: Project) =>
    expect((await cliAsync(p, ["review", "docs/spec.md", "--gate", GATE, "--run-id", RUN, "--author", "claude"])).code).toBe(0);

  describe(spec.title, () => {
    it(`(1) one round to satisfied: ${spec.formatField} json_schema, model reported by the endpoint, exactly one request, \
no secrets`, async () => {
      const p = await setup({ default: "satisfied", model: spec.reported });
      const r = await review(p);
      expect(r.code, r.stderr + logsOf(p)).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        status: "satisfied",
        state: "done",
        rounds: 1,
        independence: "strong",
        reviewer_host: id,
      });
      expect(p.readJson(RUN, GATE, "result-1.json")).toMatchObject({
        verdict: "satisfied",
        blocking_findings: [],
        reviewer_host: id,
        reviewer_model: spec.reported,
        reviewer_model_source: "reported",
        normalized_from: "whole-json",
      });
      expect(p.readJson(RUN, GATE, "outcome.json")).toMatchObject({
        status: "satisfied",
        independence: "strong",
        reviewer_family: spec.reviewerFamily,
        author_family: "anthropic",
      });
      expectCleanRequests(p, [1]);
      spec.checkFormat(s.mock.requests[0]!);
    });

    it("(2) issues with a blocking finding: the gate waits for the author (exit 3); resubmit → satisfied in round 2", async () => {
      const p = await setup({ sequence: ["issues", "satisfied"], model: spec.reported });
      const r = await review(p);
      expect(r.code, r.stderr + logsOf(p)).toBe(3);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: "rework", state: "awaiting_author", rounds: 1 });
      const result = p.readJson<{ verdict: string; blocking_findings: Array<{ title: string; severity: string }> }>(
        RUN,
        GATE,
        "result-1.json",
      );
      expect(result.verdict).toBe("issues");
      expect(result.blocking_findings).toEqual([expect.objectContaining({ severity: "blocking", title: "Mock blocking finding" })]);
      expect(p.files(RUN, GATE)).not.toContain("outcome.json");
      expect(s.mock.requests).toHaveLength(1);

      p.write("docs/spec.md", SPEC + "- the button is disabled while exporting\n");
      const again = await cliAsync(p, ["resubmit", RUN, GATE, "--wait", "--json"]);
      expect(again.code, again.stderr + logsOf(p)).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ status: "satisfied", satisfied_at_round: 2, rounds: 2 });
      expectCleanRequests(p, [1, 2]);
      expect(s.mock.requests[1]!.prompt).toContain("Prior rounds");
      expect(s.mock.requests[1]!.prompt).toContain("Mock blocking finding");
    });

    it("(3) prose ending in a valid ## SATISFIED → satisfied (sentinel)", async () => {
      const p = await setup({ default: "sentinel", model: spec.reported });
      const r = await review(p);
      expect(r.code, r.stderr + logsOf(p)).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: "satisfied" });
      expect(p.readJson(RUN, GATE, "result-1.json")).toMatchObject({
        verdict: "satisfied",
        normalized_from: "sentinel",
        reviewer_model: spec.reported,
      });
      expectCleanRequests(p, [1]);
    });

    it(`(4a) malformed output → exactly one schema-repair request → repaired result (${spec.repair.note})`, async () => {
      const p = await setup({ sequence: ["malformed", spec.repair.step], model: spec.reported });
      const r = await review(p);
      expect(r.code, r.stderr + logsOf(p)).toBe(0);
      expect(p.readJson(RUN, GATE, "result-1.json")).toMatchObject({
        verdict: "satisfied",
        repaired: true,
        normalized_from: spec.repair.normalizedFrom,
      });
      expectCleanRequests(p, [1, 1]);
      expect(s.mock.requests.map((q) => q.isRepair)).toEqual([false, true]);
      expect(s.mock.requests[1]!.prompt).toContain("Your previous answer");
      expect(p.files(RUN, GATE)).not.toContain("failure-1.json");
    });

    it("(4b) malformed twice → failure-1.json malformed (no third call in that round); the broker restarts the round", async () => {
      const p = await setup({ sequence: ["malformed", "malformed"], default: "satisfied", model: spec.reported });
      const r = await review(p);
      expect(r.code, r.stderr + logsOf(p)).toBe(0);
      expect(p.readJson(RUN, GATE, "failure-1.json")).toMatchObject({ kind: "malformed", round: 1 });
      expect(p.files(RUN, GATE)).not.toContain("result-1.json");
      expect(packetText(p, 2)).toMatch(/restart_reason: malformed/);
      expect(p.readJson(RUN, GATE, "outcome.json")).toMatchObject({ status: "satisfied", satisfied_at_round: 2 });
      expectCleanRequests(p, [1, 1, 2]);
      expect(s.mock.requests.map((q) => q.isRepair)).toEqual([false, true, false]);
    });

    const same = spec.sameFamily;
    it(`(5) author ${same.who}, the endpoint reports a model of the author's family (${same.reportedModel}) → recorded as weak, \
never a strong sign-off`, async () => {
      const p = await setup({ default: "satisfied", model: same.reportedModel });
      const r = await review(p, same.authorArgs);
      expect(r.code, r.stderr + logsOf(p)).toBe(0);
      // Selection saw a cross-family pair; only the reported model reveals the same family.
      expect(packetText(p, 1)).toMatch(/independence: strong/);
      expect(p.readJson(RUN, GATE, "result-1.json")).toMatchObject({
        reviewer_model: same.reportedModel,
        reviewer_model_source: "reported",
      });
      expect(p.readJson(RUN, GATE, "verdict-1.json")).toMatchObject({ reviewer_family: same.family, independence_violation: true });
      const outcome = p.readJson(RUN, GATE, "outcome.json");
      expect(outcome).toMatchObject({ status: "satisfied", independence: "weak", author_family: same.family });
      expect(outcome.independence).not.toBe("strong");
      expect(JSON.parse(r.stdout)).toMatchObject({ independence: "weak" });
      expectCleanRequests(p, [1]);
    });

    it(`(6) an answer slower than timeout_ms → ${spec.slow.how}, no_verdict, awaiting a decision, never dispatched again`, async () => {
      // the mock holds the answer well past the timeout. The scenario needs the CLI's request sent before the timeout
      // fires: on a machine too loaded for that, it runs again on a new project with twice the timeout
      let timeoutMs = spec.slow.timeoutMs;
      let p: Project;
      for (let tries = 1; ; tries++, timeoutMs *= 2) {
        p = await setup({ default: { behaviour: "satisfied", delayMs: 10 * timeoutMs } }, { timeout_ms: timeoutMs });
        await start(p);
        await until(
          "the reviewer's request, before its timeout fires",
          () => s.mock.requests.length > 0 || p.files(RUN, GATE).includes("failure-1.json"),
        );
        if (s.mock.requests.length > 0 || tries === 3) break;
        await Promise.all(bus.map((w) => stopChild(w)));
        await s.mock.close();
      }
      expect(s.mock.requests, "the timeout fired before the reviewer sent its request, three times").toHaveLength(1);
      const st = await waitStateAsync(p, RUN, GATE, ["awaiting_decision"]);
      expect(st.status).toBe("no_verdict");
      const failure = p.readJson(RUN, GATE, "failure-1.json");
      expect(failure).toMatchObject({ kind: "no_verdict" });
      expect(String(failure.reason)).toMatch(spec.slow.reason(timeoutMs));
      expect(p.readJson(RUN, GATE, "escalation-1.json")).toMatchObject({ reason: "no_verdict" });
      expect(s.mock.requests).toHaveLength(1);
      expect(s.mock.requests[0]!.clientClosed).toBe(true); // the stopped client dropped its connection
      expect(s.mock.requests[0]!.answered).toBe(false);
      await p.waitLooked(Date.now()); // every worker has looked at the round's end since: none dispatches it again
      expect(s.mock.requests).toHaveLength(1);
      expect(p.files(RUN, GATE).filter((f) => /^(attempt|packet)-/.test(f))).toEqual(["attempt-1.json", "packet-1.md"]);
      expect((await waitStateAsync(p, RUN, GATE, ["awaiting_decision"])).round).toBe(1);
    });

    it(`(7a) ${spec.notRun.how} → failure unavailable (provably not run); nothing sent; the broker selects again without it`, async () => {
      const p = await setup({ default: "satisfied" }, await spec.notRun.provider());
      await start(p);
      await p.waitFor(RUN, GATE, (f) => f.includes("failure-1.json"), "failure-1.json");
      const failure = p.readJson(RUN, GATE, "failure-1.json");
      expect(failure).toMatchObject({ kind: "unavailable", reviewer_provider: id });
      expect(String(failure.reason)).toMatch(spec.notRun.reason);
      expect(p.files(RUN, GATE)).not.toContain("result-1.json");
      // An unavailable reviewer is replaced by a new selection that excludes it; when only a person would be left and
      // nobody asked for one, review is unavailable (exit 5) rather than a silent manual packet.
      const files = await p.waitFor(RUN, GATE, (f) => f.includes("packet-2.md") || f.includes("escalation-1.json"), "a new selection");
      if (files.includes("packet-2.md")) {
        const packet2 = packetText(p, 2);
        expect(packet2).toMatch(/restart_reason: degraded/);
        expect(packet2).not.toMatch(new RegExp(`reviewer_provider: ${id}\\n`));
        expect(packet2).not.toMatch(/reviewer_adapter: manual/);
      } else {
        expect(p.readJson(RUN, GATE, "escalation-1.json")).toMatchObject({
          reason: "unavailable",
          detail: expect.stringMatching(/could not run/),
        });
      }
      await p.waitLooked(Date.now());
      expect(p.files(RUN, GATE)).not.toContain("attempt-2.json");
      expect(s.mock.requests).toHaveLength(0);
    });

    it(`(7b) fallback allowed: ${spec.notRun.how} on the addressed provider → its configured fallback reviews (one request)`, async () => {
      const broken = await spec.notRun.provider();
      const p = await setup({ default: "satisfied", model: spec.reported }, {}, () => ({
        [id]: s.provider({ ...broken, fallback: [`${id}-backup`] }),
        [`${id}-backup`]: s.provider({ selectable: false }),
      }));
      const r = await review(p);
      expect(r.code, r.stderr + logsOf(p)).toBe(0);
      const result = p.readJson(RUN, GATE, "result-1.json");
      expect(result).toMatchObject({
        reviewer_host: `${id}-backup`,
        reviewer_model: spec.reported,
        dispatch_attempts: [
          { provider: id, outcome: "not-run", reason: expect.stringMatching(spec.notRun.attemptReason) },
          { provider: `${id}-backup`, outcome: "output" },
        ],
      });
      expect((result.dispatch_attempts as object[])[0]).not.toHaveProperty("capability"); // no reason to weaken the pair
      expect(p.files(RUN, GATE)).not.toContain("failure-1.json");
      expectCleanRequests(p, [1]);
    });

    spec.extraTests?.(s);
  });

  return s;
}
