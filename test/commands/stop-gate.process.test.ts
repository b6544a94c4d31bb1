// The stop gate (`guild-bus hook stop`): off unless switched on; on, it blocks a host's turn while a gate that host
// opened waits for the author — with the findings and how to turn it off — at most max_blocks times per gate, then
// lets the turn end with a message. Gates of another host, or not waiting for the author, never block.
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { setStopGate } from "../../src/commands/settings-edit.js";
import { stopGate } from "../../src/commands/stop-gate.js";
import { makeProject, scriptedProvider, startBus } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";
import { artifactMissingEscalation, GATE, gateWithPacket } from "../helpers/one-gate.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";

describe("stop gate", () => {
  it("is off by default, then blocks max_blocks times with the findings, then lets the turn end", async () => {
    const p = makeProject();
    p.settings({
      providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5", { default: { do: "issues", findings: ["No rollback plan"] } }) },
    });
    p.write("docs/spec.md", "# Spec\n");
    startBus(p);
    const r = p.cli([
      "review",
      "docs/spec.md",
      "--gate",
      "G-spec",
      "--author",
      "claude-code",
      "--author-model",
      "claude-opus-4-5",
      "--wait",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(3);
    const layout = new Layout(p.root);
    expect(await stopGate(loadContext(layout), "claude-code")).toEqual({ block: false, message: null });

    expect(await setStopGate(layout, { enabled: true, max_blocks: 2 })).toMatchObject({ ok: true });
    expect(await stopGate(loadContext(layout), "gemini-cli-mcp-client")).toEqual({ block: false, message: null }); // not its gate
    // the host names one product the same however the review was asked for (`--author claude` on the CLI)
    for (const [n, host] of [
      [1, " Claude "],
      [2, "claude-code"],
    ] as const) {
      const v = await stopGate(loadContext(layout), host);
      expect(v.block).toBe(true);
      const reason = (v as { reason: string }).reason;
      expect(reason).toContain("No rollback plan");
      expect(reason).toContain(`Stop-gate block ${n} of 2`);
      expect(reason).toContain("guild-bus gate off");
    }
    const after = await stopGate(loadContext(layout), "claude-code");
    expect(after).toEqual({ block: false, message: expect.stringContaining("let the turn end after 2 blocks") });

    // a FIFO planted as the block counts is read as none (never waited on: the hook would hold the host's turn)
    rmSync(layout.stopGateState);
    execFileSync("mkfifo", [layout.stopGateState]);
    expect(await stopGate(loadContext(layout), "claude-code")).toMatchObject({
      block: true,
      reason: expect.stringContaining("Stop-gate block 1 of 2"),
    });

    // a planted count below zero (or not a count) is none: the host is held max_blocks times, not a billion
    rmSync(layout.stopGateState);
    const key = readdirSync(path.join(p.root, ".guild", "runs")).map((run) => `${run}/G-spec`)[0]!;
    p.write(path.relative(p.root, layout.stopGateState), JSON.stringify({ [key]: -1e9, other: "x" }));
    for (const n of [1, 2]) {
      expect(await stopGate(loadContext(layout), "claude-code")).toMatchObject({ reason: expect.stringContaining(`block ${n} of 2`) });
    }
    expect(await stopGate(loadContext(layout), "claude-code")).toMatchObject({ block: false });

    // the counts cannot be written (a directory at their name): the turn ends, told why, and `hook stop` still exits 0
    rmSync(layout.stopGateState);
    mkdirSync(layout.stopGateState);
    expect(await stopGate(loadContext(layout), "claude-code")).toEqual({
      block: false,
      message: expect.stringMatching(/waits for you, but \.guild\/stop-gate\.json cannot be written/),
    });
    const hook = p.cli(["hook", "stop"]);
    expect(hook.code, hook.stderr).toBe(0);
    expect(hook.stdout).toContain('"systemMessage"');
  });

  it("the hooks of one stop (the plugin's and init's, both loaded) count one block: max_blocks stops are held", async () => {
    const p = makeProject();
    p.settings({
      providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5", { default: { do: "issues", findings: ["No rollback plan"] } }) },
    });
    p.write("docs/spec.md", "# Spec\n");
    startBus(p);
    const asked = ["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude-code", "--author-model", "claude-opus-4-5", "--wait"];
    expect(p.cli(asked).code).toBe(3);
    const layout = new Layout(p.root);
    expect(await setStopGate(layout, { enabled: true, max_blocks: 2 })).toMatchObject({ ok: true });
    const stopAt = (transcriptBytes: number) =>
      stopGate(loadContext(layout), "claude-code", Date.now(), { session: "s1", transcriptBytes });
    for (const [bytes, n] of [
      [100, 1],
      [100, 1], // the second hook of that stop
      [250, 2],
      [250, 2],
    ] as const)
      expect(await stopAt(bytes)).toMatchObject({ block: true, reason: expect.stringContaining(`Stop-gate block ${n} of 2`) });
    expect(await stopAt(400)).toMatchObject({ block: false });

    // the counts of gates no longer on disk (a run removed, or gone to history) are let go at the next write; the
    // waiting gate's, its stops' and those of gates still current are kept
    const key = readdirSync(path.join(p.root, ".guild", "runs")).map((run) => `${run}/G-spec`)[0]!;
    const gone = { "r-removed/G-old": 2, "r-removed/G-old s0": 77, "r-removed/G-spec": 1 };
    p.write(path.relative(p.root, layout.stopGateState), JSON.stringify({ ...gone, [key]: 0, [`${key} s0`]: 5 }));
    expect(await stopAt(500)).toMatchObject({ block: true, reason: expect.stringContaining("Stop-gate block 1 of 2") });
    expect(JSON.parse(readFileSync(layout.stopGateState, "utf8"))).toEqual({ [key]: 1, [`${key} s0`]: 5, [`${key} s1`]: 500 });

    // as the host runs it: the hook input on stdin names the session and its transcript
    rmSync(layout.stopGateState);
    const transcript = p.write("transcript.jsonl", '{"type":"user"}\n');
    const hook = () => p.cli(["hook", "stop"], JSON.stringify({ session_id: "s2", transcript_path: transcript, hook_event_name: "Stop" }));
    expect(hook().stdout).toContain("Stop-gate block 1 of 2");
    expect(hook().stdout).toContain("Stop-gate block 1 of 2");
    p.write("transcript.jsonl", '{"type":"user"}\n{"type":"assistant"}\n');
    expect(hook().stdout).toContain("Stop-gate block 2 of 2");
  });

  it("a gate only a person can move does not hold the turn, but that person is told at every stop, with the command", async () => {
    const g = await artifactMissingEscalation("run-escalated");
    expect(await setStopGate(g.layout, { enabled: true, max_blocks: 1 })).toMatchObject({ ok: true });
    for (let i = 0; i < 3; i++)
      expect(await stopGate(loadContext(g.layout), "claude-code")).toEqual({
        block: false,
        message: expect.stringMatching(
          /^guild-bus: run-escalated G-spec has not passed: waiting for .+ — run: guild-bus decide run-escalated G-spec/,
        ),
      });
    expect(await stopGate(loadContext(g.layout), "gemini-cli-mcp-client")).toEqual({ block: false, message: null }); // not its gate
    // the manual reviewer's round: a person answers it
    const m = await gateWithPacket("run-manual");
    expect(await setStopGate(m.layout, { enabled: true })).toMatchObject({ ok: true });
    expect(await stopGate(loadContext(m.layout), "claude-code")).toEqual({
      block: false,
      message: expect.stringMatching(
        /^guild-bus: run-manual G-spec has not passed: waiting for a person .* — run: guild-bus respond run-manual/,
      ),
    });
    // no worker runs to move a request: said with the command that starts them
    const layout = new Layout(tempRoot());
    writeFileSync(path.join(layout.root, "spec.md"), "# Spec\n");
    expect(await setStopGate(layout, { enabled: true })).toMatchObject({ ok: true });
    const asked = { artifact: "spec.md", gate: "G-spec", author: "claude-code", runId: "run-idle" };
    expect(await requestReview(layout, asked)).toMatchObject({ ok: true });
    expect(await stopGate(loadContext(layout), "claude-code")).toEqual({
      block: false,
      message: expect.stringMatching(
        /^guild-bus: run-idle G-spec has not passed: .*no broker worker is running for this project — run: guild-bus up$/,
      ),
    });
  });

  it("a stop held for a gate waiting for the author still names the gate waiting for a person, with its command", async () => {
    const g = await gateWithPacket("run-author");
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "No rollback plan" }] });
    await verifyGate(loadContext(g.layout), "run-author", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), "run-author", GATE);
    // a second gate of the same host, in the manual reviewer's hands
    const asked = { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: "run-person" };
    expect(await requestReview(g.layout, asked)).toMatchObject({ ok: true });
    await stepGate(loadContext(g.layout), "run-person", GATE);
    expect(await setStopGate(g.layout, { enabled: true })).toMatchObject({ ok: true });
    const v = await stopGate(loadContext(g.layout), "claude-code");
    expect(v).toMatchObject({ block: true, reason: expect.stringContaining("run-author G-spec is waiting for you") });
    expect((v as { reason: string }).reason).toMatch(
      /\nguild-bus: run-person G-spec has not passed: waiting for a person .* — run: guild-bus respond run-person G-spec/,
    );
  });

  it("with settings it cannot read, lets the turn end but says the gate is off because of them", async () => {
    const layout = new Layout(tempRoot());
    mkdirSync(layout.guild, { recursive: true });
    writeFileSync(layout.settings, "{ broken");
    expect(await stopGate(loadContext(layout), "claude-code")).toEqual({
      block: false,
      message: expect.stringMatching(/^guild-bus: the stop gate is off while the settings have problems: settings\.json is not valid JSON/),
    });
  });

  it("gate on/off keeps the rest of settings.json and refuses to edit a malformed one", async () => {
    const p = makeProject();
    p.settings({ review: "cross", reviewer: "auto" });
    const layout = new Layout(p.root);
    await setStopGate(layout, { enabled: true });
    expect(loadContext(layout).settings).toMatchObject({ review: "cross", reviewer: "auto", stop_gate: { enabled: true } });
    p.write(".guild/settings.json", "{ oops");
    expect(await setStopGate(layout, { enabled: false })).toEqual({ ok: false, error: expect.stringContaining("is not valid JSON") });
    p.write(".guild/settings.json", "[1]");
    expect(await setStopGate(layout, { enabled: false })).toEqual({ ok: false, error: expect.stringContaining("is not a JSON object") });
  });

  it("gate on/off refuses a linked settings.json: the link and the file it points to stay as they are", async () => {
    const p = makeProject();
    const layout = new Layout(p.root);
    const shared = path.join(tempRoot(), "settings.json");
    writeFileSync(shared, '{ "review": "cross" }\n');
    rmSync(layout.settings, { force: true });
    symlinkSync(shared, layout.settings);
    expect(await setStopGate(layout, { enabled: true })).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^\.guild\/settings\.json is a symbolic link leading out of the project: this command neither writes through it/,
      ),
    });
    expect(lstatSync(layout.settings).isSymbolicLink()).toBe(true);
    expect(readFileSync(shared, "utf8")).toBe('{ "review": "cross" }\n');
  });

  it("gate on/off refuses a FIFO planted as settings.json, never waiting on it", async () => {
    const p = makeProject();
    const layout = new Layout(p.root);
    await setStopGate(layout, { enabled: true });
    rmSync(layout.settings);
    execFileSync("mkfifo", [layout.settings]);
    expect(await setStopGate(layout, { enabled: false })).toEqual({
      ok: false,
      error: expect.stringContaining("not a regular file (a FIFO)"),
    });
  });
});
