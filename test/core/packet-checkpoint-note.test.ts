// A human's `continue --note` at a checkpoint is an instruction to the reviewer of the next round (SPEC §21.3). A round
// that re-runs that one before its reviewer answered (a retry, a restart on edited bytes, a re-selection) still carries
// it; a round after one that answered does not.
import { describe, expect, it } from "vitest";
import { type GateReads, packetText } from "../../src/core/broker-plan.js";
import type { PacketFrontMatter } from "../../src/spec/schemas.js";
import { artifactOnly, gate, packet } from "../helpers/snapshots.js";

const NOTE = "HUMAN NOTE: check the rollback path first";

const reads: GateReads = artifactOnly("# Spec\n");

/** Round 1 failed at a checkpoint, a person said continue with a note, the author resubmitted: round 2 carries it. */
function afterCheckpoint() {
  return gate()
    .packet(1)
    .verdict(1, "blockers")
    .escalation(1, "human_checkpoint", ["continue", "stop", "rework"])
    .decision(1, "continue", undefined, NOTE)
    .resubmit(1)
    .packet(2, { counted_round: 2 });
}

const text = (g: ReturnType<typeof gate>, front: PacketFrontMatter) => packetText(g.s, front, "# Spec\n", { settings: {}, reads });

describe("the checkpoint note", () => {
  it("reaches the round after the checkpoint", () => {
    expect(text(afterCheckpoint(), packet(2, { counted_round: 2 }))).toContain(NOTE);
  });

  it("stays with a round re-run before its reviewer answered: a retry after no_verdict, a restart, a re-selection", () => {
    const retried = afterCheckpoint()
      .failure(2, "no_verdict")
      .escalation(2, "no_verdict", ["retry", "force-pass", "rework"])
      .decision(2, "retry");
    const retry = text(retried, packet(3, { counted_round: 2, restart_of: 2, restart_reason: "retry" }));
    expect(retry).toContain(NOTE);
    expect(retry).toContain("given at the checkpoint after round 1");
    const restarted = afterCheckpoint().verdict(2, "sha");
    expect(text(restarted, packet(3, { counted_round: 2, restart_of: 2, restart_reason: "artifact_changed" }))).toContain(NOTE);
    const degraded = afterCheckpoint().failure(2, "unavailable");
    const other = {
      reviewer_provider: "gem",
      reviewer_adapter: "command",
      reviewer_model: "gemini-2.5-pro",
      reviewer_family: "google",
    } as const;
    expect(text(degraded, packet(3, { ...other, counted_round: 2, restart_of: 2, restart_reason: "degraded" }))).toContain(NOTE);
  });

  it("stays with a retried ruling", () => {
    const g = gate()
      .packet(1, { difficulty: "hard" })
      .verdict(1, "blockers")
      .escalation(1, "human_checkpoint", ["continue", "stop", "rework"])
      .decision(1, "continue", undefined, NOTE)
      .rebuttal(1)
      .packet(2, { difficulty: "hard", counted_round: 1, restart_of: 1, restart_reason: "ruling" })
      .failure(2, "no_verdict")
      .escalation(2, "no_verdict", ["retry", "force-pass", "rework"])
      .decision(2, "retry");
    expect(text(g, packet(2, { difficulty: "hard", counted_round: 1, restart_of: 1, restart_reason: "ruling" }))).toContain(NOTE);
    expect(text(g, packet(3, { difficulty: "hard", counted_round: 1, restart_of: 1, restart_reason: "ruling" }))).toContain(NOTE);
  });

  it("is not repeated once a reviewer answered it: the next counted round, or a ruling on that round", () => {
    const answered = afterCheckpoint().verdict(2, "blockers").resubmit(2);
    expect(text(answered, packet(3, { counted_round: 3 }))).not.toContain(NOTE);
    const contested = afterCheckpoint().verdict(2, "blockers").rebuttal(2);
    expect(text(contested, packet(3, { counted_round: 2, restart_of: 2, restart_reason: "ruling", difficulty: "hard" }))).not.toContain(
      NOTE,
    );
  });
});
