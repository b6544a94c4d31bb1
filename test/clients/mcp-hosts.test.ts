// The real author hosts as MCP clients of `guild-bus mcp`: the pinned `claude`, `gemini` and `codex` CLIs, each with
// its own config format, pointed at a mock model endpoint on 127.0.0.1 whose scripted author model
// (test/helpers/mock-author.ts) requests a review through the MCP tools, waits, reads the findings, revises,
// resubmits and waits again until the gate ends satisfied. The reviewer is a scripted openai-family command
// provider run by the workers the MCP server starts. The gate's author host is the client's handshake name.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeProject, type Project, REPO, scriptedProvider } from "../helpers/bus.js";
import type { MockEndpoint } from "../helpers/cli-review.js";
import { scaled } from "../helpers/machine.js";
import { type AuthorBrain, type ReviewLoopAuthor, reviewLoopAuthor } from "../helpers/mock-author.js";
import { startMockAnthropic } from "../helpers/mock-anthropic.js";

const CLIENTS = path.join(REPO, "clients", "node_modules", ".bin");
const PLUGIN = path.join(REPO, "integrations", "claude");
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

function theRun(p: Project): string {
  const gates = JSON.parse(p.cli(["status", "--json"]).stdout).gates as Array<{ run_id: string }>;
  expect(gates).toHaveLength(1);
  return gates[0]!.run_id;
}

/** The one gate of the project and its files. */
function theGate(p: Project): { run: string; request: Record<string, unknown>; outcome: Record<string, unknown> } {
  const run = theRun(p);
  return { run, request: p.readJson(run, "G-spec", "request.json"), outcome: p.readJson(run, "G-spec", "outcome.json") };
}

/** An empty HOME: no login, no user settings. Removed with retries: a host may still be flushing its state as it exits. */
function hostHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), "guild-bus-host-home-"));
  cleanup.push(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }));
  return home;
}

/** The real claude CLI with the plugin, -p, against the mock; its author model is `brain`. */
async function runClaude(p: Project, brain: AuthorBrain) {
  const mock: MockEndpoint = await startMockAnthropic({ apiKey: "mock-anthropic-key", author: brain });
  cleanup.push(() => mock.close());
  const r = await run(
    [
      path.join(CLIENTS, "claude"),
      "-p",
      "Have docs/spec.md reviewed at G-spec with guild-bus and follow the loop to its end.",
      "--plugin-dir",
      PLUGIN,
      "--allowedTools",
      "mcp__plugin_guild-bus_guild-bus",
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
    const p = project();
    p.settings({
      providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5", { default: "by-content" }) },
      stop_gate: { enabled: true, max_blocks: 1 },
    });
    const loop = author(p);
    let ends = 0;
    // an author that tries to end its turn as soon as the reviewer asks for changes, every time
    const quitter: AuthorBrain = (raw, names) => {
      const step = loop.brain(raw, names);
      if (step && "tool" in step && step.tool.name.endsWith("findings")) return { text: `Stopping here (${++ends}).` };
      return step;
    };
    const { code, out, mock } = await runClaude(p, quitter);
    expect(code, out).toBe(0);
    expect(ends).toBe(2); // the first end was blocked, the second allowed
    const fedBack = mock.requests.filter((q) => JSON.stringify(q.body).includes("Stop-gate block 1 of 1"));
    expect(fedBack.length).toBeGreaterThan(0);
    expect(JSON.stringify(fedBack[0]!.body)).toContain("Acceptance criteria left as TBD");
    expect(JSON.parse(readFileSync(path.join(p.root, ".guild", "stop-gate.json"), "utf8"))).toEqual({ [`${theRun(p)}/G-spec`]: 1 });
  });
});
