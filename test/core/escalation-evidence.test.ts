// Each escalation reason is the broker's only where decide() reaches it (SPEC §6, escalation-<n>.json): a failed round
// the human checkpoint stops at offers continue, stop or rework, never a retry that re-rolls its findings, so a stray
// artifact problem or score_unavailable there (both offering retry) is not the broker's, nor a no_verdict on a quorum
// round a member blocked, nor one offering a force-pass the broker does not offer, nor a reason decide() raises only
// from another end (cap_hit from a no_verdict, a checkpoint at the cap, identity_unverified on a copilot pass). The
// broker's own stays so.
import { describe, expect, it } from "vitest";
import { escalationRecord } from "../../src/core/broker-plan.js";
import { decide, type EscalationAction, foreignEscalationProblem } from "../../src/core/decide.js";
import { AT, context, gate, scoreGate } from "../helpers/snapshots.js";

const RETRY = ["retry", "force-pass", "rework"] as const;

describe("an escalation dropped on a round the human checkpoint stops at", () => {
  it.each([
    ["artifact_missing", ["retry", "rework"], "verdict"],
    ["score_unavailable", [...RETRY], "score"],
  ] as const)("is not the broker's (%s): its reviewer's blockers stand", (reason, options, stop) => {
    const ctx = context({ policy: { humanCheckpoint: true, stop } });
    const g = gate()
      .packet(1, { stop })
      .verdict(1, "blockers", stop === "score" ? { score_gate: scoreGate("unavailable") } : {});
    expect(decide(g.s, ctx).action).toMatchObject({ type: "escalation", reason: "human_checkpoint" });
    g.escalation(1, reason, [...options]);
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toMatch(new RegExp(`^not the broker's: ${reason} at round 1 needs`));
  });
});

describe("the broker's own", () => {
  it("artifact problem at a resubmit stays its own once the artifact is back", () => {
    const g = gate().packet(1).verdict(1, "blockers").resubmit(1);
    const gone = context({ artifact: { ok: false, problem: "artifact_missing", detail: "gone" } });
    const d = decide(g.s, gone);
    expect(d.action).toMatchObject({ type: "escalation", reason: "artifact_missing" });
    g.s.escalations.set(1, escalationRecord(g.s, d.action as EscalationAction, AT));
    expect(foreignEscalationProblem(g.s, gone, () => true)).toBeNull();
    expect(foreignEscalationProblem(g.s, context(), () => true)).toBeNull();
  });

  it("score_unavailable on a round without blockers stays its own", () => {
    const ctx = context({ policy: { stop: "score" } });
    const g = gate()
      .packet(1, { stop: "score" })
      .verdict(1, "pass", { score_gate: scoreGate("unavailable") });
    const d = decide(g.s, ctx);
    expect(d.action).toMatchObject({ type: "escalation", reason: "score_unavailable" });
    g.s.escalations.set(1, escalationRecord(g.s, d.action as EscalationAction, AT));
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toBeNull();
  });
});

describe("a no_verdict escalation", () => {
  it("offering force-pass is not the broker's on a failure that does not prove a review ran (no end key)", () => {
    const g = gate().packet(1).failure(1, "no_verdict");
    const d = decide(g.s, context());
    expect(d.action).toMatchObject({ type: "escalation", reason: "no_verdict", options: ["retry", "rework"] });
    g.escalation(1, "no_verdict", [...RETRY]);
    expect(foreignEscalationProblem(g.s, context(), () => true)).toMatch(/^not the broker's: the broker offers only retry, rework/);
    g.s.escalations.set(1, escalationRecord(g.s, d.action as EscalationAction, AT));
    expect(foreignEscalationProblem(g.s, context(), () => true)).toBeNull();
  });

  it("is not the broker's on a quorum round a member blocked, whatever another member's no_verdict", () => {
    const rule = { need: 2, of: 2 };
    const ctx = context({ policy: { humanCheckpoint: true, quorum: rule } });
    const g = gate()
      .memberPacket(1, "codex", "openai", rule)
      .memberPacket(1, "gem", "google", rule)
      .memberVerdict(1, "codex", "blockers")
      .memberFailure(1, "gem", "no_verdict");
    expect(decide(g.s, ctx).action).toMatchObject({ type: "escalation", reason: "human_checkpoint" });
    g.escalation(1, "no_verdict", ["retry", "rework"]);
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toMatch(/^not the broker's: no_verdict at round 1 needs/);
  });
});

describe("an escalation of a reason decide() reaches only from another end", () => {
  it("cap_hit is not the broker's on a no_verdict failure at the cap (its no_verdict offers no force-pass there)", () => {
    const ctx = context({ policy: { cap: 1 } });
    const g = gate().packet(1).failure(1, "no_verdict");
    expect(decide(g.s, ctx).action).toMatchObject({ type: "escalation", reason: "no_verdict", options: ["retry", "rework"] });
    g.escalation(1, "cap_hit", ["force-pass", "extend-cap", "rework"]);
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toMatch(/^not the broker's: cap_hit at round 1 needs/);
  });

  it("human_checkpoint is not the broker's at the cap, where it raises cap_hit", () => {
    const ctx = context({ policy: { cap: 1, humanCheckpoint: true } });
    const g = gate().packet(1, { cap: 1 }).verdict(1, "blockers"); // issued at the cap: a request of no recorded cap is judged by it
    expect(decide(g.s, ctx).action).toMatchObject({ type: "escalation", reason: "cap_hit" });
    g.escalation(1, "human_checkpoint", ["continue", "stop", "rework"]);
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toMatch(/^not the broker's: human_checkpoint at round 1 needs/);
  });

  it("identity_unverified is not the broker's on a copilot pass, which a finalizer confirms", () => {
    const g = gate()
      .packet(1, { reviewer_adapter: "copilot", reviewer_provider: "copilot" })
      .verdict(1, "pass", { reviewer_family: "unknown", independence_violation: true });
    expect(decide(g.s, context()).action).toMatchObject({ type: "packet", restart_reason: "finalizer" });
    g.escalation(1, "identity_unverified", [...RETRY]);
    expect(foreignEscalationProblem(g.s, context(), () => true)).toMatch(/^not the broker's: identity_unverified at round 1 needs/);
  });
});
