// The command layer answers a refusal as a value and writes nothing for it (README "Errors"); the CLI and any
// other face print what they get back.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { decideEscalation, rebut, respond, resubmit } from "../../src/commands/author.js";
import { requestReview } from "../../src/commands/review.js";
import { statusRow } from "../../src/commands/status.js";
import { gateRow } from "../../src/ui/rows.js";
import { refusing } from "../../src/commands/answer.js";
import { MAX_NOTE_BYTES } from "../../src/spec/constants.js";
import { Decision } from "../../src/spec/schemas.js";
import { tempRoot } from "../helpers/tmp.js";
import { GATE, gateWithPacket, goneAWhile } from "../helpers/one-gate.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { inMemoryMcp, textOf } from "../helpers/mcp-client.js";

async function project() {
  const root = tempRoot();
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  const layout = new Layout(root);
  expect(
    await requestReview(layout, { artifact: "docs/spec.md", gate: "G-spec", author: "claude", reviewer: "manual", runId: "r1" }),
  ).toMatchObject({
    ok: true,
  });
  const files = () => readdirSync(layout.gateDir("r1", "G-spec")).sort();
  return { layout, ctx: loadContext(layout), files };
}

describe("commands: refusals are answers, and nothing is written for them", () => {
  it("a gate that waits for nobody's answer yet refuses resubmit, rebut, decide and respond", async () => {
    const { ctx, files } = await project();
    const before = files();
    expect(await resubmit(ctx, "r1", "G-spec")).toEqual({
      ok: false,
      error: expect.stringMatching(/not waiting for the author \(state: broker/),
    });
    expect(await rebut(ctx, "r1", "G-spec", "I disagree")).toEqual({
      ok: false,
      error: expect.stringMatching(/not waiting for the author/),
    });
    expect(await decideEscalation(ctx, "r1", "G-spec", { choice: "force-pass", decidedBy: "me" })).toEqual({
      ok: false,
      error: expect.stringMatching(/not waiting for a decision/),
    });
    let asked = false;
    const answer = await respond(ctx, "r1", "G-spec", { read: async () => ((asked = true), "x"), reviewerModel: "gpt-5" });
    expect(answer).toEqual({ ok: false, error: "r1 G-spec has no open packet addressed to the manual reviewer" });
    expect(asked, "the person is not asked to type an answer the gate cannot take").toBe(false);
    expect(files()).toEqual(before);
  });

  it("extend-cap without a number, and a bad id or gate, are refusals too", async () => {
    const { layout, ctx } = await project();
    expect(await decideEscalation(ctx, "r1", "G-spec", { choice: "extend-cap", decidedBy: "me" })).toEqual({
      ok: false,
      error: "a number of rounds (1-5) goes with extend-cap, and only with it",
    });
    // what a face passes unchecked (the console's form field is any text) is refused here, once, for every face
    for (const extendBy of [9, 2.5, Number("abc"), 0, -1]) {
      expect(await decideEscalation(ctx, "r1", "G-spec", { choice: "extend-cap", extendBy, decidedBy: "me" })).toEqual({
        ok: false,
        error: `extend-cap takes a whole number of rounds from 1 to 5, not ${extendBy}`,
      });
    }
    // a form field's text is read by the rule the CLI's arguments are (digits only), and named as typed
    for (const extendBy of ["1e0", "0x2", "2.0", "abc", "9"]) {
      expect(await decideEscalation(ctx, "r1", "G-spec", { choice: "extend-cap", extendBy, decidedBy: "me" })).toEqual({
        ok: false,
        error: `extend-cap takes a whole number of rounds from 1 to 5, not "${extendBy}"`,
      });
    }
    // and a record its schema refuses, from any command, is a refusal naming the field, never a crash
    const invalid = Decision.safeParse({ choice: "extend-cap", extend_by: 9 }).error!;
    expect(
      refusing(() => {
        throw invalid;
      }),
    ).toEqual({ ok: false, error: expect.stringMatching(/^invalid input: .*extend_by/) });
    expect(await requestReview(layout, { artifact: "docs/spec.md", gate: "G-nope", author: "claude", reviewer: "manual" })).toEqual({
      ok: false,
      error: expect.stringMatching(/^invalid gate/),
    });
    expect(await requestReview(layout, { artifact: "../outside.md", gate: "G-plan", author: "claude", reviewer: "manual" })).toMatchObject({
      ok: false,
    });
    expect(
      await requestReview(layout, { artifact: "docs/spec.md", gate: "G-spec", author: "claude", reviewer: "auto", runId: "r1" }),
    ).toEqual({
      ok: false,
      error: expect.stringMatching(/already has a request/),
    });
  });
});

describe("decide: the note", () => {
  it("is scrubbed before it is written: it reaches trail.md, status, the console and the next packet", async () => {
    const { layout, file, dropResult } = await gateWithPacket("run1", { cap: 1 });
    // the cap reached after a round with findings: the broker's own cap_hit escalation
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(loadContext(layout), "run1", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), "run1", GATE);
    expect(JSON.parse(readFileSync(file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "cap_hit" });
    const token = `ghp_${"A1b2C3d4".repeat(5)}`;
    const d = await decideEscalation(loadContext(layout), "run1", GATE, { choice: "rework", note: `rotate ${token}`, decidedBy: "me" });
    expect(d, JSON.stringify(d)).toMatchObject({ ok: true });
    const note = Decision.parse(JSON.parse(readFileSync(file("decision-1.json"), "utf8"))).note!;
    expect(note).toMatch(/^rotate \[REDACTED/);
    expect(note).not.toContain("A1b2C3d4");
  });
});

describe("decide: a note too long for a person's instruction", () => {
  it("is refused on every face, naming the limit, never cut: a continue note goes whole into the next packet", async () => {
    const { layout, file, dropResult } = await gateWithPacket("run1", { humanCheckpoint: true });
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(loadContext(layout), "run1", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), "run1", GATE);
    expect(JSON.parse(readFileSync(file("escalation-1.json"), "utf8"))).toMatchObject({ reason: "human_checkpoint" });
    const refusal = (bytes: number) =>
      `the note is ${bytes} bytes; a decision's note holds at most ${MAX_NOTE_BYTES} bytes (64 KiB), as it goes whole into the trail`;
    const huge = "check the rollback first. ".repeat(160_000); // about 4 MiB, as a console form or an MCP call can send
    const decide = (note: string, choice: "continue" | "rework" = "continue") =>
      decideEscalation(loadContext(layout), "run1", GATE, { choice, note, decidedBy: "me" });
    expect(await decide(huge)).toEqual({ ok: false, error: expect.stringContaining(refusal(huge.length)) });
    // counted in bytes as written: 22,000 three-byte characters are over the limit
    expect(await decide("€".repeat(22_000))).toEqual({ ok: false, error: expect.stringContaining(refusal(66_000)) });
    const mcp = await inMemoryMcp(layout);
    try {
      const r = await mcp.call("decide", { run_id: "run1", gate: GATE, choice: "rework", note: huge });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain(refusal(huge.length));
    } finally {
      await mcp.close();
    }
    expect(existsSync(file("decision-1.json"))).toBe(false);
    // within the limit as given, over it as written (a redaction label is longer than the secret it hides): the broker
    // reads the file, and would move aside what decide accepted
    const secrets = "password=ab\n".repeat(Math.floor(MAX_NOTE_BYTES / 12));
    expect(await decide(secrets)).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^the note is \d+ bytes; a decision's note holds at most 65536 bytes .*\(as written: secrets redacted\); nothing was decided$/,
      ),
    });
    expect(existsSync(file("decision-1.json"))).toBe(false);
    const longest = "x".repeat(MAX_NOTE_BYTES);
    expect(await decide(longest)).toMatchObject({ ok: true });
    expect(Decision.parse(JSON.parse(readFileSync(file("decision-1.json"), "utf8"))).note).toBe(longest);
  });
});

describe("respond: the host that sends the answer", () => {
  it("is refused when it is of the author's family (claude-code answering for claude), whatever model it names", async () => {
    const { layout, file } = await gateWithPacket("via-host");
    const answer = (via: string) =>
      respond(loadContext(layout), "via-host", GATE, { read: async () => "## SATISFIED\n", reviewerModel: "gpt-5", via });
    expect(await answer("claude-code")).toMatchObject({
      ok: false,
      error: expect.stringContaining("claude-code is of this gate's author's family (anthropic)"),
    });
    // the author's own name in another case or with spaces around it is still the author
    expect(await answer(" Claude ")).toMatchObject({ ok: false, error: expect.stringContaining("of this gate's author's family") });
    expect(readdirSync(layout.gateDir("via-host", GATE)).filter((f) => f.startsWith("result-"))).toEqual([]);
    expect(await answer("codex")).toMatchObject({ ok: true, round: 1 });
    expect(existsSync(file("result-1.json"))).toBe(true);
  });
});

describe("the round the person read", () => {
  it("binds every author command on every face: once the gate has moved on, nothing is written", async () => {
    const run = "moved";
    const { layout, file, dropResult } = await gateWithPacket(run, { cap: 1 });
    const ctx = () => loadContext(layout);
    const step = () => stepGate(ctx(), run, GATE);
    const verify = () => verifyGate(ctx(), run, GATE, () => undefined, Date.now() + 60_000);
    const issues = (round?: number) =>
      respond(ctx(), run, GATE, {
        read: async () =>
          "```review_result.v1\n" +
          JSON.stringify({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] }) +
          "\n```\n",
        reviewerModel: "gpt-5",
        round,
      });
    const movedOn = expect.stringMatching(/^this answers round 1, but moved G-spec is at round 2 now .*nothing was written$/);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verify();
    await step(); // round 1 ends at its cap
    expect(await decideEscalation(ctx(), run, GATE, { choice: "extend-cap", extendBy: 1, decidedBy: "me", round: 1 })).toMatchObject({
      ok: true,
    });
    await step();
    // the extension counts at once on every face, not from the next packet (status read 1/1 until then)
    expect(statusRow(ctx(), run, GATE)).toMatchObject({ state: "awaiting_author", rounds: 1, cap: 2 });
    expect(gateRow(ctx(), run, GATE).row).toMatchObject({ round: 1, cap: 2 });
    expect(await resubmit(ctx(), run, GATE, 1)).toMatchObject({ ok: true, round: 1 });
    await step(); // round 2, for the manual reviewer
    expect(existsSync(file("packet-2.md"))).toBe(true);
    expect(await issues(1)).toEqual({ ok: false, error: movedOn });
    // past round 1 an answer that names no round could be to round 1's packet: refused on every face
    const nameIt = expect.stringMatching(/^moved G-spec is at round 2: name the round whose packet you reviewed .*nothing was written$/);
    expect(await issues()).toEqual({ ok: false, error: nameIt });
    const answerer = await inMemoryMcp(layout);
    try {
      const unnamed = await answerer.call("respond", { run_id: run, gate: GATE, reviewer_model: "gpt-5", review: "## SATISFIED\n" });
      expect(unnamed.isError).toBe(true);
      expect(textOf(unnamed)).toMatch(
        /is at round 2: name the round whose packet you reviewed \(`--round 2` on the command line, `round` over MCP\)/,
      );
    } finally {
      await answerer.close();
    }
    expect(existsSync(file("result-2.json"))).toBe(false);
    expect(await issues(2)).toMatchObject({ ok: true, round: 2 });
    await verify();
    await step(); // round 2 ends at the cap too
    const before = readdirSync(layout.gateDir(run, GATE)).sort();
    expect(await decideEscalation(ctx(), run, GATE, { choice: "rework", decidedBy: "me", round: 1 })).toEqual({
      ok: false,
      error: movedOn,
    });
    // round 1's resubmit landed: the same call again is told so, not refused (landedBefore below)
    expect(await resubmit(ctx(), run, GATE, 1)).toEqual({ ok: true, round: 1, already: true });
    expect(await rebut(ctx(), run, GATE, "no", 1)).toMatchObject({ ok: false, error: movedOn });
    // a decision that names no round could answer an escalation nobody saw (round 2's, decided from round 1's)
    const nameEscalation = expect.stringMatching(
      /^moved G-spec is at round 2: name the round whose escalation you read .*nothing was written$/,
    );
    expect(await decideEscalation(ctx(), run, GATE, { choice: "force-pass", decidedBy: "me" })).toEqual({
      ok: false,
      error: nameEscalation,
    });
    const mcp = await inMemoryMcp(layout);
    try {
      const unnamed = await mcp.call("decide", { run_id: run, gate: GATE, choice: "rework" });
      expect(unnamed.isError).toBe(true);
      expect(textOf(unnamed)).toMatch(/is at round 2: name the round whose escalation you read \(`--round 2` on the command line/);
      const stale = await mcp.call("decide", { run_id: run, gate: GATE, choice: "rework", round: 1 });
      expect(stale.isError).toBe(true);
      expect(textOf(stale)).toMatch(/this answers round 1, but moved G-spec is at round 2 now/);
      expect(readdirSync(layout.gateDir(run, GATE)).sort()).toEqual(before);
      expect((await mcp.call("decide", { run_id: run, gate: GATE, choice: "rework", round: 2 })).isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
    expect(JSON.parse(readFileSync(file("decision-2.json"), "utf8"))).toMatchObject({ round: 2, choice: "rework" });
    await step(); // the gate ends rework
    // with nothing to decide or answer, a command that names no round is told so, not asked for a round to name
    expect(await decideEscalation(ctx(), run, GATE, { choice: "retry", decidedBy: "me" })).toEqual({
      ok: false,
      error: expect.stringMatching(/^moved G-spec is not waiting for a decision \(state: done/),
    });
    // the answer to round 2 again: it landed, so it is told so; another answer is refused
    const result = readFileSync(file("result-2.json"), "utf8");
    expect(await issues()).toEqual({ ok: true, round: 2, verdict: "issues", model: "gpt-5", already: true });
    const other = await respond(ctx(), run, GATE, { read: async () => "## SATISFIED\n", reviewerModel: "gpt-5", round: 2 });
    expect(other).toEqual({ ok: false, error: "round 2 already has a result" });
    // a person typing at a terminal is told so before typing, not after (a retry is a piped or filed answer)
    let asked = false;
    const typed = await respond(ctx(), run, GATE, {
      read: async () => ((asked = true), "## SATISFIED\n"),
      reviewerModel: "gpt-5",
      round: 2,
      typed: true,
    });
    expect(typed).toEqual({ ok: false, error: "round 2 already has a result" });
    expect(asked, "the person is not asked to type an answer the gate cannot take").toBe(false);
    expect(readFileSync(file("result-2.json"), "utf8")).toBe(result);
  });
});

describe("review: the same call again", () => {
  it("goes on with the request already in while its gate is under way; another request, or an ended gate, is refused", async () => {
    const { layout, files } = await project();
    const request = readFileSync(path.join(layout.gateDir("r1", "G-spec"), "request.json"));
    const before = files();
    const again = await requestReview(layout, {
      artifact: "docs/spec.md",
      gate: "G-spec",
      author: "claude",
      reviewer: "manual",
      runId: "r1",
    });
    expect(again).toMatchObject({ ok: true, runId: "r1", gate: "G-spec" });
    expect(again.ok && again.warnings.join("\n")).toMatch(/the same request was already in \(requested at .*\); it goes on/);
    expect(readFileSync(path.join(layout.gateDir("r1", "G-spec"), "request.json"))).toEqual(request);
    expect(files()).toEqual(before);
    // another author is another request
    expect(
      await requestReview(layout, { artifact: "docs/spec.md", gate: "G-spec", author: "codex", reviewer: "manual", runId: "r1" }),
    ).toEqual({ ok: false, error: expect.stringMatching(/already has a request; .*use another --run-id/) });
  });

  it("is refused once the gate has ended: an ended gate is never reviewed again under its run", async () => {
    const { layout, dropResult } = await gateWithPacket("run1");
    dropResult({ verdict: "satisfied" });
    await verifyGate(loadContext(layout), "run1", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), "run1", GATE);
    expect(existsSync(path.join(layout.gateDir("run1", GATE), "outcome.json"))).toBe(true);
    const request = JSON.parse(readFileSync(path.join(layout.gateDir("run1", GATE), "request.json"), "utf8"));
    expect(
      await requestReview(layout, {
        artifact: request.artifact_path,
        gate: GATE,
        author: request.author_host,
        reviewer: request.reviewer,
        runId: "run1",
      }),
    ).toEqual({ ok: false, error: expect.stringMatching(/already has a request/) });
  });

  it("goes on while the gate's outcome.json is no valid outcome (a torn foreign write ends nothing, SPEC §5)", async () => {
    const { layout, drop } = await gateWithPacket("run1");
    drop("outcome.json", '{"torn');
    const again = await requestReview(layout, {
      artifact: "docs/spec.md",
      gate: GATE,
      author: "claude",
      reviewer: "manual",
      runId: "run1",
    });
    expect(again).toMatchObject({ ok: true, runId: "run1", gate: GATE });
    expect(again.ok && again.warnings.join("\n")).toMatch(/the same request was already in \(requested at .*\); it goes on/);
  });
});

describe("a retried action that landed before", () => {
  it("is answered `already`, writing nothing, on every face; another action in its place is still refused", async () => {
    const run = "retried";
    const { layout, file, dropResult } = await gateWithPacket(run, { cap: 1, difficulty: "hard" });
    const ctx = () => loadContext(layout);
    const step = () => stepGate(ctx(), run, GATE);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx(), run, GATE, () => undefined, Date.now() + 60_000);
    await step(); // round 1 ends at its cap: a decision
    const extend = { choice: "extend-cap", extendBy: 1, note: "one more, token=sk-live-0123456789abcdefghij", decidedBy: "me" } as const;
    expect(await decideEscalation(ctx(), run, GATE, { ...extend, round: 1 })).toEqual({ ok: true, round: 1, reason: "cap_hit" });
    const decision = readFileSync(file("decision-1.json"), "utf8");
    await step(); // the gate moved on: the author's turn
    const files = () => readdirSync(layout.gateDir(run, GATE)).sort();
    const before = files();
    // the same decision again, whether or not it names the round (its note compared as written: scrubbed)
    const landed = { ok: true, round: 1, reason: "cap_hit", already: true };
    expect(await decideEscalation(ctx(), run, GATE, { ...extend, round: 1 })).toEqual(landed);
    expect(await decideEscalation(ctx(), run, GATE, extend)).toEqual(landed);
    // another decision is not the one that landed: refused as before
    for (const other of [{ ...extend, extendBy: 2 }, { ...extend, note: "two more" }, { choice: "rework", decidedBy: "me" } as const])
      expect(await decideEscalation(ctx(), run, GATE, { ...other, round: 1 })).toMatchObject({ ok: false });
    // the rebuttal and the resubmit: each once, then the same call again
    expect(await rebut(ctx(), run, GATE, "the defect is not one", 1)).toEqual({ ok: true, round: 1 });
    expect(await rebut(ctx(), run, GATE, "the defect is not one", 1)).toEqual({ ok: true, round: 1, already: true });
    expect(await rebut(ctx(), run, GATE, "another argument", 1)).toMatchObject({ ok: false });
    const mcp = await inMemoryMcp(layout);
    try {
      const again = await mcp.call("decide", { run_id: run, gate: GATE, choice: "extend-cap", extend_by: 1, note: extend.note, round: 1 });
      expect(again.isError).toBeFalsy();
      expect(textOf(again)).toMatch(/round 1 \(already: it landed before; nothing written again\)/);
      const rebutAgain = await mcp.call("rebut", { run_id: run, gate: GATE, rebuttal: "the defect is not one", round: 1 });
      expect(textOf(rebutAgain)).toMatch(/already: it landed before/);
    } finally {
      await mcp.close();
    }
    expect(readFileSync(file("decision-1.json"), "utf8")).toBe(decision);
    expect(files()).toEqual([...before, "rebuttal-1.md"].sort());
  });

  it("a resubmit sent twice before the broker looked lands once and answers the second `already`", async () => {
    const run = "twice";
    const { layout, file, dropResult } = await gateWithPacket(run);
    const ctx = () => loadContext(layout);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx(), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx(), run, GATE);
    expect(await resubmit(ctx(), run, GATE)).toEqual({ ok: true, round: 1 });
    const first = readFileSync(file("resubmit-1.json"), "utf8");
    expect(await resubmit(ctx(), run, GATE)).toEqual({ ok: true, round: 1, already: true });
    expect(readFileSync(file("resubmit-1.json"), "utf8")).toBe(first);
  });
});

describe("a client retrying a person's decision", () => {
  it("is refused as the person's to make, not answered `already` as if the client had made it", async () => {
    const run = "personal";
    const { layout, file, dropResult } = await gateWithPacket(run, { cap: 1, difficulty: "hard" });
    const ctx = () => loadContext(layout);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx(), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx(), run, GATE); // round 1 ends at its cap: a decision
    expect(await decideEscalation(ctx(), run, GATE, { choice: "force-pass", decidedBy: "me", round: 1 })).toEqual({
      ok: true,
      round: 1,
      reason: "cap_hit",
    });
    const decision = readFileSync(file("decision-1.json"), "utf8");
    const mcp = await inMemoryMcp(layout);
    try {
      const again = await mcp.call("decide", { run_id: run, gate: GATE, choice: "force-pass", round: 1 });
      expect(again.isError).toBe(true);
      expect(textOf(again)).toMatch(/force-pass ends the gate without a passing review, so a person decides it/);
      expect(textOf(again)).not.toMatch(/already/);
    } finally {
      await mcp.close();
    }
    // the person's own retry is theirs: answered `already`
    expect(await decideEscalation(ctx(), run, GATE, { choice: "force-pass", decidedBy: "me", round: 1 })).toMatchObject({
      ok: true,
      already: true,
    });
    expect(readFileSync(file("decision-1.json"), "utf8")).toBe(decision);
  });
});

describe("a resubmit that landed, then the gate stopped for a person", () => {
  it("is refused with what the gate waits for, not answered `already` (the author's new revision waits on a decision)", async () => {
    const run = "stopped";
    const { layout, artifact, dropResult } = await gateWithPacket(run);
    const ctx = () => loadContext(layout);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx(), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx(), run, GATE); // the author's turn
    expect(await resubmit(ctx(), run, GATE)).toEqual({ ok: true, round: 1 });
    // the artifact is gone when the broker issues the next round: a person decides
    rmSync(artifact);
    goneAWhile(artifact);
    await stepGate(ctx(), run, GATE);
    expect(readdirSync(layout.gateDir(run, GATE))).toContain("escalation-1.json");
    const waits = expect.stringMatching(/not waiting for the author \(state: awaiting_decision/);
    expect(await resubmit(ctx(), run, GATE)).toEqual({ ok: false, error: waits });
    expect(await resubmit(ctx(), run, GATE, 1)).toEqual({ ok: false, error: waits });
  });
});

describe("resubmit while the artifact cannot be read", () => {
  it("is refused with the file and why, writing nothing (the round would escalate to a person); restored, it goes on", async () => {
    const run = "gone";
    const { layout, artifact, file, dropResult } = await gateWithPacket(run);
    const ctx = () => loadContext(layout);
    dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "a defect" }] });
    await verifyGate(ctx(), run, GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx(), run, GATE); // the author's turn
    const revised = "# Spec\n\nrevised\n";
    rmSync(artifact);
    goneAWhile(artifact);
    const refused = await resubmit(ctx(), run, GATE, 1);
    expect(refused).toEqual({
      ok: false,
      error: expect.stringMatching(/^docs\/spec\.md cannot be read \(.+\): restore or fix it, then resubmit; nothing was written$/),
    });
    expect(existsSync(file("resubmit-1.json"))).toBe(false);
    // status says the same before anyone tries
    expect(statusRow(ctx(), run, GATE).next.waiting_on).toMatch(/^the author: docs\/spec\.md cannot be read \(.+\); restore or fix it/);
    writeFileSync(artifact, revised);
    expect(await resubmit(ctx(), run, GATE, 1)).toEqual({ ok: true, round: 1 });
    await stepGate(ctx(), run, GATE);
    expect(existsSync(file("packet-2.md"))).toBe(true);
  });
});
