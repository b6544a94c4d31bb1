// The MCP wait tool's answer for a gate that needs the user: the options of its escalation whether a decision (4) or
// no reviewer that could run (5) asks for it, and a next step the author model can follow.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { failureRecord } from "../../src/core/dispatch-plan.js";
import { stepGate } from "../../src/workers/broker.js";
import { waitTool } from "../../src/mcp/wait-tool.js";
import { REVIEW_LOOP } from "../../src/commands/host-files.js";
import { requestReview } from "../../src/commands/review.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";
import { outcome } from "../helpers/snapshots.js";
import { tempRoot } from "../helpers/tmp.js";

const extra = { signal: new AbortController().signal, _meta: {}, sendNotification: async () => {} } as unknown as Parameters<
  typeof waitTool
>[2];

describe("the MCP wait tool", () => {
  it("with no reviewer that could run: the escalation's options, and how to go on", async () => {
    const run = "no-reviewer";
    const g = await gateWithPacket(run);
    const P = readGate(g.layout, run, GATE).packets.get(1)!;
    const reason = "the manual reviewer cannot be reached";
    g.drop(
      "failure-1.json",
      JSON.stringify(failureRecord(P, { kind: "unavailable", reason, attempts: [], at: new Date().toISOString() }, {})),
    );
    await stepGate(loadContext(g.layout), run, GATE);
    const answer = (await waitTool(g.layout, { run_id: run, gate: GATE, timeout_seconds: 60 }, extra)) as CallToolResult;
    expect(answer.structuredContent).toMatchObject({ exit_code: 5, options: expect.arrayContaining(["retry", "rework"]) });
    const text = (answer.content[0] as { text: string }).text;
    expect(text).toMatch(/^options: .*retry/m);
    expect(text).toMatch(/Next: no reviewer could run: .*call decide with retry and round 1; or .*reviewer manual\.$/m);
  });
});

describe("the MCP wait tool on gates that need a person", () => {
  it("a quorum no configured reviewers can make up: only what the escalation offers, never a manual re-request", async () => {
    const root = tempRoot("guild-bus-quorum-none-");
    mkdirSync(path.join(root, "docs"));
    writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
    const layout = new Layout(root);
    const run = "quorum-none";
    expect(
      await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", runId: run, quorum: { need: 2, of: 2 } }),
    ).toMatchObject({ ok: true });
    await stepGate(loadContext(layout), run, GATE);
    const answer = (await waitTool(layout, { run_id: run, gate: GATE, timeout_seconds: 60 }, extra)) as CallToolResult;
    expect(answer.structuredContent).toMatchObject({ exit_code: 5, options: ["rework"] });
    const next = (answer.structuredContent as { next: string }).next;
    expect(next).toMatch(/^no reviewer could run: .*call decide with rework and round 0 and request the review again under a new run id$/);
    expect(next).not.toMatch(/retry|manual/);
  });

  it("a hand-written satisfied outcome: the answer says unproven, never the file's own word, and a human must look", async () => {
    const run = "planted-for-mcp";
    const g = await gateWithPacket(run);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "Size unbounded" }] });
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), run, GATE);
    g.drop(
      "outcome.json",
      JSON.stringify(outcome("satisfied", 1, { run_id: run, artifact_sha256: g.field("artifact_sha256"), trail_path: "x" })),
    );
    const answer = (await waitTool(g.layout, { run_id: run, gate: GATE, timeout_seconds: 60 }, extra)) as CallToolResult;
    expect(answer.structuredContent).toMatchObject({ exit_code: 2, outcome: { status: "unproven" } });
    const text = (answer.content[0] as { text: string }).text;
    expect(text).toMatch(/^outcome: unproven /m);
    expect(text).not.toMatch(/satisfied \(|passed other bytes/);
    expect(text).toMatch(/Next: a human: the outcome does not re-derive/);
  });
});

describe("the MCP wait tool on a pass of bytes the artifact no longer holds", () => {
  it("says so on the outcome's own line and in its structured outcome, and the loop's instructions name exit_code 2", async () => {
    const run = "edited-after";
    const g = await gateWithPacket(run);
    g.dropResult();
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), run, GATE);
    const passed = (await waitTool(g.layout, { run_id: run, gate: GATE, timeout_seconds: 60 }, extra)) as CallToolResult;
    expect(passed.structuredContent).toMatchObject({ exit_code: 0, outcome: { status: "satisfied", artifact_unchanged: true } });
    writeFileSync(g.artifact, "# Spec\n\nAn unreviewed addition.\n");
    const answer = (await waitTool(g.layout, { run_id: run, gate: GATE, timeout_seconds: 60 }, extra)) as CallToolResult;
    expect(answer.structuredContent).toMatchObject({ exit_code: 2, outcome: { status: "satisfied", artifact_unchanged: false } });
    const text = (answer.content[0] as { text: string }).text;
    // the line an author model looks for before it reports a pass: never a bare "outcome: satisfied" here
    expect(text).toMatch(/^outcome: satisfied \(independence strong\) — of other bytes than the artifact holds now/m);
    expect(text).not.toMatch(/^outcome: satisfied \(independence strong\)$/m);
    // the loop the hosts are taught: a pass is reported only with exit_code 0, and exit_code 2 is said for what it is
    expect(REVIEW_LOOP).toMatch(/\(`exit_code` 2\): the artifact changed since the gate passed it/);
    expect(REVIEW_LOOP).toMatch(/Never say a review passed unless `wait` returned `exit_code` 0/);
  });
});

describe("the MCP wait tool, still running", () => {
  it("on a round waiting for the manual reviewer: a person must act first, and the command", async () => {
    const run = "manual-waits";
    const g = await gateWithPacket(run);
    const answer = (await waitTool(g.layout, { run_id: run, gate: GATE, timeout_seconds: 1 }, extra)) as CallToolResult;
    expect(answer.structuredContent).toMatchObject({ still_running: true });
    const text = (answer.content[0] as { text: string }).text;
    expect(text).toMatch(/waiting for a person \(the manual reviewer\) — run: guild-bus respond /);
    // the file a person may drop instead is named with the line that makes it an answer (else it is refused)
    expect(text).toContain(`or write .guild/runs/${run}/review/${GATE}/response-1.md, its first line \`Reviewer-Model: <model>\``);
    expect(text).toMatch(/A person must act first: ask the user to run that command, then call wait again/);
  });
});

describe("the MCP wait tool's heartbeat", () => {
  it("repeats where the gate stands, not the last note", { timeout: 60_000 }, async () => {
    const g = await gateWithPacket("setup"); // a project
    expect(await requestReview(g.layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", runId: "fallback" })).toMatchObject({
      ok: true,
    });
    await stepGate(loadContext(g.layout), "fallback", GATE); // no reviewer configured: the round falls to a person
    const sent: string[] = [];
    const withToken = {
      ...extra,
      _meta: { progressToken: "t" },
      sendNotification: async (n: { params: { message: string } }) => void sent.push(n.params.message),
    } as unknown as Parameters<typeof waitTool>[2];
    await waitTool(g.layout, { run_id: "fallback", gate: GATE, timeout_seconds: 12 }, withToken);
    expect(sent.some((m) => /\] note: /.test(m))).toBe(true); // the notes were said, as the wait began
    // the heartbeats (every 5 s; the gate does not move): where it stands
    const beats = sent.filter((m) => Number(/ \((\d+) s\)$/.exec(m)?.[1]) >= 5);
    expect(beats.length).toBeGreaterThan(0);
    for (const beat of beats) expect(beat).not.toMatch(/\] (note|warn): /);
  });
});

describe("the MCP wait tool on settings with problems", () => {
  it("judges no ended gate: a pass the project's settings do not re-derive is never answered exit_code 0", async () => {
    const run = "broken-settings";
    const g = await gateWithPacket(run);
    g.dropResult();
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), run, GATE);
    const model = (readGate(g.layout, run, GATE).outcome as { reviewer_model?: string } | null)?.reviewer_model;
    expect(model).toBeTruthy();
    // the project's settings class the reviewer's model with the author's family: the pass does not re-derive
    writeFileSync(g.layout.settings, JSON.stringify({ family_aliases: { [model!]: "anthropic" } }));
    const unproven = (await waitTool(g.layout, { run_id: run, gate: GATE, timeout_seconds: 60 }, extra)) as CallToolResult;
    expect(unproven.structuredContent).toMatchObject({ exit_code: 2 });
    // one bad value drops the whole key: what is left would re-derive the pass under the default classifier
    writeFileSync(g.layout.settings, JSON.stringify({ family_aliases: { [model!]: "anthropic", other: 5 } }));
    const answer = (await waitTool(g.layout, { run_id: run, gate: GATE, timeout_seconds: 60 }, extra)) as CallToolResult;
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent?.exit_code).not.toBe(0);
    expect((answer.content[0] as { text: string }).text).toMatch(/family_aliases.*the gate was not judged/);
  });
});
