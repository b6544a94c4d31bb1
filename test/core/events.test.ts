// events.jsonl records a person's override as Guild's telemetry does (its escalation event's options_offered and
// user_choice): the options an escalation offered, and the choice the broker then acted on (SPEC §16).
import { describe, expect, it } from "vitest";
import { type BrokerInput, planStep } from "../../src/core/broker-plan.js";
import { artifactOnly, AT, context, gate } from "../helpers/snapshots.js";

const input: BrokerInput = {
  settings: {},
  policy: context().policy,
  codexSkip: { blocked: false, enforcement: "warn" },
  reads: artifactOnly("# Spec\n"),
  providers: null,
  now: AT,
  trailPath: "trail.md",
};

const events = (step: ReturnType<typeof planStep>) => (step.type === "write" ? step.events : []);

describe("events.jsonl: a human override", () => {
  it("an escalation names the options it offers", () => {
    const g = gate().packet(1, { cap: 1, counted_round: 1 }).verdict(1, "blockers");
    expect(events(planStep(g.s, { ...input, policy: context({ policy: { cap: 1 } }).policy }))).toContainEqual(
      expect.objectContaining({ event: "review_escalation", reason: "cap_hit", options: ["force-pass", "extend-cap", "rework"] }),
    );
  });

  it("the choice a person made is recorded when the broker acts on it", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "blockers")
      .escalation(1, "cap_hit", ["force-pass", "extend-cap", "rework"])
      .decision(1, "force-pass");
    expect(events(planStep(g.s, input))).toEqual([
      expect.objectContaining({ event: "review_decision", round_number: 1, reason: "cap_hit", choice: "force-pass" }),
      expect.objectContaining({ event: "review_outcome", round_number: 1, status: "force_passed" }),
    ]);
    const retried = gate()
      .packet(1)
      .failure(1, "no_verdict")
      .escalation(1, "no_verdict", ["retry", "force-pass", "rework"])
      .decision(1, "retry");
    expect(events(planStep(retried.s, input))).toEqual([
      expect.objectContaining({ event: "review_decision", round_number: 1, reason: "no_verdict", choice: "retry" }),
    ]);
  });
});
