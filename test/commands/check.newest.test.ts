// `check` without --run judges the newest run of each gate and artifact (SPEC §17): newest in time, whatever offset a
// request's timestamp was written with, so a newer run that has not passed cannot hide behind an older pass.
import { readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { rebut } from "../../src/commands/author.js";
import { checkGates, checkJson } from "../../src/commands/check.js";
import { requestReview } from "../../src/commands/review.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

/** A run that passed the gate, and a second run of the same artifact requested after it (manual reviewer). */
async function passedThenRequested(passed: string, next: string) {
  const { layout, dropResult } = await gateWithPacket(passed);
  dropResult();
  await verifyGate(loadContext(layout), passed, GATE, () => undefined, Date.now() + 60_000);
  await stepGate(loadContext(layout), passed, GATE);
  const before = await checkGates(loadContext(layout), { require: [GATE] });
  expect(
    await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: next }),
  ).toMatchObject({ ok: true });
  return { layout, before };
}

describe("check: the newest run of an artifact", () => {
  it("is the latest in time, not in spelling: a newer run written with an offset is the one checked", async () => {
    const { layout, before } = await passedThenRequested("older", "newer");
    const check = () => checkGates(loadContext(layout), { require: [GATE] });
    expect(before).toMatchObject({ ok: true, passed: true });
    // an hour after the older run, written at UTC-05:00: as text it sorts before the older run's UTC time
    const file = layout.gateFile("newer", GATE, "request.json");
    const request = JSON.parse(readFileSync(file, "utf8"));
    const hourLater = new Date(Date.parse(request.requested_at) + 3_600_000 - 5 * 3_600_000).toISOString().replace("Z", "-05:00");
    writeFileSync(file, JSON.stringify({ ...request, requested_at: hourLater }));
    const after = await check();
    expect(after).toMatchObject({ ok: true, passed: false });
    expect(after.ok && after.gates.find((g) => !g.passed)?.run_id).toBe("newer");
  });

  it("a time written with a decimal comma (SPEC §0) is read as one: an older pass so dated does not hide a newer run", async () => {
    const { layout, before } = await passedThenRequested("older", "newer");
    expect(before).toMatchObject({ ok: true, passed: true });
    const file = layout.gateFile("older", GATE, "request.json");
    const request = JSON.parse(readFileSync(file, "utf8"));
    const dayEarlier = new Date(Date.parse(request.requested_at) - 86_400_000).toISOString().replace(/\.(\d+)Z$/, ",$1Z");
    writeFileSync(file, JSON.stringify({ ...request, requested_at: dayEarlier }));
    const after = await checkGates(loadContext(layout), { require: [GATE] });
    expect(after).toMatchObject({ ok: true, passed: false });
    expect(after.ok && after.gates.map((g) => g.run_id)).toEqual(["newer"]);
  });

  it("a pass whose requested_at names no time (no zone) is checked, but hides no newer run of the artifact", async () => {
    const { layout } = await passedThenRequested("zoneless", "newer");
    const file = layout.gateFile("zoneless", GATE, "request.json");
    const request = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...request, requested_at: request.requested_at.replace(/Z$/, "") }));
    const after = await checkGates(loadContext(layout), { require: [GATE] });
    expect(after).toMatchObject({ ok: true, passed: false });
    expect(after.ok && after.gates.map((g) => g.run_id).sort()).toEqual(["newer", "zoneless"]);
  });

  it("a run that found a blocker in the bytes now in the tree is judged whatever its requested_at says (a clock behind)", async () => {
    const { layout } = await passedThenRequested("passed", "later");
    await stepGate(loadContext(layout), "later", GATE); // its packet-1: the same bytes
    const packet = readFileSync(layout.gateFile("later", GATE, "packet-1.md"), "utf8");
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!;
    const file = layout.gateFile("later", GATE, "request.json");
    const request = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...request, requested_at: new Date(Date.parse(request.requested_at) - 7_200_000).toISOString() }));
    const judged = () => checkGates(loadContext(layout), { require: [GATE] });
    // unanswered, it is history: the newest pass stands
    expect(await judged()).toMatchObject({ ok: true, passed: true });
    const blocking = { packet_id: field("packet_id"), artifact_sha256_reviewed: field("artifact_sha256"), reviewer_model: "gpt-5" };
    const result = { schema_version: "review_result.v1", verdict: "issues", blocking_findings: [{ title: "unbounded" }], ...blocking };
    writeFileSync(path.join(layout.root, "r.tmp"), JSON.stringify(result));
    renameSync(path.join(layout.root, "r.tmp"), layout.gateFile("later", GATE, "result-1.json"));
    await verifyGate(loadContext(layout), "later", GATE, () => undefined, Date.now() + 60_000);
    expect(await judged()).toMatchObject({ ok: true, passed: false });
    const after = await judged();
    expect(after.ok && after.gates.map((g) => g.run_id).sort()).toEqual(["later", "passed"]);
  });

  it("a blocker in the bytes now in the tree counts though the verifier read them edited (the author reverted since)", async () => {
    const { layout } = await passedThenRequested("passed", "earlier");
    const file = layout.gateFile("earlier", GATE, "request.json");
    const request = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...request, requested_at: new Date(Date.parse(request.requested_at) - 7_200_000).toISOString() }));
    await stepGate(loadContext(layout), "earlier", GATE); // its packet-1: the bytes the newer run passed
    const packet = readFileSync(layout.gateFile("earlier", GATE, "packet-1.md"), "utf8");
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!;
    const blocking = { packet_id: field("packet_id"), artifact_sha256_reviewed: field("artifact_sha256"), reviewer_model: "gpt-5" };
    const result = { schema_version: "review_result.v1", verdict: "issues", blocking_findings: [{ title: "unbounded" }], ...blocking };
    writeFileSync(path.join(layout.root, "r.tmp"), JSON.stringify(result));
    renameSync(path.join(layout.root, "r.tmp"), layout.gateFile("earlier", GATE, "result-1.json"));
    // the author edits while the verifier reads, then reverts: the verdict's recomputed sha is the edit's
    const artifact = path.join(layout.root, "docs/spec.md");
    const reviewed = readFileSync(artifact);
    writeFileSync(artifact, "# Spec\n\nedited mid-review\n");
    await verifyGate(loadContext(layout), "earlier", GATE, () => undefined, Date.now() + 60_000);
    writeFileSync(artifact, reviewed);
    const verdict = JSON.parse(readFileSync(layout.gateFile("earlier", GATE, "verdict-1.json"), "utf8"));
    expect(verdict.gate_pass.recomputed_sha256).not.toBe(field("artifact_sha256"));
    const judged = await checkGates(loadContext(layout), { require: [GATE] });
    expect(judged).toMatchObject({ ok: true, passed: false });
    expect(judged.ok && judged.gates.map((g) => g.run_id).sort()).toEqual(["earlier", "passed"]);
  });

  it("a run whose reviewer upheld a contested finding in the bytes now in the tree is judged, as the broker blocks on it", async () => {
    const g = await gateWithPacket("contested", { difficulty: "hard" });
    const ctx = loadContext(g.layout);
    const verify = (run: string) => verifyGate(ctx, run, GATE, () => undefined, Date.now() + 60_000);
    g.dropResult({ verdict: "issues", blocking_findings: [{ severity: "blocking", title: "Auth bypass" }] });
    await verify("contested");
    await stepGate(ctx, "contested", GATE);
    expect(await rebut(ctx, "contested", GATE, "Not a defect.")).toMatchObject({ ok: true });
    await stepGate(ctx, "contested", GATE); // the ruling round 2, on the same bytes
    g.dropResult({ rulings: [{ finding: "Auth bypass", ruling: "upheld" }] }, 2);
    await verify("contested");
    const ruled = JSON.parse(readFileSync(g.file("verdict-2.json"), "utf8"));
    expect(ruled).toMatchObject({ rulings: { upheld: 1 }, gate_pass: { conditions: { no_blockers: true } } });
    rmSync(g.file("verdict-1.json")); // the blocking verdict before it gone: only the upheld ruling blocks these bytes
    // a later run of the same artifact passes the same bytes: the newest run
    expect(
      await requestReview(g.layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: "passed" }),
    ).toMatchObject({ ok: true });
    await stepGate(ctx, "passed", GATE);
    const packet = readFileSync(g.layout.gateFile("passed", GATE, "packet-1.md"), "utf8");
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!;
    const answer = { packet_id: field("packet_id"), artifact_sha256_reviewed: field("artifact_sha256"), reviewer_model: "gpt-5" };
    writeFileSync(
      path.join(g.root, "r.tmp"),
      JSON.stringify({ schema_version: "review_result.v1", verdict: "satisfied", blocking_findings: [], ...answer }),
    );
    renameSync(path.join(g.root, "r.tmp"), g.layout.gateFile("passed", GATE, "result-1.json"));
    await verify("passed");
    await stepGate(ctx, "passed", GATE);
    const judged = await checkGates(loadContext(g.layout), { require: [GATE] });
    expect(judged).toMatchObject({ ok: true, passed: false });
    expect(judged.ok && judged.gates.map((c) => [c.run_id, c.passed])).toEqual(
      expect.arrayContaining([
        ["contested", false],
        ["passed", true],
      ]),
    );
  });

  it("a run behind a link cannot be judged: check fails, naming it, rather than pass the runs it can read", async () => {
    const { layout } = await passedThenRequested("seen", "hidden");
    renameSync(layout.runDir("hidden"), path.join(layout.root, "elsewhere"));
    symlinkSync(path.join(layout.root, "elsewhere"), layout.runDir("hidden"));
    const judged = await checkGates(loadContext(layout), { require: [GATE] });
    expect(judged).toMatchObject({ ok: true, passed: false });
    expect(judged.ok && judged.lines).toContainEqual(expect.stringMatching(/^FAIL \.guild\/runs\/hidden: cannot be judged/));
    // `check --json` says why too: every gate it read passed and none is missing, so without this it failed for no reason
    const json = judged.ok ? checkJson(judged) : null;
    expect(json).toMatchObject({ passed: false, missing: [], unjudged: [{ path: ".guild/runs/hidden", reason: expect.any(String) }] });
    expect(json?.gates.every((g) => g.passed)).toBe(true);
  });

  it('a gate whose outcome.json the bus cannot read fails naming that file, not as a pass on its way ("broker — pass")', async () => {
    const { layout } = await passedThenRequested("unreadable", "unused");
    writeFileSync(layout.gateFile("unreadable", GATE, "outcome.json"), "null\n");
    const judged = await checkGates(loadContext(layout), { runId: "unreadable", require: [GATE] });
    expect(judged).toMatchObject({ ok: true, passed: false });
    expect(judged.ok && judged.gates[0]!.reason).toMatch(/^not ended: broker — pass; invalid: outcome\.json: \(root\): Invalid input/);
  });

  it("runs equally new (the same instant, or both timestamps unreadable) are all checked: a pass cannot hide a tie", async () => {
    const { layout, dropResult } = await gateWithPacket("a-passed");
    dropResult();
    await verifyGate(loadContext(layout), "a-passed", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(layout), "a-passed", GATE);
    expect(
      await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", reviewer: "manual", runId: "b-open" }),
    ).toMatchObject({ ok: true });
    const passed = JSON.parse(readFileSync(layout.gateFile("a-passed", GATE, "request.json"), "utf8"));
    for (const at of [passed.requested_at, "not a time"]) {
      for (const run of ["a-passed", "b-open"]) {
        const file = layout.gateFile(run, GATE, "request.json");
        writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), requested_at: at }));
      }
      const tie = await checkGates(loadContext(layout), { require: [GATE] });
      expect(tie, at).toMatchObject({ ok: true, passed: false });
      expect(tie.ok && tie.gates.map((g) => g.run_id).sort(), at).toEqual(["a-passed", "b-open"]);
    }
  });
});
