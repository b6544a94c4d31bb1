// Integration: the model and effort policy (tiers, capability fallback only on an explicit refusal, never after a
// timeout, a 429 or a 401) over the http adapter against a scripted endpoint; and the copilot adapter over a scripted
// stand-in for the copilot binary (argv, opposite-family profile, --help capability check, caller-declared identity,
// and the different-family finalizer a copilot pass needs). Real workers throughout.
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeProject, type Project, REPO, received, scriptedProvider, startBus } from "../helpers/bus.js";
import { cliAsync } from "../helpers/clients.js";
import { type MockOpenAI, type MockScript, startMockOpenAI } from "../helpers/mock-openai.js";
import { waitSeconds } from "../helpers/machine.js";

const KEY_ENV = "MOCK_EFFORT_KEY";
const TOKEN_ENV = "MOCK_COPILOT_TOKEN";
const PLAN = "# Plan\n\n- lane A then lane B\n";
const STANDIN = path.join(REPO, "test", "helpers", "copilot-standin.mjs");

let mock: MockOpenAI | undefined;

beforeAll(() => {
  process.env[KEY_ENV] = "mock-effort-key-for-tests-only";
  process.env[TOKEN_ENV] = "mock-copilot-token-for-tests-only";
});

afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const review = (p: Project, run: string, gate = "G-plan", wait = true) =>
  cliAsync(p, [
    "review",
    "docs/plan.md",
    "--gate",
    gate,
    "--author",
    "claude",
    "--run-id",
    run,
    ...(wait ? ["--wait", "--json", "--timeout", waitSeconds(40)] : []),
  ]);
/** trail.md once it shows `re` (the broker regenerates it just after the file that ended the round). */
async function trail(p: Project, run: string, re: RegExp, gate = "G-plan"): Promise<string> {
  let text = "";
  for (let i = 0; i < 100; i++) {
    try {
      text = readFileSync(path.join(p.gateDir(run, gate), "trail.md"), "utf8");
    } catch {
      text = "";
    }
    if (re.test(text)) return text;
    await sleep(100);
  }
  return text;
}
const logs = (p: Project) => p.logs.join("").slice(-3000);

describe("effort policy and capability fallback (http adapter, scripted endpoint)", () => {
  async function setup(
    script: MockScript,
    provider: Record<string, unknown> = {},
    settings: Record<string, unknown> = {},
  ): Promise<Project> {
    mock = await startMockOpenAI(script);
    const p = makeProject();
    p.settings({
      providers: {
        gpt: {
          adapter: "http",
          base_url: mock.url,
          api_key_env: KEY_ENV,
          model: "gpt-5",
          timeout_ms: 20_000,
          effort: "high",
          effort_chain: ["xhigh", "high", "medium"],
          effort_floor: "medium",
          ...provider,
        },
      },
      gate_tiers: { "G-plan": "deep-audit" },
      ...settings,
    });
    p.write("docs/plan.md", PLAN);
    startBus(p, ["broker", "verifier", "http"]);
    return p;
  }

  it(`the gate's tier picks the pair; an explicit 'effort unsupported' refusal steps down the chain in the same round; \
both attempts and the pair that ran are recorded`, async () => {
    const p = await setup(
      { sequence: ["effort-unsupported", "satisfied", "satisfied"] },
      { effort_tiers: { "deep-audit": { model: "gpt-5-pro", effort: "xhigh" } } },
    );
    const r = await review(p, "e1");
    expect(r.code, r.stderr + logs(p)).toBe(0);
    expect(mock!.requests.map((q) => [q.requestedModel, q.requestedEffort])).toEqual([
      ["gpt-5-pro", "xhigh"],
      ["gpt-5-pro", "high"],
    ]);
    const result = p.readJson("e1", "G-plan", "result-1.json");
    expect(result).toMatchObject({
      verdict: "satisfied",
      dispatch_attempts: [
        {
          provider: "gpt",
          adapter: "http",
          model: "gpt-5-pro",
          effort: "xhigh",
          tier: "deep-audit",
          outcome: "not-run",
          capability: "effort_unsupported",
          reason: expect.stringMatching(/^HTTP 400 .*reasoning_effort/),
        },
        { provider: "gpt", adapter: "http", model: "gpt-5-pro", effort: "high", tier: "deep-audit", outcome: "output" },
      ],
      ran: { provider: "gpt", model: "gpt-5-pro", effort: "high", tier: "deep-audit" },
    });
    expect(p.files("e1", "G-plan").filter((f) => f.startsWith("packet-"))).toEqual(["packet-1.md"]); // same round
    const t = await trail(p, "e1", /- dispatch ran:/);
    expect(t).toMatch(/- dispatch attempt: gpt \(gpt-5-pro, effort xhigh\) did not run \[effort_unsupported\]/);
    expect(t).toMatch(/- dispatch ran: gpt \(gpt-5-pro, effort high, tier deep-audit\)/);
    // another gate of the same run is regular: the provider's own model and effort, sent explicitly
    expect((await review(p, "e1", "G-spec")).code).toBe(0);
    expect(mock!.requests.at(-1)).toMatchObject({ requestedModel: "gpt-5", requestedEffort: "high" });
  });

  it("the chain stops at effort_floor: nothing below it is ever sent, and the failure records every attempt", async () => {
    const p = await setup({ default: "effort-unsupported" }, { effort: "xhigh", effort_floor: "high" }, { gate_tiers: {} });
    // nothing ran, so the broker re-selects (only a person is left, whom nobody asked for: review unavailable)
    expect((await review(p, "e2", "G-plan", false)).code).toBe(0);
    await p.waitFor("e2", "G-plan", (f) => f.includes("failure-1.json"), "failure-1");
    expect(mock!.requests.map((q) => q.requestedEffort)).toEqual(["xhigh", "high"]);
    const failure = p.readJson("e2", "G-plan", "failure-1.json");
    expect(failure).toMatchObject({
      kind: "unavailable",
      dispatch_attempts: [
        { effort: "xhigh", outcome: "not-run", capability: "effort_unsupported" },
        {
          effort: "high",
          outcome: "not-run",
          capability: "effort_unsupported",
          note: "no capability fallback: the next effort medium is below effort_floor high",
        },
      ],
    });
    expect(await trail(p, "e2", /effort high\) did not run/)).toMatch(
      /- dispatch attempt: gpt \(gpt-5, effort high\) did not run \[effort_unsupported\].*below effort_floor high/,
    );
  });

  it("an explicit 'model unknown' refusal steps through model_chain (keeping the effort)", async () => {
    const p = await setup(
      { sequence: ["model-unknown", "issues"] },
      { model: "gpt-5.6-sol", model_chain: ["gpt-5.5"] },
      { gate_tiers: {} },
    );
    expect((await review(p, "e3")).code, logs(p)).toBe(3);
    expect(mock!.requests.map((q) => [q.requestedModel, q.requestedEffort])).toEqual([
      ["gpt-5.6-sol", "high"],
      ["gpt-5.5", "high"],
    ]);
    expect(p.readJson("e3", "G-plan", "result-1.json")).toMatchObject({
      dispatch_attempts: [
        { model: "gpt-5.6-sol", capability: "model_unknown" },
        { model: "gpt-5.5", outcome: "output" },
      ],
      ran: { model: "gpt-5.5", effort: "high" },
    });
  });

  it("no fallback after a timeout: one request, no_verdict for a human", async () => {
    const p = await setup({ default: { behaviour: "satisfied", delayMs: 8000 } }, { timeout_ms: 1500 }, { gate_tiers: {} });
    const r = await review(p, "e4");
    expect(r.code, logs(p)).toBe(4);
    expect(mock!.requests).toHaveLength(1);
    expect(p.readJson("e4", "G-plan", "failure-1.json")).toMatchObject({
      kind: "no_verdict",
      dispatch_attempts: [{ effort: "high", outcome: "ambiguous", reason: expect.stringMatching(/within 1500 ms/) }],
    });
    expect(p.readJson("e4", "G-plan", "escalation-1.json")).toMatchObject({ reason: "no_verdict" });
  });

  it("no fallback after a 429 or a 401 naming nothing about the pair: one request each", async () => {
    const p = await setup({ default: "status-429" }, {}, { gate_tiers: {} });
    expect((await review(p, "e5")).code).toBe(4);
    mock!.script = { default: "status-401" };
    expect((await review(p, "e6")).code).toBe(4);
    expect(mock!.requests.map((q) => q.requestedEffort)).toEqual(["high", "high"]);
    for (const run of ["e5", "e6"]) {
      const failure = p.readJson<{ kind: string; dispatch_attempts: Array<{ outcome: string; capability?: string }> }>(
        run,
        "G-plan",
        "failure-1.json",
      );
      expect(failure.kind).toBe("no_verdict");
      expect(failure.dispatch_attempts).toEqual([expect.objectContaining({ outcome: "ambiguous" })]);
      expect(failure.dispatch_attempts[0]!.capability).toBeUndefined();
    }
  });
});

describe("copilot adapter (scripted stand-in for the copilot binary)", () => {
  interface StandinPlan {
    sequence?: string[];
    default?: string;
    reject_efforts?: string[];
    reject_models?: string[];
    help_omit?: string[];
    effort_flag?: string;
  }

  function setup(plan: StandinPlan, gem: object = { default: "satisfied" }, copilot: Record<string, unknown> = {}): Project {
    const p = makeProject();
    const bin = path.join(p.root, "standin", "copilot");
    mkdirSync(path.dirname(bin), { recursive: true });
    copyFileSync(STANDIN, bin);
    chmodSync(bin, 0o755);
    writeFileSync(path.join(p.root, "standin", "plan.json"), JSON.stringify(plan));
    p.write(
      ".github/agents/rev-openai.agent.md",
      "---\nname: rev-openai\ndescription: reviewer pinned to an OpenAI model\nmodel: gpt-5.4\ntools: [read]\n---\n" +
        "You are an adversarial reviewer.\n",
    );
    p.write(
      ".github/agents/rev-claude.agent.md",
      "---\nname: rev-claude\ndescription: reviewer pinned to an Anthropic model\nmodel: claude-sonnet-4.5\n---\n" +
        "You are an adversarial reviewer.\n",
    );
    p.settings({
      providers: {
        copilot: {
          adapter: "copilot",
          binary: bin,
          api_key_env: TOKEN_ENV,
          timeout_ms: 20_000,
          copilot_profiles: { openai: "rev-openai", anthropic: "rev-claude" },
          effort: "xhigh",
          effort_chain: ["xhigh", "high"],
          ...copilot,
        },
        gem: scriptedProvider(p.root, "gem", "gemini-2.5-pro-scripted", gem),
      },
    });
    p.write("docs/plan.md", PLAN);
    startBus(p, ["broker", "verifier", "copilot", "command"]);
    return p;
  }
  const calls = (p: Project): Array<{ argv: string[]; cwd: string; packetPath: string | null; packet: string | null; token: boolean }> => {
    const dir = path.join(p.root, "standin", "calls");
    try {
      return readdirSync(dir)
        .sort()
        .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")));
    } catch {
      return [];
    }
  };
  const flag = (argv: string[], name: string) => argv[argv.indexOf(name) + 1];
  const copilotReview = (p: Project, run: string, author = "claude") =>
    cliAsync(p, [
      "review",
      "docs/plan.md",
      "--gate",
      "G-plan",
      "--author",
      author,
      "--run-id",
      run,
      "--reviewer",
      "copilot",
      "--wait",
      "--json",
      "--timeout",
      waitSeconds(40),
    ]);

  it(`runs the profile opposite the author with its model, the effort (stepping down on an explicit refusal), \
read-only tools and the packet as a file; the pass needs a finalizer`, async () => {
    const p = setup({ reject_efforts: ["xhigh"] });
    const r = await copilotReview(p, "c1");
    expect(r.code, r.stderr + logs(p)).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "satisfied", reviewer_host: "gem", satisfied_at_round: 2 });

    const [refused, ran] = calls(p);
    expect(calls(p)).toHaveLength(2);
    for (const c of [refused!, ran!]) {
      expect(flag(c.argv, "--agent")).toBe("rev-openai"); // author claude (anthropic) → the openai profile
      expect(flag(c.argv, "--model")).toBe("gpt-5.4"); // read from .github/agents/rev-openai.agent.md
      expect(c.argv).toContain("--allow-tool=read");
      expect(c.argv).toEqual(expect.arrayContaining(["--deny-tool=shell", "--deny-tool=write", "--no-custom-instructions"]));
      expect(c.token).toBe(true);
      // the prompt names the packet file; the packet itself is never on argv
      const prompt = flag(c.argv, "--prompt")!;
      expect(prompt).toContain(c.packetPath!);
      expect(c.argv.join("\n")).not.toContain("lane A then lane B");
      expect(c.argv.join("\n")).not.toContain("packet_id:");
      expect(c.packet).toBe(readFileSync(path.join(p.gateDir("c1", "G-plan"), "packet-1.md"), "utf8"));
    }
    expect([flag(refused!.argv, "--effort"), flag(ran!.argv, "--effort")]).toEqual(["xhigh", "high"]);

    expect(p.readJson("c1", "G-plan", "result-1.json")).toMatchObject({
      verdict: "satisfied",
      reviewer_host: "copilot",
      reviewer_model: "gpt-5.4",
      reviewer_model_source: "declared",
      identity_assurance: "caller-declared-unverified",
      copilot_profile: "rev-openai",
      dispatch_attempts: [
        {
          provider: "copilot",
          adapter: "copilot",
          model: "gpt-5.4",
          effort: "xhigh",
          outcome: "not-run",
          capability: "effort_unsupported",
        },
        { provider: "copilot", adapter: "copilot", model: "gpt-5.4", effort: "high", outcome: "output" },
      ],
      ran: { provider: "copilot", model: "gpt-5.4", effort: "high", tier: "regular" },
    });
    expect(p.readJson("c1", "G-plan", "verdict-1.json")).toMatchObject({ reviewer_model: "gpt-5.4", reviewer_family: "openai" });
    // copilot's pass did not end the gate: a finalizer packet went to a different-family, non-copilot reviewer
    const packet2 = readFileSync(path.join(p.gateDir("c1", "G-plan"), "packet-2.md"), "utf8");
    expect(packet2).toMatch(/restart_reason: finalizer/);
    expect(packet2).toMatch(/reviewer_provider: gem/);
    expect(packet2).toMatch(/counted_round: 1/);
    expect(packet2).not.toContain("## Prior rounds"); // a fresh review, not anchored on copilot's
    expect(received(p.root, "gem")).toHaveLength(1);
    expect(p.readJson("c1", "G-plan", "outcome.json")).toMatchObject({
      status: "satisfied",
      reviewer_host: "gem",
      reviewer_family: "google",
      final_round: 2,
    });
    const t = await trail(p, "c1", /## Round 2/);
    expect(t).toMatch(/## Round 2 \(finalizer for the copilot pass of round 1\)/);
    expect(t).toMatch(
      /- dispatch ran: copilot \(gpt-5\.4, effort high, tier regular\); identity caller-declared-unverified \(profile rev-openai\)/,
    );
  });

  it("an openai author gets the anthropic profile; a finalizer with issues keeps the gate open", async () => {
    const p = setup({ default: "satisfied" }, { default: "issues" });
    const r = await copilotReview(p, "c2", "codex");
    expect(r.code, r.stderr + logs(p)).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: "awaiting_author" });
    const [call] = calls(p);
    expect([flag(call!.argv, "--agent"), flag(call!.argv, "--model")]).toEqual(["rev-claude", "claude-sonnet-4.5"]);
    expect(p.readJson("c2", "G-plan", "result-1.json")).toMatchObject({ verdict: "satisfied", reviewer_model: "claude-sonnet-4.5" });
    expect(p.readJson("c2", "G-plan", "verdict-1.json")).toMatchObject({ reviewer_family: "anthropic", independence_violation: false });
    expect(p.readJson("c2", "G-plan", "result-2.json")).toMatchObject({ verdict: "issues", reviewer_host: "gem" });
    expect(p.files("c2", "G-plan")).not.toContain("outcome.json");
  });

  it("refuses before running anything when copilot --help lacks a flag it needs (not-run, with the reason)", async () => {
    const p = setup({ help_omit: ["--allow-tool"] });
    await copilotReview(p, "c3");
    await p.waitFor("c3", "G-plan", (f) => f.includes("failure-1.json"), "failure-1");
    expect(p.readJson("c3", "G-plan", "failure-1.json")).toMatchObject({
      kind: "unavailable",
      reason: expect.stringMatching(/copilot --help does not advertise --allow-tool/),
      dispatch_attempts: [{ provider: "copilot", outcome: "not-run" }],
    });
    expect(calls(p)).toHaveLength(0); // only --help ran
  });

  it("a 429 from copilot is never a reason to step down: one call, no_verdict", async () => {
    const p = setup({ default: "rate-limit" });
    expect((await copilotReview(p, "c4")).code).toBe(4);
    expect(calls(p)).toHaveLength(1);
    expect(p.readJson("c4", "G-plan", "failure-1.json")).toMatchObject({
      kind: "no_verdict",
      dispatch_attempts: [{ effort: "xhigh", outcome: "ambiguous" }],
    });
  });
});
