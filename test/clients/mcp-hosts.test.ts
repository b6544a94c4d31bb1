// The real author hosts as MCP clients of `guild-bus mcp`: the pinned `claude`, `gemini` and `codex` CLIs, each with
// its own config format, pointed at a mock model endpoint on 127.0.0.1 whose scripted author model
// (test/helpers/mock-author.ts) requests a review through the MCP tools, waits, reads the findings, revises,
// resubmits and waits again until the gate ends satisfied. The reviewer is a scripted openai-family command
// provider run by the workers the MCP server starts. The gate's author host is the client's handshake name.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, makeProject, type Project, REPO, scriptedProvider } from "../helpers/bus.js";
import type { MockEndpoint } from "../helpers/cli-review.js";
import { scaled } from "../helpers/machine.js";
import { type AuthorBrain, type ReviewLoopAuthor, reviewLoopAuthor } from "../helpers/mock-author.js";
import { startMockAnthropic } from "../helpers/mock-anthropic.js";
import { startMockGemini } from "../helpers/mock-gemini.js";
import { startMockOpenAI } from "../helpers/mock-openai.js";
import { removeTree, tempRoot } from "../helpers/tmp.js";

const CLIENTS = path.join(REPO, "clients", "node_modules", ".bin");
const PLUGIN = path.join(REPO, "integrations", "claude");
/** The names the hosts send as MCP clientInfo (the author host the gate records). */
const GEMINI_CLIENT = "gemini-cli-mcp-client";
const CODEX_CLIENT = "codex-mcp-client";
const REVISED = "# Spec\n\nLatency target: p95 under 200 ms, measured by the nightly load test.\n";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

function project(): Project {
  const p = makeProject();
  p.settings({ providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5", { default: "by-content" }) } });
  p.write("docs/spec.md", "# Spec\n\nLatency target: TBD\n");
  return p;
}

function author(p: Project): ReviewLoopAuthor {
  return reviewLoopAuthor({
    artifact: "docs/spec.md",
    gate: "G-spec",
    authorModel: "model-of-the-host",
    revise: () => writeFileSync(path.join(p.root, "docs", "spec.md"), REVISED),
  });
}

/** A project whose stop gate blocks once, reviewed by the scripted provider. */
function stopGated(): Project {
  const p = project();
  p.settings({
    providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5", { default: "by-content" }) },
    stop_gate: { enabled: true, max_blocks: 1 },
  });
  return p;
}

/** An author that tries to end its turn as soon as the reviewer asks for changes, every time; `ends` counts the tries. */
function quitter(p: Project): { brain: AuthorBrain; ends: () => number } {
  const loop = author(p);
  let ends = 0;
  const brain: AuthorBrain = (raw, names) => {
    const step = loop.brain(raw, names);
    if (step && "tool" in step && step.tool.name.endsWith("findings")) return { text: `Stopping here (${++ends}).` };
    return step;
  };
  return { brain, ends: () => ends };
}

/** Run a host CLI to its end (async: the mock lives in this process). */
function run(argv: string[], o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }) {
  const child: ChildProcess = spawn(argv[0]!, argv.slice(1), { cwd: o.cwd, env: o.env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b));
  child.stderr!.on("data", (b: Buffer) => (out += b));
  const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs);
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

/** The one gate's run; `out`, the host's output, says why when there is none. */
function theRun(p: Project, out = ""): string {
  const gates = JSON.parse(p.cli(["status", "--json"]).stdout).gates as Array<{ run_id: string }>;
  expect(gates, out).toHaveLength(1);
  return gates[0]!.run_id;
}

/** The one gate of the project and its files. */
function theGate(p: Project): { run: string; request: Record<string, unknown>; outcome: Record<string, unknown> } {
  const run = theRun(p);
  return { run, request: p.readJson(run, "G-spec", "request.json"), outcome: p.readJson(run, "G-spec", "outcome.json") };
}

/**
 * An empty HOME: no login, no user settings. Removed once no process runs with it: a host's guild-bus mcp and the workers
 * it started write their compile cache there as they stop, which on a loaded machine can be well after the host exits
 * (removing the directory meanwhile failed with ENOTEMPTY). One still running after a generous deadline is killed.
 */
function hostHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), "guild-bus-host-home-"));
  cleanup.push(async () => {
    const deadline = Date.now() + scaled(60_000);
    while (runningWithHome(home).length && Date.now() < deadline) await sleep(200);
    for (const pid of runningWithHome(home)) process.kill(pid, "SIGKILL");
    await removeTree(home); // a process may still end between the look and the removal
  });
  return home;
}

/** The pids of the processes whose environment has HOME=home (Linux's /proc; none elsewhere). */
function runningWithHome(home: string): number[] {
  const entry = `HOME=${home}\0`;
  const pids = existsSync("/proc") ? readdirSync("/proc").filter((name) => /^\d+$/.test(name)) : [];
  return pids.map(Number).filter((pid) => {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, "latin1");
      return env.startsWith(entry) || env.includes(`\0${entry}`);
    } catch {
      return false; // gone meanwhile, or not ours to read
    }
  });
}

/** guild-bus as the project's dev dependency: `npx --no-install guild-bus`, as init's host entries run it, resolves here. */
function installed(p: Project): void {
  mkdirSync(path.join(p.root, "node_modules", ".bin"), { recursive: true });
  symlinkSync(BIN, path.join(p.root, "node_modules", ".bin", "guild-bus"));
}

/** The real claude CLI with the plugin, -p, against the mock; its author model is `brain`. */
async function runClaude(p: Project, brain: AuthorBrain, o: { plugin: boolean } = { plugin: true }) {
  const mock: MockEndpoint = await startMockAnthropic({ apiKey: "mock-anthropic-key", author: brain });
  cleanup.push(() => mock.close());
  const r = await run(
    [
      path.join(CLIENTS, "claude"),
      "-p",
      "Have docs/spec.md reviewed at G-spec with guild-bus and follow the loop to its end.",
      // the plugin's server, or the project's (.mcp.json from `guild-bus init --host claude`)
      ...(o.plugin ? ["--plugin-dir", PLUGIN, "--allowedTools", "mcp__plugin_guild-bus_guild-bus"] : ["--allowedTools", "mcp__guild-bus"]),
      "--model",
      "claude-opus-4-5",
      "--output-format",
      "text",
    ],
    {
      cwd: p.root,
      env: {
        PATH: process.env.PATH,
        HOME: hostHome(),
        ANTHROPIC_BASE_URL: mock.url,
        ANTHROPIC_API_KEY: "mock-anthropic-key",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        ENABLE_TOOL_SEARCH: "false", // the tools in every request, not behind a ToolSearch call the script would have to make
        MCP_CONNECTION_NONBLOCKING: "false", // -p sends its first request once the MCP servers are connected
        // its servers' start-up bound (30 s by default), and how long -p waits for them before its first request
        // (5 s by default): `npx guild-bus mcp` on a loaded CI machine took longer, and claude then ran without the
        // tools (no gate was ever requested)
        MCP_TIMEOUT: String(scaled(180_000)),
        MCP_CONNECT_TIMEOUT_MS: String(scaled(180_000)),
      },
      timeoutMs: scaled(240_000),
    },
  );
  return { ...r, mock };
}

describe("real author hosts drive the review loop through guild-bus mcp", () => {
  it("claude (the plugin: its .mcp.json, skill and commands) — author host claude-code from the handshake", async () => {
    const p = project();
    const loop = author(p);
    const { code, out, mock } = await runClaude(p, loop.brain);
    expect(code, out).toBe(0);
    expect(loop.calls, out).toEqual(expect.arrayContaining(["request_review", "wait", "findings", "resubmit"]));
    const gate = theGate(p);
    expect(gate.request).toMatchObject({ author_host: "claude-code", author_host_source: "mcp-client-info" });
    expect(gate.outcome).toMatchObject({ status: "satisfied", author_host: "claude-code", independence: "strong" });
    expect(out).toContain("The review loop is over: the gate ended");
    expect(readFileSync(path.join(p.root, "docs", "spec.md"), "utf8")).toBe(REVISED);
    // the plugin's skill and slash commands were offered to the model with its MCP server
    const offered = JSON.stringify(mock.requests.map((q) => q.body));
    expect(offered).toContain("guild-bus:review-loop");
    expect(offered).toContain("guild-bus:review");
  });

  it("claude's Stop hook (the plugin's): blocks the turn once with the findings, then lets it end at the cap", async () => {
    const p = stopGated();
    const author = quitter(p);
    const { code, out, mock } = await runClaude(p, author.brain);
    expect(code, out).toBe(0);
    expect(author.ends()).toBe(2); // the first end was blocked, the second allowed
    const fedBack = mock.requests.filter((q) => JSON.stringify(q.body).includes("Stop-gate block 1 of 1"));
    expect(fedBack.length).toBeGreaterThan(0);
    expect(JSON.stringify(fedBack[0]!.body)).toContain("Acceptance criteria left as TBD");
    // one block counted (and the stop that counted it, by session)
    expect(JSON.parse(readFileSync(path.join(p.root, ".guild", "stop-gate.json"), "utf8"))).toMatchObject({ [`${theRun(p)}/G-spec`]: 1 });
  });

  it("claude in a project from `guild-bus init --host claude`: its .mcp.json server, and its Stop hook through npx", async () => {
    const p = stopGated();
    installed(p);
    const init = p.cli(["init", "--host", "claude"]);
    expect(init.code, init.stderr).toBe(0);
    const author = quitter(p);
    const { code, out, mock } = await runClaude(p, author.brain, { plugin: false });
    expect(code, out).toBe(0);
    expect(p.readJson(theRun(p, out), "G-spec", "request.json")).toMatchObject({
      author_host: "claude-code",
      author_host_source: "mcp-client-info",
    });
    expect(author.ends()).toBe(2); // the hook init wrote blocked the first end
    expect(mock.requests.some((q) => JSON.stringify(q.body).includes("Stop-gate block 1 of 1"))).toBe(true);
  });

  it("gemini (the extension: manifest, MCP server, context file) — author host from the handshake", async () => {
    const p = project();
    const loop = author(p);
    const mock = await startMockGemini({ apiKey: "mock-gemini-key", author: loop.brain });
    cleanup.push(() => mock.close());
    const home = hostHome();
    mkdirSync(path.join(home, ".gemini"));
    // API-key auth for the mock endpoint (without a selected type gemini 0.61 exits 41 before sending anything)
    writeFileSync(
      path.join(home, ".gemini", "settings.json"),
      JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false } }),
    );
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      GEMINI_CLI_HOME: home,
      GEMINI_API_KEY: "mock-gemini-key",
      GOOGLE_GEMINI_BASE_URL: mock.url,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      GEMINI_CLI_NO_RELAUNCH: "true",
      NO_COLOR: "1",
    };
    const linked = await run([path.join(CLIENTS, "gemini"), "extensions", "link", path.join(REPO, "integrations", "gemini"), "--consent"], {
      cwd: home,
      env,
      timeoutMs: scaled(120_000),
    });
    expect(linked.code, linked.out).toBe(0);
    const r = await run(
      // yolo: headless gemini has nobody to approve a tool call; the scripted model calls guild-bus tools only
      [
        path.join(CLIENTS, "gemini"),
        "--prompt",
        "Have docs/spec.md reviewed at G-spec.",
        "--model",
        "gemini-2.5-pro",
        "--approval-mode",
        "yolo",
      ],
      { cwd: p.root, env, timeoutMs: scaled(240_000) },
    );
    expect(r.code, r.out).toBe(0);
    expect(loop.calls, r.out).toEqual(expect.arrayContaining(["request_review", "wait", "findings", "resubmit"]));
    const gate = theGate(p);
    expect(gate.request).toMatchObject({ author_host: GEMINI_CLIENT, author_host_source: "mcp-client-info" });
    expect(gate.outcome).toMatchObject({ status: "satisfied", author_host: GEMINI_CLIENT, independence: "strong" });
    // the extension's context file and commands reached the model
    const sent = JSON.stringify(mock.requests.map((q) => q.body));
    expect(sent).toContain("Cross-family review with guild-bus");

    // the extension is the user's: its server starts in every project gemini opens, and one that never used guild-bus
    // is given no .guild/ (nor workers) by it
    const chat = await startMockGemini({ apiKey: "mock-gemini-key", author: () => ({ text: "Hello." }) });
    cleanup.push(() => chat.close());
    const elsewhere = tempRoot("guild-bus-other-project-");
    const hello = [path.join(CLIENTS, "gemini"), "--prompt", "Say hello.", "--model", "gemini-2.5-pro"];
    const other = await run(hello, { cwd: elsewhere, env: { ...env, GOOGLE_GEMINI_BASE_URL: chat.url }, timeoutMs: scaled(240_000) });
    expect(other.code, other.out).toBe(0);
    expect(other.out).toContain("Hello.");
    expect(existsSync(path.join(elsewhere, ".guild"))).toBe(false);
  });

  it("codex (.codex/config.toml and AGENTS.md from `guild-bus init --host codex`) — author host from the handshake", async () => {
    const p = project();
    installed(p);
    const init = p.cli(["init", "--host", "codex"]);
    expect(init.code, init.stderr).toBe(0);
    const loop = author(p);
    const mock = await startMockOpenAI({ apiKey: "mock-openai-key", author: loop.brain });
    cleanup.push(() => mock.close());
    const home = hostHome();
    writeFileSync(
      path.join(home, "config.toml"),
      [
        'model = "gpt-5"',
        'model_provider = "mock"',
        "[model_providers.mock]",
        'name = "mock"',
        `base_url = ${JSON.stringify(mock.url)}`,
        'wire_api = "responses"',
        'env_key = "MOCK_OPENAI_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        // the project's .codex/config.toml is read for a trusted project only
        `[projects.${JSON.stringify(p.root)}]`,
        'trust_level = "trusted"',
      ].join("\n") + "\n",
    );
    const r = await run(
      [path.join(CLIENTS, "codex"), "exec", "--skip-git-repo-check", "--color", "never", "Have docs/spec.md reviewed at G-spec."],
      {
        cwd: p.root,
        env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, MOCK_OPENAI_KEY: "mock-openai-key" },
        timeoutMs: scaled(240_000),
      },
    );
    expect(r.code, r.out).toBe(0);
    expect(loop.calls, r.out).toEqual(expect.arrayContaining(["request_review", "wait", "findings", "resubmit"]));
    const gate = theGate(p);
    expect(gate.request).toMatchObject({ author_host: CODEX_CLIENT, author_host_source: "mcp-client-info" });
    expect(gate.outcome).toMatchObject({ status: "satisfied", author_host: CODEX_CLIENT });
    // AGENTS.md's guild-bus section (init) is the model's instructions
    expect(JSON.stringify(mock.requests.map((q) => q.body))).toContain("Cross-family review with guild-bus");
  });
});
