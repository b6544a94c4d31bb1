// A pass rests on the bytes it was judged on (SPEC §11, §15): the packet whose fields (stop, author family) the
// verdict was judged against, and the artifact's raw bytes the packet sent. An edit of either before the outcome
// ends no gate `satisfied`; one after it fails `check`.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { readGate, readGateToAct } from "../../src/bus/gate-reader.js";
import { checkGates } from "../../src/commands/check.js";
import { planStep } from "../../src/core/broker-plan.js";
import { sha256Hex } from "../../src/core/sha.js";
import { stepGate } from "../../src/workers/broker.js";
import { brokerInput } from "../../src/workers/gate-reads.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

/** A gate whose round-1 result is verified (past the foreign writers' grace). */
async function verified(run: string) {
  const g = await gateWithPacket(run);
  g.dropResult();
  await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
  const editPacket = () =>
    writeFileSync(
      g.file("packet-1.md"),
      readFileSync(g.file("packet-1.md"), "utf8").replace("author_family: anthropic", "author_family: openai"),
    );
  return { ...g, editPacket };
}

describe("a pass is bound to the packet it was judged against", () => {
  it("the verdict names the packet's bytes; a packet edited after it breaks the round: the broker escalates, not passes", async () => {
    const run = "packet-edit-before";
    const { layout, file, editPacket } = await verified(run);
    const verdict = JSON.parse(readFileSync(file("verdict-1.json"), "utf8"));
    expect(verdict.packet_sha256).toBe(sha256Hex(readFileSync(file("packet-1.md"))));
    editPacket();
    expect(readGate(layout, run, GATE).brokenSeals.get(1)).toMatch(/^packet-1\.md is not the bytes verdict-1\.json judged against/);
    await stepGate(loadContext(layout), run, GATE);
    expect(readGate(layout, run, GATE).outcome).toBeNull();
    const escalation = JSON.parse(readFileSync(file("escalation-1.json"), "utf8"));
    expect(escalation).toMatchObject({ reason: "no_verdict" });
    // the result is still there: the detail says what broke, not that the result is gone
    expect(escalation.detail).toMatch(/^round 1 can no longer pass: packet-1\.md is not the bytes/);
  });

  it("a packet edited after the outcome fails check", async () => {
    const run = "packet-edit-after";
    const { layout, editPacket } = await verified(run);
    await stepGate(loadContext(layout), run, GATE);
    expect(readGate(layout, run, GATE).outcome).toMatchObject({ status: "satisfied" });
    const check = () => checkGates(loadContext(layout), { require: [GATE] });
    expect(await check()).toMatchObject({ ok: true, passed: true });
    editPacket();
    const after = await check();
    expect(after).toMatchObject({ ok: true, passed: false });
    expect(after.ok && after.gates[0]!.reason).toMatch(/packet-1\.md is not the bytes verdict-1\.json judged against/);
  });

  it("an edit inside a redacted region between the decision and the outcome is read again, not passed", async () => {
    const run = "raw-race";
    const { layout } = await verified(run);
    const ctx = loadContext(layout);
    const s = readGateToAct(layout, run, GATE);
    const input = brokerInput(ctx, s, null);
    const decided = input.reads.artifact();
    // the scrubbed view is the same, the raw bytes are not: a secret edited inside a redacted region
    input.reads = { ...input.reads, artifactNow: () => (decided.ok ? { ...decided, rawSha: "f".repeat(64) } : decided) };
    expect(planStep(s, input)).toEqual({ type: "recheck" });
    expect(planStep(s, brokerInput(ctx, s, null))).toMatchObject({ type: "write", name: "outcome.json" });
  });
});

describe("a manual round's outcome", () => {
  it("says its reviewer's model is only as whoever answered declared it, whatever the answer claims", async () => {
    const g = await gateWithPacket("manual-identity");
    g.dropResult({ reviewer_model_source: "reported" });
    await verifyGate(loadContext(g.layout), "manual-identity", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(loadContext(g.layout), "manual-identity", GATE);
    const outcome = JSON.parse(readFileSync(g.file("outcome.json"), "utf8"));
    expect(outcome).toMatchObject({
      status: "satisfied",
      identity_assurance: "declared by whoever answered the manual round (unverified)",
    });
  });
});

describe("a pass over an artifact the scrubber redacted", () => {
  it("says so where a person reads it: the reviewer saw [REDACTED:…] in those spans", async () => {
    const g = await gateWithPacket("redacted", { text: '# Spec\n\ndeploy_token_note: "then run rm -rf /var/backups on every host"\n' });
    expect(readFileSync(g.file("packet-1.md"), "utf8")).toContain("[REDACTED:secret]");
    g.dropResult();
    const ctx = loadContext(g.layout);
    await verifyGate(ctx, "redacted", GATE, () => undefined, Date.now() + 60_000);
    await stepGate(ctx, "redacted", GATE);
    const note = "1 span of the artifact redacted before review: the reviewer saw [REDACTED:…] there";
    expect(viewGate(ctx, "redacted", GATE).next.notes).toContain(note);
    const checked = await checkGates(ctx, { require: [], allowForcePass: false, allowWeak: true });
    expect(checked.ok && checked.lines[0]).toMatch(
      new RegExp(`^PASS redacted ${GATE} docs/spec.md: satisfied .*; ${note.replace(/[[\]…]/g, ".")}$`),
    );
  });
});

describe("a pass judged against the author's family", () => {
  it("takes the family from request.json's author under today's settings: a packet's older claim makes no review strong", async () => {
    const run = "author-family-moved";
    const g = await gateWithPacket(run);
    expect(g.field("author_family")).toBe("anthropic");
    // the project now maps the author's host to the reviewer's family: the packet's anthropic no longer holds
    writeFileSync(g.layout.settings, JSON.stringify({ host_families: { claude: "openai" } }));
    g.dropResult();
    await verifyGate(loadContext(g.layout), run, GATE, () => undefined, Date.now() + 60_000);
    expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ independence_violation: true });
    await stepGate(loadContext(g.layout), run, GATE);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied", independence: "weak" });
  });
});
