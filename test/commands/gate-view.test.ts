// What status, wait and the MCP tools report of an ended gate: a pass only while its outcome re-derives from the
// gate's files (SPEC §17); an outcome.json dropped by hand is not one.
import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { spawn } from "node:child_process";
import { THIS_HOST } from "../../src/bus/deliver.js";
import { loadContext } from "../../src/bus/context.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { gateStatuses, statusRow } from "../../src/commands/status.js";
import { historyNote, statusExitCode } from "../../src/commands/status-scope.js";
import { checkGates } from "../../src/commands/check.js";
import { gateLines } from "../../src/cli/gate-lines.js";
import { stopGate } from "../../src/commands/stop-gate.js";
import { waitGate } from "../../src/commands/wait.js";
import { ENDED_HISTORY_MS } from "../../src/bus/gate-list.js";
import { requestReview } from "../../src/commands/review.js";
import { decideEscalation, rebut, resubmit } from "../../src/commands/author.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { Peers, peersDir } from "../../src/runtime/peers.js";
import { lockSupervisor } from "../../src/runtime/supervisor-lock.js";
import { stepGate } from "../../src/workers/broker.js";
import { artifactMissingEscalation, GATE, gateWithPacket } from "../helpers/one-gate.js";
import { outcome } from "../helpers/snapshots.js";

describe("an ended gate's view", () => {
  it("a hand-written satisfied outcome after a round that found issues is no pass: exit 2, a human must look", async () => {
    const run = "planted-outcome";
    const { layout, file, field, dropResult } = await gateWithPacket(run);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "Size unbounded" }] });
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    expect(viewGate(loadContext(layout), run, GATE).exitCode).toBe(3);
    const planted = outcome("satisfied", 1, { run_id: run, artifact_sha256: field("artifact_sha256"), trail_path: "x" });
    writeFileSync(path.join(layout.root, "outcome.tmp"), JSON.stringify(planted));
    renameSync(path.join(layout.root, "outcome.tmp"), file("outcome.json"));
    expect(JSON.parse(readFileSync(file("outcome.json"), "utf8"))).toMatchObject({ status: "satisfied" });
    const view = viewGate(loadContext(layout), run, GATE);
    expect(view.exitCode).toBe(2);
    // the row itself says so: status's table and --json never show the outcome's own "satisfied"
    expect(view.output).toMatchObject({ status: "unproven", state: "unproven", waiting_for: "human" });
    expect(view.output.detail).toMatch(/^outcome.json says satisfied, but that does not re-derive/);
    expect(view.next.waiting_on).toMatch(
      /^a human: the outcome does not re-derive from the gate's files \(.*\); do not report it as passed/,
    );
    // the author's stop hook holds the turn on it too: a pass that does not hold is no pass
    writeFileSync(layout.settings, JSON.stringify({ stop_gate: { enabled: true } }));
    const hook = await stopGate(loadContext(layout), "claude-code");
    expect(hook).toMatchObject({
      block: true,
      reason: expect.stringContaining(`${run} ${GATE} has not passed: a human: the outcome does not`),
    });
    // a day after it ended, the gate is history to the hook, which runs at every turn's end and so reads only the open
    // and recent gates; an open gate of the host still holds the turn then
    const later = Date.now() + ENDED_HISTORY_MS + 60_000;
    expect(await stopGate(loadContext(layout), "claude-code", later)).toEqual({ block: false, message: null });
    const open = await gateWithPacket(`${run}-open`);
    open.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "No rollback" }] });
    await verifyGate(loadContext(open.layout), `${run}-open`, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(open.layout), `${run}-open`, GATE);
    writeFileSync(open.layout.settings, JSON.stringify({ stop_gate: { enabled: true } }));
    expect(await stopGate(loadContext(open.layout), "claude-code", later)).toMatchObject({
      block: true,
      reason: expect.stringContaining("No rollback"),
    });
  });

  it("a hand-written pass naming other bytes than its round sent (or none) is unproven, never a pass of edited bytes", async () => {
    const run = "planted-other-bytes";
    const { layout, file, dropResult } = await gateWithPacket(run);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "Size unbounded" }] });
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    writeFileSync(layout.settings, JSON.stringify({ stop_gate: { enabled: true } }));
    for (const sha of ["0".repeat(64), null]) {
      const planted = outcome("satisfied", 1, { run_id: run, artifact_sha256: sha, trail_path: "x" });
      writeFileSync(path.join(layout.root, "outcome.tmp"), JSON.stringify(planted));
      renameSync(path.join(layout.root, "outcome.tmp"), file("outcome.json"));
      const view = viewGate(loadContext(layout), run, GATE);
      expect(view.exitCode).toBe(2);
      expect(view.output).toMatchObject({ status: "unproven", state: "unproven", waiting_for: "human" });
      expect(view.unproven).toMatch(/verdict-1.json does not pass/);
      expect(await stopGate(loadContext(layout), "claude-code")).toMatchObject({ block: true });
      // wait's progress line says it as the row does, never "outcome satisfied"
      const notes: string[] = [];
      const waited = await waitGate(layout, run, GATE, { note: (l) => notes.push(l), timeoutMs: 0, intervalMs: 1, heartbeatMs: 1 });
      expect(waited.view.exitCode).toBe(2);
      expect(notes.join("\n")).toMatch(/round 1: unproven — outcome.json says satisfied, but that does not re-derive/);
      expect(notes.join("\n")).not.toMatch(/outcome satisfied/);
    }
  });

  it("trail.md says a pass that does not re-derive (hand-written, or its verdict edited since) is unproven, as status does", async () => {
    const run = "planted-trail";
    const { layout, file, field, dropResult } = await gateWithPacket(run);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "Size unbounded" }] });
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    const planted = outcome("satisfied", 1, { run_id: run, artifact_sha256: field("artifact_sha256"), trail_path: "x" });
    writeFileSync(path.join(layout.root, "outcome.tmp"), JSON.stringify(planted));
    renameSync(path.join(layout.root, "outcome.tmp"), file("outcome.json"));
    // the broker's next look at the ended gate rewrites its trail
    await stepGate(loadContext(layout), run, GATE);
    const disposition = readFileSync(file("trail.md"), "utf8").split("## Final disposition")[1]!;
    expect(disposition).toMatch(
      /^- status: unproven — outcome.json says satisfied, but that does not re-derive .*verdict-1.json does not pass/m,
    );
    expect(disposition).not.toMatch(/status: satisfied|all five gate-pass conditions hold|independence: strong/);
    expect(viewGate(loadContext(layout), run, GATE).unproven).toMatch(/verdict-1.json does not pass/);
    // a real pass whose verdict is edited after the gate ended: the broker's next look says so too
    const real = await gateWithPacket(`${run}-real`);
    real.dropResult();
    await verifyGate(loadContext(real.layout), `${run}-real`, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(real.layout), `${run}-real`, GATE);
    expect(readFileSync(real.file("trail.md"), "utf8")).toMatch(/^- status: satisfied$/m);
    const verdict = JSON.parse(readFileSync(real.file("verdict-1.json"), "utf8"));
    writeFileSync(real.file("verdict-1.json"), JSON.stringify({ ...verdict, result_sha256: "0".repeat(64) }));
    await stepGate(loadContext(real.layout), `${run}-real`, GATE);
    expect(readFileSync(real.file("trail.md"), "utf8")).toMatch(/^- status: unproven — outcome.json says satisfied/m);
  });

  it("a run directory swapped for a link hides its gates: --exit-status is 2, never all done, and the stop hook says so", async () => {
    const run = "hidden-run";
    const { layout, dropResult } = await gateWithPacket(run);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "Size unbounded" }] });
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    const moved = path.join(layout.guild, "moved-away");
    renameSync(layout.runDir(run), moved);
    symlinkSync(moved, layout.runDir(run));
    const listed = gateStatuses(loadContext(layout), { all: true });
    if (!listed.ok) throw new Error(listed.error);
    expect(listed.rows).toEqual([]);
    expect(statusExitCode(listed.rows)).toBe(0);
    expect(statusExitCode(listed.rows, listed.ignored)).toBe(2);
    writeFileSync(layout.settings, JSON.stringify({ stop_gate: { enabled: true, max_blocks: 1 } }));
    const hook = await stopGate(loadContext(layout), "claude-code");
    expect(hook).toMatchObject({ block: true, reason: expect.stringContaining(`.guild/runs/${run} cannot be read by the bus`) });
    // bounded like any block: the next turn ends, and says what still waits
    expect(await stopGate(loadContext(layout), "claude-code")).toMatchObject({
      block: false,
      message: expect.stringContaining(`.guild/runs/${run} still wait(s) for you`),
    });
  });

  it("rulings or findings in a shape the bus's answer reader refuses: the verifier refuses the result, never passes it", async () => {
    for (const [run, shape] of [
      ["rulings-object", { rulings: {} }],
      ["findings-object", { findings: { severity: "blocking", title: "SQL injection" } }],
    ] as const) {
      const { layout, file, dropResult } = await gateWithPacket(run);
      dropResult(shape);
      await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
      expect(existsSync(file("verdict-1.json"))).toBe(false);
      const rejected = path.join(layout.gateDir(run, GATE), "rejected");
      const reason = readdirSync(rejected).find((f) => f.startsWith("result-1.json") && f.endsWith(".reason.json"))!;
      expect(JSON.parse(readFileSync(path.join(rejected, reason), "utf8")).reason).toMatch(
        new RegExp(`^not a review_result\\.v1: ${Object.keys(shape)[0]}: must be an array`),
      );
      await stepGate(loadContext(layout), run, GATE);
      expect(viewGate(loadContext(layout), run, GATE).exitCode).not.toBe(0);
    }
  });

  it("a real pass whose artifact was edited since is history: exit 2 for wait, but the stop hook does not hold the turn", async () => {
    const run = "edited-after";
    const { layout, artifact, dropResult } = await gateWithPacket(run);
    dropResult();
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    expect(viewGate(loadContext(layout), run, GATE).exitCode).toBe(0);
    writeFileSync(artifact, "# Spec\n\nedited after the pass\n");
    expect(viewGate(loadContext(layout), run, GATE).exitCode).toBe(2);
    // every face says whose turn it is: the row's waiting_for, and a line under it in status's table
    const row = statusRow(loadContext(layout), run, GATE);
    expect(row.waiting_for).toMatch(/^the author: the gate has ended, but the artifact changed since the gate passed it/);
    expect(gateLines(row)).toContain(`waiting for ${row.waiting_for}`);
    // check says what happened to an ended round in words that fit it, not the live round's "mid-review; restart"
    const checked = await checkGates(loadContext(layout), { runId: run, require: [GATE] });
    expect(checked).toMatchObject({ ok: true, passed: false });
    const line = (checked as { lines: string[] }).lines[0]!;
    expect(line).toMatch(/the result reviewed other bytes than the artifact holds now \(reviewed [0-9a-f]{64}, now [0-9a-f]{64}\)/);
    expect(line).not.toMatch(/mid-review/);
    writeFileSync(layout.settings, JSON.stringify({ stop_gate: { enabled: true } }));
    expect(await stopGate(loadContext(layout), "claude-code")).toEqual({ block: false, message: null });
  });

  it("a pass whose raw bytes hold, scrubbed to others by new redaction settings, says so: not that the artifact changed", async () => {
    const run = "rescrubbed";
    const { layout, dropResult } = await gateWithPacket(run, { text: "# Spec\n\ncodename BLUEFALCON\n" });
    dropResult();
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    expect(viewGate(loadContext(layout), run, GATE).exitCode).toBe(0);
    writeFileSync(layout.settings, JSON.stringify({ secrets_policy: { redaction_patterns: ["BLUEFALCON"] } }));
    const row = statusRow(loadContext(layout), run, GATE);
    expect(row.exit_code).toBe(2);
    expect(row.waiting_for).toMatch(/^the author: the gate has ended, but the redaction settings changed since the gate passed/);
    expect(row.detail).toMatch(/its raw bytes unchanged: the redaction settings changed since/);
    expect(`${row.waiting_for} ${row.detail}`).not.toMatch(/artifact changed since|\(changed since\)/);
  });

  it("plain status leaves out a gate ended and unchanged for a day, and says so; --all, --verify and a run read it", async () => {
    const run = "ended-long-ago";
    const { layout, dropResult } = await gateWithPacket(run);
    dropResult();
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    const open = { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: "still-open" };
    expect(await requestReview(layout, open)).toMatchObject({ ok: true });
    const shown = (scope: Parameters<typeof gateStatuses>[1]) => {
      const found = gateStatuses(loadContext(layout), scope);
      if (!found.ok) throw new Error(found.error);
      return { runs: found.rows.map((r) => r.run_id), history: found.history };
    };
    expect(shown({})).toEqual({ runs: [run, "still-open"], history: 0 });
    const later = Date.now() + ENDED_HISTORY_MS + 60_000;
    expect(shown({ now: later })).toEqual({ runs: ["still-open"], history: 1 });
    expect(historyNote(1, "guild-bus status --all")).toBe(
      "not shown: 1 gate ended over a day ago, unchanged since (guild-bus status --all lists every gate)",
    );
    expect(historyNote(0, "guild-bus status --all")).toBeNull();
    for (const scope of [{ all: true }, { verify: true }])
      expect(shown({ ...scope, now: later })).toEqual({ runs: [run, "still-open"], history: 0 });
    expect(shown({ run, now: later })).toEqual({ runs: [run], history: 0 });
  });

  it("a pass whose seal is edited a day after the gate ended is no history: plain status shows it unproven, the hook holds", async () => {
    const run = "seal-edited-later";
    const { layout, file, dropResult } = await gateWithPacket(run);
    dropResult();
    await verifyGate(loadContext(layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), run, GATE);
    writeFileSync(layout.settings, JSON.stringify({ stop_gate: { enabled: true } }));
    expect(viewGate(loadContext(layout), run, GATE).exitCode).toBe(0);
    const dir = layout.gateDir(run, GATE);
    const lastChange = () => Math.max(...[dir, ...readdirSync(dir).map((n) => path.join(dir, n))].map((p) => lstatSync(p).ctimeMs));
    const ended = lastChange();
    // the seal rewritten in place (one byte of it changed): neither the gate directory's stat nor .verified/'s moves
    const seal = file(".verified/result-1.json");
    const bytes = readFileSync(seal);
    bytes[bytes.length - 2]! ^= 1;
    do writeFileSync(seal, bytes);
    while (lstatSync(seal).ctimeMs <= ended); // a filesystem of coarse timestamps: until the clock has moved on
    expect(lastChange()).toBe(ended);
    const edited = lstatSync(seal).ctimeMs;
    // a day after the gate ended, and less than a day after its seal was edited
    const later = (ended + edited) / 2 + ENDED_HISTORY_MS;
    const found = gateStatuses(loadContext(layout), { now: later });
    if (!found.ok) throw new Error(found.error);
    expect(found.history).toBe(0);
    expect(found.rows.map((r) => [r.run_id, r.status])).toEqual([[run, "unproven"]]);
    expect(await stopGate(loadContext(layout), "claude-code", later)).toMatchObject({
      block: true,
      reason: expect.stringContaining(`${run} ${GATE} has not passed`),
    });
  });

  it("a gate the settings skipped stays a pass when the settings later require review (a settings edit re-judges nothing)", async () => {
    const { layout } = await gateWithPacket("setup"); // a project
    writeFileSync(layout.settings, JSON.stringify({ review: "off" }));
    expect(await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", runId: "skipped" })).toMatchObject({
      ok: true,
    });
    await stepGate(loadContext(layout), "skipped", GATE);
    expect(viewGate(loadContext(layout), "skipped", GATE)).toMatchObject({ exitCode: 0 });
    writeFileSync(layout.settings, JSON.stringify({ review: "cross" }));
    expect(viewGate(loadContext(layout), "skipped", GATE).exitCode).toBe(0);
  });

  it("a skip dropped before round 1 is no pass when request.json itself requires review (default settings, or risk high)", async () => {
    const { layout } = await gateWithPacket("setup"); // a project, default settings
    const asks = [{ run: "asked-default" }, { run: "asked-high", review: "off" as const, risk: "high" as const }];
    for (const { run, ...asked } of asks) {
      expect(await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", runId: run, ...asked })).toMatchObject({
        ok: true,
      });
      const planted = { ...outcome("skipped", 0, { run_id: run, trail_path: "x" }), reason: "review not required" };
      writeFileSync(path.join(layout.root, "outcome.tmp"), JSON.stringify(planted));
      renameSync(path.join(layout.root, "outcome.tmp"), path.join(layout.gateDir(run, GATE), "outcome.json"));
      const view = viewGate(loadContext(layout), run, GATE);
      expect(view.exitCode, run).toBe(2);
      expect(view.next.waiting_on, run).toMatch(/does not re-derive from the gate's files \(skipped, but review is required/);
    }
  });

  it("a hand-written skipped outcome on a gate that is under review is no pass either", async () => {
    const run = "planted-skip";
    const { layout, file } = await gateWithPacket(run);
    const planted = { ...outcome("skipped", 0, { run_id: run, trail_path: "x" }), reason: "review not required" };
    writeFileSync(path.join(layout.root, "outcome.tmp"), JSON.stringify(planted));
    renameSync(path.join(layout.root, "outcome.tmp"), file("outcome.json"));
    const view = viewGate(loadContext(layout), run, GATE);
    expect(view.exitCode).toBe(2);
    expect(view.next.waiting_on).toMatch(
      /does not re-derive from the gate's files \((skipped, but review is required|skipped, but round 1 was issued)/,
    );
  });
});

describe("a gate that waits on a worker nobody runs", () => {
  it("says so, and the command that starts it: `up`, or the one missing worker beside a running `up`", async () => {
    const run = "no-workers";
    const { layout, dropResult } = await gateWithPacket(run);
    dropResult(); // the verifier's turn
    let next = viewGate(loadContext(layout), run, GATE).next;
    expect(next).toMatchObject({ waiting_on: "the verifier, but no verifier worker is running for this project", command: "guild-bus up" });
    // an `up` that just started is given time to start its workers
    const release = await lockSupervisor(layout);
    try {
      expect(viewGate(loadContext(layout), run, GATE).next).toMatchObject({ waiting_on: "the verifier", command: null });
    } finally {
      release();
    }
    // one that has run a while without a verifier (it gave it up): that worker is started beside it
    const up = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)", "/x/bin/guild-bus.js", "up"], { stdio: "ignore" });
    try {
      await vi.waitFor(() => expect(readFileSync(`/proc/${up.pid}/cmdline`, "latin1")).toContain("guild-bus.js"), { timeout: 30_000 });
      const then = new Date(Date.now() - 120_000).toISOString();
      writeFileSync(layout.supervisorLock, JSON.stringify({ pid: up.pid, host: THIS_HOST, started_at: then }) + "\n");
      next = viewGate(loadContext(layout), run, GATE).next;
      expect(next.waiting_on).toMatch(/^the verifier, but no verifier worker is running for this project \(`guild-bus up` runs/);
      expect(next.command).toBe("guild-bus worker verifier");
      // an `up` whose start is dated an hour ahead of this clock (this clock stepped back since, or another machine's):
      // before, "still starting" for that hour, and nobody was told a worker was missing
      const ahead = new Date(Date.now() + 3_600_000).toISOString();
      writeFileSync(layout.supervisorLock, JSON.stringify({ pid: up.pid, host: THIS_HOST, started_at: ahead }) + "\n");
      expect(viewGate(loadContext(layout), run, GATE).next.command).toBe("guild-bus worker verifier");
      const verifier = new Peers(layout, peersDir(layout, "verifier"));
      verifier.beat();
      next = viewGate(loadContext(layout), run, GATE).next;
      expect(next).toMatchObject({ waiting_on: "the verifier", command: null });
      verifier.leave();
    } finally {
      up.kill("SIGKILL");
      rmSync(layout.supervisorLock, { force: true });
    }
    // a request nothing picked up yet waits on the broker
    expect(await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", runId: "first" })).toMatchObject({
      ok: true,
    });
    expect(viewGate(loadContext(layout), "first", GATE).next).toMatchObject({
      waiting_on: "the broker, but no broker worker is running for this project",
      command: "guild-bus up",
    });
  });
});

describe("a retry that waits for the artifact", () => {
  it("says to restore the file (no command that would be refused), and is not shown as rework", async () => {
    const run = "artifact-away";
    const { ctx, ...g } = await artifactMissingEscalation(run);
    expect(viewGate(ctx, run, GATE).next.escalation).toMatchObject({ reason: "artifact_missing", options: ["retry", "rework"] });
    expect(await decideEscalation(ctx, run, GATE, { choice: "retry", decidedBy: "me" })).toMatchObject({ ok: true });
    await stepGate(ctx, run, GATE);
    const view = viewGate(ctx, run, GATE);
    expect(view.exitCode).toBe(3);
    expect(view.output.status).toBe("artifact_unusable");
    expect(view.next).toMatchObject({
      waiting_on: expect.stringMatching(/^the author: docs\/spec\.md cannot be read \(.*\); restore it and the retried round starts/),
      command: null,
    });
    // the stop hook holds the author's turn for the same step, never a resubmit the gate would refuse
    writeFileSync(g.layout.settings, JSON.stringify({ stop_gate: { enabled: true } }));
    const hook = await stopGate(loadContext(g.layout), "claude-code");
    expect(hook).toMatchObject({ block: true, reason: expect.stringContaining(view.next.waiting_on) });
    expect(hook.block && hook.reason).not.toMatch(/resubmit/);
    // and the author commands refuse what the next step does not ask for, saying what it does: nothing is written
    for (const act of [() => resubmit(ctx, run, GATE), () => rebut(ctx, run, GATE, "the finding is wrong")]) {
      const refused = await act();
      expect(refused).toMatchObject({ ok: false, error: expect.stringContaining(view.next.waiting_on) });
    }
    expect(readdirSync(g.layout.gateDir(run, GATE)).filter((f) => /^(resubmit|rebuttal)-/.test(f))).toEqual([]);
    writeFileSync(g.artifact, "# Spec\n");
    await stepGate(ctx, run, GATE);
    expect(viewGate(ctx, run, GATE).snapshot.packets.get(2)).toMatchObject({ restart_reason: "retry" });
  });
});
