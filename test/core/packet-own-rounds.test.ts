// What a packet gives back as the reviewer's own (SPEC §7, §21.2): its earlier findings and, at hard, its memory. A
// reviewer selected afresh — a degraded re-selection after round n's reviewer proved unavailable, a copilot pass's
// finalizer — reviews without another reviewer's critique or private notes: they would anchor it, and the packet would
// call them its own.
import { describe, expect, it } from "vitest";
import { type GateReads, packetText } from "../../src/core/broker-plan.js";
import { AT, gate, packet, RAW_SHA, SHA_A } from "../helpers/snapshots.js";

const gpt = { reviewer_provider: "gpt", reviewer_adapter: "command", reviewer_model: "gpt-5", reviewer_family: "openai" } as const;
const gem = { reviewer_provider: "gem", reviewer_adapter: "command", reviewer_model: "gemini-2.5-pro", reviewer_family: "google" } as const;

const result = {
  packet_id: "p",
  artifact_sha256_reviewed: SHA_A,
  verdict: "issues",
  findings: [{ severity: "blocking", title: "GPT FINDING: rollback missing" }],
  blocking_findings: [{ severity: "blocking", title: "GPT FINDING: rollback missing" }],
  memory_update: "GPT NOTE: suspect the lane ordering",
};

const reads: GateReads = {
  artifact: () => ({ ok: true, text: "# Spec\n", sha: SHA_A, rawSha: RAW_SHA }),
  artifactNow: () => ({ ok: true, text: "# Spec\n", sha: SHA_A, rawSha: RAW_SHA }),
  result: (n) => (n === 1 ? result : null),
  resultBytes: () => ({ ok: false, reason: "none" }),
  text: (name) => (name === "memory-1.md" ? "GPT NOTE: suspect the lane ordering\n" : ""),
  decisions: () => new Map(),
  rejected: () => [],
};

/** Round 1 reviewed by gpt (issues, a memory note), round 2 sent to gpt, which proved unavailable. */
function history() {
  return gate()
    .packet(1, { ...gpt, difficulty: "hard" })
    .verdict(1, "blockers")
    .memory(1)
    .resubmit(1)
    .packet(2, { ...gpt, difficulty: "hard", counted_round: 2 })
    .failure(2, "unavailable");
}

const text = (front: ReturnType<typeof packet>) => packetText(history().s, front, "# Spec\n", { settings: {}, reads });

describe("a packet gives back only its own reviewer's rounds", () => {
  it("the reviewer that keeps the gate sees its earlier findings and its memory", () => {
    const t = text(packet(3, { ...gpt, difficulty: "hard", counted_round: 2, restart_of: 2, restart_reason: "retry", issued_at: AT }));
    expect(t).toContain("GPT FINDING: rollback missing");
    expect(t).toContain("GPT NOTE: suspect the lane ordering");
  });

  for (const reason of ["degraded", "finalizer"] as const) {
    it(`a reviewer selected afresh (${reason}) is handed neither the other reviewer's findings nor its memory`, () => {
      const t = text(packet(3, { ...gem, difficulty: "hard", counted_round: 2, restart_of: 2, restart_reason: reason, issued_at: AT }));
      expect(t).not.toContain("GPT FINDING");
      expect(t).not.toContain("GPT NOTE");
      expect(t).not.toContain("## Prior rounds");
      expect(t).not.toContain("## Your memory");
    });
  }

  it("…and once it has reviewed, later packets give back its own rounds, not the earlier reviewer's", () => {
    const g = history().packet(3, { ...gem, difficulty: "hard", counted_round: 2, restart_of: 2, restart_reason: "degraded" });
    g.verdict(3, "blockers").resubmit(3);
    const own = { ...result, findings: [], blocking_findings: [{ severity: "blocking", title: "GEM FINDING: no receipt" }] };
    const t = packetText(g.s, packet(4, { ...gem, difficulty: "hard", counted_round: 3 }), "# Spec\n", {
      settings: {},
      reads: { ...reads, result: (n) => (n === 1 ? result : n === 3 ? own : null) },
    });
    expect(t).toContain("GEM FINDING: no receipt");
    expect(t).toContain("## Prior rounds (your own earlier findings");
    expect(t).not.toContain("GPT FINDING");
    expect(t).not.toContain("GPT NOTE");
  });
});
