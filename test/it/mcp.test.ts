// `guild-bus mcp` with the SDK's own client: the tool list and schemas, a whole review loop through the tools (with
// progress notifications while waiting), the author host taken from the handshake, a wait that answers still_running
// before a short client timeout, refusals as tool errors that leave the server serving, decide and respond, and two
// clients on one tree at once.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { MAX_UP_LOG_BYTES } from "../../src/cli/mcp.js";
import { runningSupervisor } from "../../src/runtime/supervisor-lock.js";
import { makeProject, type Project, received, scriptedProvider } from "../helpers/bus.js";
import { processesMentioning } from "../helpers/cli-review.js";
import { type McpSession, mcpSession, textOf } from "../helpers/mcp-client.js";
import { scaled } from "../helpers/machine.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";

const sessions: McpSession[] = [];
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close().catch(() => undefined)));
  // the `up` a server started drains (a review in flight finishes) and exits after the server: the temp tree is removed
  // only then, or a worker re-dating its presence file fails the removal (ENOTEMPTY)
  const started = roots.splice(0).map((root) => new Layout(root));
  await until("the workers the servers started have exited", () => started.every((l) => runningSupervisor(l) === null), scaled(50_000));
});

async function open(p: Project, clientName: string, args: string[] = []): Promise<McpSession> {
  const s = await mcpSession(p.root, clientName, args);
  sessions.push(s);
  return s;
}

/** A project whose only reviewer is a scripted openai-family one: "TBD" in the artifact is a blocking finding. */
function project(plan: object = { default: "by-content" }): Project {
  const p = makeProject();
  roots.push(p.root);
  p.settings({ providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5", plan) } });
  p.write("docs/spec.md", "# Spec\n\nLatency target: TBD\n");
  return p;
}

/** Call wait until it stops answering still_running (each call within its own budget). */
async function waitUntilStopped(s: McpSession, run: string, gate = "G-spec", onprogress?: (p: { message?: string }) => void) {
  for (let i = 0; i < 20; i++) {
    const r = await s.call("wait", { run_id: run, gate, timeout_seconds: 30 }, { onprogress });
    if (r.structuredContent?.still_running !== true) return r;
  }
  throw new Error("the gate never stopped");
}

describe("guild-bus mcp (SDK client)", () => {
  it("lists the tools with input schemas from zod", async () => {
    const s = await open(project(), "claude-code", ["--no-up"]);
    const { tools } = await s.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].sort()).toEqual(
      ["check", "decide", "findings", "providers", "rebut", "request_review", "respond", "resubmit", "status", "wait"].sort(),
    );
    const review = byName.get("request_review")!.inputSchema as { properties: Record<string, unknown>; required?: string[] };
    expect(review.required?.sort()).toEqual(["artifact", "gate"]);
    expect(Object.keys(review.properties)).toEqual(expect.arrayContaining(["author_model", "difficulty", "stop", "cap"]));
    const decide = byName.get("decide")!.inputSchema as unknown as { properties: { choice: { enum?: string[] } } };
    expect(decide.properties.choice.enum).toEqual(expect.arrayContaining(["force-pass", "extend-cap", "rework", "retry"]));
  });

  it("a project that never used guild-bus gets no .guild/ or workers from a session; its first request_review starts them", async () => {
    // a user-wide plugin or extension starts the server in every project the host opens
    const root = tempRoot("guild-bus-it-");
    roots.push(root);
    writeFileSync(path.join(root, "spec.md"), "# Spec\n\nLatency target: TBD\n");
    const s = await mcpSession(root, "claude-code");
    sessions.push(s);
    expect(textOf(await s.call("status", {}))).toBe("no gates");
    expect(existsSync(path.join(root, ".guild"))).toBe(false);
    expect(processesMentioning(`up --root ${root}`)).toEqual([]);
    expect(s.stderr()).toContain("no .guild/ here yet: the workers start with the first request_review");

    const requested = await s.call("request_review", { artifact: "spec.md", gate: "G-spec", author_model: "claude-opus-4-5" });
    expect(requested.isError, textOf(requested)).toBeFalsy();
    expect(textOf(requested)).not.toMatch(/no \w+ worker is running/);
    const run = requested.structuredContent!.run_id as string;
    // no reviewer is configured: the workers the request started give round 1 to a person
    const packet = path.join(root, ".guild", "runs", run, "review", "G-spec", "packet-1.md");
    await until("round 1's packet", () => existsSync(packet), scaled(60_000));
    expect(textOf(await s.call("status", { run_id: run, gate: "G-spec" }))).toContain("waiting for a person");
  });

  it("a session where .guild is a link that leads nowhere says so (not that the project has no bus yet) and starts nothing", async () => {
    const root = tempRoot("guild-bus-it-");
    roots.push(root);
    symlinkSync(path.join(root, "not-mounted", "bus"), path.join(root, ".guild"));
    const s = await mcpSession(root, "claude-code");
    sessions.push(s);
    await s.client.listTools(); // the server has looked for its workers by the time it answers
    await until("the server's word on the bus", () => /leads nowhere/.test(s.stderr()), scaled(30_000));
    expect(s.stderr()).toMatch(/\.guild is a link to .*not-mounted\/bus, which leads nowhere/);
    expect(s.stderr()).not.toContain("no .guild/ here yet");
    expect(processesMentioning(`up --root ${root}`)).toEqual([]);
  });

  it("a FIFO planted as the workers' log neither blocks the server nor keeps the workers from starting; they end with it", async () => {
    const p = project();
    mkdirSync(path.join(p.root, ".guild", "logs"), { recursive: true });
    execFileSync("mkfifo", [path.join(p.root, ".guild", "logs", "mcp-up.log")]);
    const s = await open(p, "claude-code"); // the handshake itself would wait for ever on a blocking open
    expect((await s.client.listTools()).tools.length).toBeGreaterThan(0);
    await until("the workers it started", () => processesMentioning(`up --root ${p.root}`).length > 0, scaled(30_000));
    // the server goes while its `up` may still be starting: that `up` must not outlive it
    await s.close();
    await until("the workers gone with the server", () => processesMentioning(p.root).length === 0, scaled(60_000));
  });

  it("workers that end after a person removed .guild are not started again: no .guild is made; a request starts them", async () => {
    const p = project();
    const s = await open(p, "claude-code");
    const up = () => processesMentioning(`up --root ${p.root}`);
    await until("the workers it started", () => up().length > 0, scaled(30_000));
    rmSync(path.join(p.root, ".guild"), { recursive: true, force: true }); // a reset
    for (const pid of up()) process.kill(pid, "SIGTERM"); // and its workers end (stopped, or crashed)
    const guild = path.join(p.root, ".guild");
    // its next check (every 10 s) either says so or, as it did, starts an `up` that makes .guild again
    await until("the server's next check", () => s.stderr().includes(".guild/ is gone") || existsSync(guild), scaled(60_000));
    expect(existsSync(guild), "the server starts no project").toBe(false);
    expect(s.stderr()).toContain(".guild/ is gone: the workers start again with the first request_review (or once .guild/ exists)");
    expect(up()).toEqual([]);

    const requested = await s.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", author_model: "claude-opus-4-5" });
    expect(requested.isError, textOf(requested)).toBeFalsy();
    await until("the workers the request started", () => up().length > 0, scaled(30_000));
  });

  it("a workers' log past its bound is moved to mcp-up.log.1 when the workers start, and a new one begun", async () => {
    const p = project();
    const log = path.join(p.root, ".guild", "logs", "mcp-up.log");
    mkdirSync(path.dirname(log), { recursive: true });
    writeFileSync(log, "a line of months ago\n");
    truncateSync(log, MAX_UP_LOG_BYTES); // sparse: the size is what counts
    await open(p, "claude-code");
    await until("the workers it started", () => processesMentioning(`up --root ${p.root}`).length > 0, scaled(30_000));
    expect(readFileSync(`${log}.1`, "utf8")).toMatch(/^a line of months ago\n/);
    expect(statSync(log).size).toBeLessThan(MAX_UP_LOG_BYTES);
  });

  it("workers that refuse to start again are reported once with the log to read, retried quietly, and said to run again", async () => {
    const p = project();
    const s = await open(p, "claude-code");
    await until("the workers it started", () => processesMentioning(`up --root ${p.root}`).length > 0, scaled(30_000));
    expect(s.stderr()).toContain("starting the workers (log: .guild/logs/mcp-up.log)");
    // the settings break while the server serves, and its `up` goes: the next `up` refuses them
    const settings = path.join(p.root, ".guild", "settings.json");
    const valid = readFileSync(settings, "utf8");
    writeFileSync(settings, "{ broken");
    for (const pid of processesMentioning(`up --root ${p.root}`)) process.kill(pid, "SIGTERM");
    const refused = "the workers exited (code 1; see .guild/logs/mcp-up.log): trying again every 10 s";
    await until("the refusal reported", () => s.stderr().includes(refused), scaled(60_000));
    // each try that refuses writes why to the log: two more of them, and the server said nothing more
    const log = path.join(p.root, ".guild", "logs", "mcp-up.log");
    const refusals = () => readFileSync(log, "utf8").split("settings.json").length - 1;
    const after = refusals();
    await until("two more tries refused", () => refusals() >= after + 2, scaled(90_000));
    expect(s.stderr().split(refused).length - 1).toBe(1);
    expect(s.stderr().split("starting the workers").length - 1).toBe(1);
    writeFileSync(settings, valid);
    await until("the workers said to run again", () => s.stderr().includes("the workers are running again"), scaled(90_000));
  });

  it("runs a review loop through the tools: request, wait (with progress), findings, revise, resubmit, wait → satisfied", async () => {
    const p = project();
    const s = await open(p, "claude-code");
    const requested = await s.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", author_model: "claude-opus-4-5" });
    expect(requested.isError, textOf(requested)).toBeFalsy();
    const run = requested.structuredContent!.run_id as string;
    const request = p.readJson(run, "G-spec", "request.json");
    // the author host is the client of the handshake, with its source and version
    expect(request).toMatchObject({ author_host: "claude-code", author_host_source: "mcp-client-info", author_host_version: "1.2.3" });

    const progress: string[] = [];
    const first = await waitUntilStopped(s, run, "G-spec", (pr) => progress.push(pr.message ?? ""));
    expect(first.structuredContent).toMatchObject({ still_running: false, outcome: null, exit_code: 3 });
    expect(textOf(first)).toContain("Acceptance criteria left as TBD");
    expect(progress.some((m) => /round 1/.test(m))).toBe(true);
    // a wait at once after the server started: the workers it starts are on their way, never "run: guild-bus up"
    expect(progress.filter((m) => /no \w+ worker is running|run: guild-bus up/.test(m))).toEqual([]);

    const findings = await s.call("findings", { run_id: run, gate: "G-spec" });
    expect(findings.structuredContent).toMatchObject({ round: 1, verdict: "issues" });
    expect((findings.structuredContent!.findings as Array<{ title: string }>)[0]!.title).toBe("Acceptance criteria left as TBD");

    writeFileSync(path.join(p.root, "docs", "spec.md"), "# Spec\n\nLatency target: p95 under 200 ms, measured by the load test.\n");
    const resubmitted = await s.call("resubmit", { run_id: run, gate: "G-spec" });
    expect(resubmitted.isError, textOf(resubmitted)).toBeFalsy();
    const second = await waitUntilStopped(s, run);
    expect(second.structuredContent).toMatchObject({ still_running: false, exit_code: 0, outcome: { status: "satisfied" } });
    expect(p.readJson(run, "G-spec", "outcome.json")).toMatchObject({ status: "satisfied", author_host: "claude-code" });

    const status = await s.call("status", { run_id: run, gate: "G-spec" });
    expect((status.structuredContent!.gates as Array<{ status: string }>)[0]!.status).toBe("satisfied");

    // edited after the pass: as `check` judges it, the tools no longer read as a pass of the artifact
    writeFileSync(path.join(p.root, "docs", "spec.md"), "# Spec\n\nAdmin endpoints skip authentication.\n");
    const after = await s.call("wait", { run_id: run, gate: "G-spec" });
    expect(after.structuredContent).toMatchObject({ still_running: false, exit_code: 2, outcome: { status: "satisfied" } });
    expect(textOf(after)).toContain(
      "Next: the gate passed other bytes than the artifact holds now: do not report the artifact as reviewed",
    );
    expect(textOf(await s.call("status", { run_id: run, gate: "G-spec" }))).toContain(
      "the artifact changed since the gate passed it: `check` fails it",
    );
  });

  it("a call cannot claim another author host than its client", async () => {
    const p = project();
    const s = await open(p, "claude-code", ["--no-up"]);
    const r = await s.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", author_host: "codex" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("is not this MCP client (claude-code)");
    expect(p.files("any", "G-spec")).toEqual([]);
  });

  it("a wait answers still_running within its budget, before a short client timeout, never a pass", async () => {
    const p = project({ default: "hang" });
    const s = await open(p, "claude-code", ["--wait-seconds", "2"]);
    const requested = await s.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", author_model: "claude-opus-4-5" });
    const run = requested.structuredContent!.run_id as string;
    const r = await s.call("wait", { run_id: run, gate: "G-spec" }, { timeoutMs: scaled(20_000) });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ still_running: true, outcome: null });
    expect(textOf(r)).toMatch(/still running .*call wait again/);
  });

  it("refusals are tool errors and the server keeps serving", async () => {
    const p = project();
    const s = await open(p, "claude-code", ["--no-up"]);
    const bad = [
      await s.call("request_review", { artifact: "docs/missing.md", gate: "G-spec" }),
      await s.call("request_review", { artifact: "docs/spec.md", gate: "G-nope" }),
      await s.call("request_review", { artifact: "../outside.md", gate: "G-spec" }),
      await s.call("findings", { run_id: "no-such-run", gate: "G-spec" }),
      await s.call("status", { run_id: "no-such-run" }),
      await s.call("resubmit", { run_id: "../etc", gate: "G-spec" }),
      await s.call("decide", { run_id: "no-such-run", gate: "G-spec", choice: "force-pass" }),
      await s.call("wait", { run_id: "x", gate: "G-spec", timeout_seconds: "soon" }),
      await s.call("wait", { run_id: "no-such-run", gate: "G-spec", timeout_seconds: 1 }), // never "call wait again"
    ];
    for (const r of bad) expect(r.isError, textOf(r)).toBe(true);
    expect(textOf(bad.at(-1)!)).toContain("no run no-such-run under .guild/runs");
    expect((await s.client.listTools()).tools.length).toBeGreaterThan(0); // still serving
    // a call the schemas accept that is over 10 MiB as JSON (a note of control characters, six bytes each), and an
    // id of a megabyte: answered, bounded, and the server still serves
    const huge = await s.call("decide", { run_id: "no-such-run", gate: "G-spec", choice: "rework", note: "\u0001".repeat(2_000_000) });
    expect(huge.isError, textOf(huge)).toBe(true);
    const longId = await s.call("status", { run_id: "x".repeat(1_000_000) });
    expect(longId.isError).toBe(true);
    expect(textOf(longId).length).toBeLessThan(1_000);
    expect((await s.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("with settings it cannot read, serves: the tools refuse to act and status names the problem", async () => {
    const p = project();
    writeFileSync(path.join(p.root, ".guild", "settings.json"), "{ broken");
    const s = await open(p, "claude-code", ["--no-up"]);
    const asked = await s.call("request_review", { artifact: "docs/spec.md", gate: "G-spec" });
    expect(asked.isError).toBe(true);
    expect(textOf(asked)).toMatch(/settings\.json: is not valid JSON .*nothing was requested — fix the settings first/);
    expect(textOf(await s.call("status", {}))).toMatch(/^settings problem \(tell the user\): settings\.json is not valid JSON/);
  });

  it("decide answers an escalation with the client as decider, never with force-pass; respond refuses the gate's own author", async () => {
    const p = project();
    const s = await open(p, "claude-code");
    const run = (await s.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", author_model: "claude-opus-4-5", cap: 1 }))
      .structuredContent!.run_id as string;
    const stopped = await waitUntilStopped(s, run);
    expect(stopped.structuredContent).toMatchObject({ exit_code: 4 });
    expect(stopped.structuredContent!.options).toEqual(expect.arrayContaining(["force-pass", "extend-cap"]));
    const respond = await s.call("respond", { run_id: run, gate: "G-spec", reviewer_model: "gpt-5", review: "## SATISFIED" });
    expect(respond.isError).toBe(true);
    // the AI whose artifact is under review never waves it through: a person force-passes
    const forced = await s.call("decide", { run_id: run, gate: "G-spec", choice: "force-pass", note: "ship it" });
    expect(forced.isError).toBe(true);
    expect(textOf(forced)).toContain("a person decides it, not claude-code");
    expect(textOf(forced)).toContain(`ask the user to run \`guild-bus decide ${run} G-spec force-pass --round 1\``);
    expect(p.files(run, "G-spec")).not.toContain("decision-1.json");
    const decided = await s.call("decide", { run_id: run, gate: "G-spec", choice: "extend-cap", extend_by: 1 });
    expect(decided.isError, textOf(decided)).toBeFalsy();
    expect(p.readJson(run, "G-spec", "decision-1.json")).toMatchObject({ choice: "extend-cap", decided_by: "claude-code" });
    const ended = await waitUntilStopped(s, run);
    expect(ended.structuredContent).toMatchObject({ exit_code: 3 }); // more rounds: the author revises and resubmits
  });

  it("rebut contests a hard round's findings through the CLI's command: for the round read, once per round", async () => {
    const p = project({
      sequence: [
        { do: "issues", findings: ["No latency target"] },
        { do: "rule", withdraw: ["No latency target"] },
      ],
    });
    const s = await open(p, "claude-code");
    const asked = await s.call("request_review", {
      artifact: "docs/spec.md",
      gate: "G-spec",
      author_model: "claude-opus-4-5",
      difficulty: "hard",
    });
    const run = asked.structuredContent!.run_id as string;
    expect((await waitUntilStopped(s, run)).structuredContent).toMatchObject({ exit_code: 3 });
    const rebuttal = "The target is in the SLO document the spec links.";
    const stale = await s.call("rebut", { run_id: run, gate: "G-spec", rebuttal, round: 2 });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/^this answers round 2, but .* is at round 1 now/);
    const rebutted = await s.call("rebut", { run_id: run, gate: "G-spec", rebuttal, round: 1 });
    expect(rebutted.isError, textOf(rebutted)).toBeFalsy();
    expect(rebutted.structuredContent).toMatchObject({ round: 1 });
    expect(textOf(rebutted)).toContain("call wait");
    expect(readFileSync(path.join(p.root, ".guild", "runs", run, "review", "G-spec", "rebuttal-1.md"), "utf8")).toBe(`${rebuttal}\n`);
    // a second one for the same round is refused, whether the ruling round has begun or not; the first is kept
    const again = await s.call("rebut", { run_id: run, gate: "G-spec", rebuttal: "And another thing.", round: 1 });
    expect(again.isError).toBe(true);
    expect(readFileSync(path.join(p.root, ".guild", "runs", run, "review", "G-spec", "rebuttal-1.md"), "utf8")).toBe(`${rebuttal}\n`);
    const ruled = await waitUntilStopped(s, run);
    expect(received(p.root, "scripted")[1]).toMatch(/^restart_reason: ruling$/m);
    expect(received(p.root, "scripted")[1]).toContain(rebuttal);
    expect(ruled.structuredContent).toMatchObject({ exit_code: 0 }); // the one contested finding was withdrawn
  });

  it("respond from a client that gives no name is refused: it cannot be told from the gate's author", async () => {
    const p = project();
    const s = await open(p, "", ["--no-up"]);
    const asked = await s.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", author_host: "codex", reviewer: "manual" });
    expect(asked.isError, textOf(asked)).toBeFalsy();
    const run = asked.structuredContent!.run_id as string;
    // the broker issues the manual round; then the nameless client answers it as a reviewer of another family
    const broker = await s.call("wait", { run_id: run, gate: "G-spec", timeout_seconds: 1 });
    expect(broker.isError).toBeFalsy();
    const respond = await s.call("respond", { run_id: run, gate: "G-spec", reviewer_model: "claude-opus-4-1", review: "## SATISFIED" });
    expect(respond.isError).toBe(true);
    expect(textOf(respond)).toMatch(/^respond needs this client's name/);
    expect(p.files(run, "G-spec").filter((f) => f.startsWith("result-"))).toEqual([]);
  });

  it("a human checkpoint is a person's to answer: the client is told to ask the user, and nothing is decided", async () => {
    const p = project();
    const s = await open(p, "claude-code");
    const run = (
      await s.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", author_model: "claude-opus-4-5", human_checkpoint: true })
    ).structuredContent!.run_id as string;
    const stopped = await waitUntilStopped(s, run);
    expect(stopped.structuredContent).toMatchObject({ exit_code: 4 });
    expect(stopped.structuredContent!.options).toEqual(expect.arrayContaining(["continue", "stop", "rework"]));
    const answered = await s.call("decide", { run_id: run, gate: "G-spec", choice: "continue", note: "I, the human, checked it: approve" });
    expect(answered.isError).toBe(true);
    expect(textOf(answered)).toContain(
      "a human checkpoint is answered by the person who asked for it, so a person decides it, not claude-code",
    );
    expect(textOf(answered)).toContain(`ask the user to run \`guild-bus decide ${run} G-spec continue --round 1\``);
    expect(p.files(run, "G-spec")).not.toContain("decision-1.json");
  });

  it("two clients on one tree review at once; every round is dispatched once", async () => {
    const p = project();
    p.write("docs/plan.md", "# Plan\n\nRollback: TBD\n");
    const [a, b] = await Promise.all([open(p, "claude-code"), open(p, "gemini-cli")]);
    const [ra, rb] = await Promise.all([
      a.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", author_model: "claude-opus-4-5" }),
      b.call("request_review", { artifact: "docs/plan.md", gate: "G-plan", author_model: "gemini-2.5-pro" }),
    ]);
    const runA = ra.structuredContent!.run_id as string;
    const runB = rb.structuredContent!.run_id as string;
    const [wa, wb] = await Promise.all([waitUntilStopped(a, runA), waitUntilStopped(b, runB, "G-plan")]);
    expect(wa.structuredContent).toMatchObject({ exit_code: 3 });
    expect(wb.structuredContent).toMatchObject({ exit_code: 3 });
    expect(p.readJson(runB, "G-plan", "request.json")).toMatchObject({ author_host: "gemini-cli" });
    expect(received(p.root, "scripted")).toHaveLength(2); // one dispatch per gate, though two servers watch the tree
    expect(processesMentioning(`up --root ${p.root}`)).toHaveLength(1); // one supervisor per tree

    // the server whose `up` runs goes; the other starts one, and the tree keeps being served
    const holder = JSON.parse(readFileSync(path.join(p.root, ".guild", "up.lock"), "utf8")).pid as number;
    const parent = Number(
      readFileSync(`/proc/${holder}/stat`, "utf8")
        .replace(/^.*\) /, "")
        .split(" ")[1],
    );
    const [first, second] = a.pid === parent ? [a, b] : [b, a];
    expect(first.pid).toBe(parent);
    await first.close();
    p.write("docs/ops.md", "# Ops\n\nPager: TBD\n");
    const rc = await second.call("request_review", { artifact: "docs/ops.md", gate: "G-operations", author_model: "claude-opus-4-5" });
    const ended = await waitUntilStopped(second, rc.structuredContent!.run_id as string, "G-operations");
    expect(ended.structuredContent).toMatchObject({ exit_code: 3 });
  });
});
