// Stall detection (SPEC §14.1) on hand-built snapshots: each pattern, the look-alikes that are not stalls, and a
// property that drives decide() through random linear histories against an independent model of the four patterns.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, type DecideContext } from "../../src/core/decide.js";
import { blockingKeys, findingKey } from "../../src/core/findings.js";
import { planStep } from "../../src/core/broker-plan.js";
import type { ScoreGate, StopPolicy } from "../../src/spec/schemas.js";
import { Escalation } from "../../src/spec/schemas.js";
import { AT, context, gate, type Gate, policy, RAW_SHA, SHA_A, SHA_B } from "../helpers/snapshots.js";

const SHA_C = "e".repeat(64);
const K1 = "0000000000000001";
const K2 = "0000000000000002";
const on = (over: { stop?: StopPolicy; artifact?: string; raw?: string } = {}): DecideContext =>
  context({
    policy: { stallDetection: true, stop: over.stop ?? "verdict", cap: 10 },
    artifact: { ok: true, sha: over.artifact ?? SHA_A, rawSha: over.raw ?? RAW_SHA },
  });
const scored = (score: number): ScoreGate => ({ score, readiness: "not ready", available: true, positive: false, reasons: ["low"] });

/** Round r: a packet on `sha` after a resubmit, and a verdict that did not pass with these finding keys. */
function round(g: Gate, r: number, keys: string[], sha = SHA_A, score?: number): Gate {
  g.packet(r, { artifact_sha256: sha, artifact_raw_sha256: RAW_SHA, stop: score === undefined ? "verdict" : "score" });
  g.verdict(r, "issues", { blocking_keys: keys, ...(score === undefined ? {} : { score_gate: scored(score) }) });
  if (r > 1) g.resubmit(r - 1);
  return g;
}

describe("finding keys", () => {
  it("case, spacing and punctuation do not make a finding new; other words or other evidence do", () => {
    const k = findingKey({ title: "Lane B ordering unproven.", evidence: "plan.md: step 3" });
    expect(findingKey({ title: "  lane b   ORDERING unproven", evidence: "plan.md  step 3!" })).toBe(k);
    expect(findingKey({ title: "Lane B ordering proven", evidence: "plan.md: step 3" })).not.toBe(k);
    expect(findingKey({ title: "Lane B ordering unproven.", evidence: "plan.md: step 4" })).not.toBe(k);
    expect(k).toMatch(/^[0-9a-f]{16}$/);
  });

  it("a result's blocking findings give distinct sorted keys, whatever shape each finding has", () => {
    const keys = blockingKeys([{ title: "B" }, "B", { finding: "A", evidence: "x" }, 7]);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toHaveLength(3); // {title: B} and "B" are one finding
    expect(blockingKeys("not a list")).toEqual([]);
  });
});

describe("stall: repeated blocking findings", () => {
  it("the same findings in two consecutive rounds after a resubmit → stalled, since the first of them", () => {
    const g = round(round(gate(), 1, [K1, K2]), 2, [K1, K2], SHA_B);
    const d = decide(g.s, on({ artifact: SHA_B }));
    expect(d.action).toMatchObject({
      type: "escalation",
      round: 2,
      reason: "stalled",
      options: ["force-pass", "extend-cap", "rework"],
      stall: { pattern: "repeated_findings", since_round: 1, rounds: [1, 2] },
    });
    expect(d.detail).toMatch(/same blocking findings were raised in rounds 1, 2 \(since round 1\)/);
  });

  it("not a stall: other findings, fewer findings, a new finding, no keys recorded, or detection off", () => {
    for (const keys of [[K2], [K1], [K1, K2, "0000000000000003"], []]) {
      const g = round(round(gate(), 1, [K1, K2]), 2, keys, SHA_B);
      expect(decide(g.s, on({ artifact: SHA_B })).state, JSON.stringify(keys)).toBe("awaiting_author");
    }
    const old = round(gate(), 1, [K1]);
    old.packet(2, { artifact_sha256: SHA_B, artifact_raw_sha256: RAW_SHA }).verdict(2, "issues").resubmit(1);
    expect(decide(old.s, on({ artifact: SHA_B })).state).toBe("awaiting_author");
    const off = round(round(gate(), 1, [K1]), 2, [K1], SHA_B);
    expect(decide(off.s, { ...on({ artifact: SHA_B }), policy: policy({ stallDetection: false, cap: 10 }) }).state).toBe("awaiting_author");
  });

  it("not a stall: a restart on changed bytes is the same counted round, not a round after a resubmit", () => {
    const g = round(gate(), 1, [K1]);
    g.packet(2, { counted_round: 1, restart_of: 1, restart_reason: "retry", artifact_raw_sha256: RAW_SHA });
    g.verdict(2, "issues", { blocking_keys: [K1] });
    expect(decide(g.s, on()).state).toBe("awaiting_author");
  });

  it("the cap comes first: a stall in the last counted round is the cap's escalation", () => {
    const g = round(round(gate(), 1, [K1]), 2, [K1], SHA_B);
    const ctx = on({ artifact: SHA_B });
    expect(decide(g.s, { ...ctx, policy: { ...ctx.policy, cap: 2 } }).action).toMatchObject({ reason: "cap_hit" });
  });

  it("the human checkpoint comes first: a human who checks every round sees the repeat there", () => {
    const g = round(round(gate(), 1, [K1]), 2, [K1], SHA_B);
    const ctx = on({ artifact: SHA_B });
    expect(decide(g.s, { ...ctx, policy: { ...ctx.policy, humanCheckpoint: true } }).action).toMatchObject({ reason: "human_checkpoint" });
  });

  it("once a human answered a stall, detection starts afresh after it: extend-cap goes on, and a later repeat escalates again", () => {
    const g = round(round(gate(), 1, [K1]), 2, [K1], SHA_B);
    g.escalation(2, "stalled", ["force-pass", "extend-cap", "rework"]).decision(2, "extend-cap", 1);
    expect(decide(g.s, on({ artifact: SHA_B })).state).toBe("awaiting_author");
    round(g, 3, [K1], SHA_C);
    expect(decide(g.s, on({ artifact: SHA_C })).state).toBe("awaiting_author"); // round 2 is before the answer
    round(g, 4, [K1], SHA_A);
    expect(decide(g.s, on()).action).toMatchObject({ reason: "stalled", stall: { since_round: 3, rounds: [3, 4] } });
  });

  it("force-pass and rework answer a stall as they answer the cap", () => {
    for (const [choice, status, reason] of [
      ["force-pass", "force_passed", "human force-pass after stalled"],
      ["rework", "rework", "human chose rework after stalled"],
    ] as const) {
      const g = round(round(gate(), 1, [K1]), 2, [K1], SHA_B);
      g.escalation(2, "stalled", ["force-pass", "extend-cap", "rework"]).decision(2, choice);
      expect(decide(g.s, on({ artifact: SHA_B })).action).toMatchObject({ type: "outcome", status, reason });
    }
  });

  it("the broker's escalation names the repeated findings from the round's result, scrubbed and cut", () => {
    const g = round(round(gate(), 1, [K1]), 2, [K1], SHA_B);
    const result = {
      packet_id: "p",
      artifact_sha256_reviewed: SHA_B,
      verdict: "issues",
      blocking_findings: [{ title: "Lane B ordering unproven", evidence: "x".repeat(400) }],
    };
    const step = planStep(g.s, {
      settings: {},
      policy: on().policy,
      codexSkip: { blocked: false, enforcement: "warn" },
      reads: {
        artifact: () => ({ ok: true, text: "", sha: SHA_B, rawSha: RAW_SHA }),
        artifactNow: () => ({ ok: true, text: "", sha: SHA_B, rawSha: RAW_SHA }),
        result: (n) => (n === 2 ? result : null),
        resultBytes: () => ({ ok: false, reason: "none" }),
        text: () => "",
        decisions: () => new Map(),
        rejected: () => [],
      },
      providers: null,
      now: AT,
      trailPath: "trail.md",
    });
    expect(step.type).toBe("write");
    if (step.type !== "write") return;
    expect(step.name).toBe("escalation-2.json");
    const esc = Escalation.parse(JSON.parse(step.text));
    expect(esc.stall).toMatchObject({ pattern: "repeated_findings", findings: [{ title: "Lane B ordering unproven" }] });
    expect(esc.stall!.findings![0]!.evidence).toHaveLength(300);
  });
});

describe("stall: resubmits", () => {
  it("a resubmit whose bytes did not change → stalled before a packet is spent", () => {
    const g = round(gate(), 1, [K1]).resubmit(1);
    const d = decide(g.s, on());
    expect(d.action).toMatchObject({
      type: "escalation",
      round: 1,
      reason: "stalled",
      stall: { pattern: "unchanged_resubmit", since_round: 1, rounds: [1], artifact_sha256: [SHA_A, SHA_A] },
    });
  });

  it("not a stall: changed bytes, or raw bytes changed inside what the scrubber redacts", () => {
    const g = round(gate(), 1, [K1]).resubmit(1);
    expect(decide(g.s, on({ artifact: SHA_B })).action).toMatchObject({ type: "packet", round: 2, counted_round: 2 });
    expect(decide(g.s, on({ raw: SHA_C })).action).toMatchObject({ type: "packet", round: 2 });
  });

  it("a resubmit that brings back the bytes of the round before → stalled (alternating versions); a third version is not", () => {
    const g = round(round(gate(), 1, [K1], SHA_A), 2, [K2], SHA_B).resubmit(2);
    expect(decide(g.s, on({ artifact: SHA_A })).action).toMatchObject({
      reason: "stalled",
      stall: { pattern: "alternating_versions", since_round: 1, rounds: [1, 2], artifact_sha256: [SHA_A, SHA_B, SHA_A] },
    });
    expect(decide(g.s, on({ artifact: SHA_C })).action).toMatchObject({ type: "packet", round: 3 });
  });

  it("a resubmit the human already saw (after a checkpoint continue) is not checked again", () => {
    const g = round(gate(), 1, [K1]).escalation(1, "human_checkpoint", ["continue", "stop", "rework"]).decision(1, "continue").resubmit(1);
    expect(decide(g.s, on()).action).toMatchObject({ type: "packet", round: 2 });
  });
});

describe("stall: score regression (stop=score)", () => {
  it("a score that falls two rounds in a row → stalled with the scores", () => {
    const g = round(round(round(gate(), 1, [K1], SHA_A, 5), 2, [K2], SHA_B, 4), 3, [K1, K2], SHA_C, 3);
    expect(decide(g.s, on({ stop: "score", artifact: SHA_C })).action).toMatchObject({
      reason: "stalled",
      stall: { pattern: "score_regression", since_round: 1, rounds: [1, 2, 3], scores: [5, 4, 3] },
    });
  });

  it("not a stall: one fall, a flat score, a fall then a rise, or the same scores under stop=verdict", () => {
    for (const scores of [
      [5, 4],
      [5, 4, 4],
      [5, 3, 4],
      [3, 4, 5],
    ]) {
      const g = gate();
      scores.forEach((s, i) => round(g, i + 1, [i % 2 ? K1 : K2], [SHA_A, SHA_B, SHA_C][i], s));
      const d = decide(g.s, on({ stop: "score", artifact: [SHA_A, SHA_B, SHA_C][scores.length - 1] }));
      expect(d.state, JSON.stringify(scores)).toBe("awaiting_author");
    }
    const g = round(round(round(gate(), 1, [K1], SHA_A, 5), 2, [K2], SHA_B, 4), 3, [K1, K2], SHA_C, 3);
    for (const r of [1, 2, 3]) g.s.packets.set(r, { ...g.s.packets.get(r)!, stop: "verdict" });
    expect(decide(g.s, on({ artifact: SHA_C })).state).toBe("awaiting_author");
  });
});

describe("stall: property against a model of the four patterns", () => {
  const SHAS = [SHA_A, SHA_B, SHA_C, "f".repeat(64)];
  const KEYSETS = [[], [K1], [K2], [K1, K2]];
  const step = fc.record({ keys: fc.nat(3), sha: fc.nat(3), score: fc.integer({ min: 1, max: 5 }) });

  it("decide escalates stalled exactly when the history shows a pattern, at the first point it shows", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 2, maxLength: 7 }), fc.boolean(), (steps, score) => {
        const stop: StopPolicy = score ? "score" : "verdict";
        const g = gate();
        for (let r = 1; r < steps.length; r++) {
          const cur = steps[r - 1]!;
          round(g, r, KEYSETS[cur.keys]!, SHAS[cur.sha], score ? cur.score : undefined);
          // after the verdict: repeated findings, or (score) two falls in a row
          const prev = r >= 2 ? steps[r - 2]! : null;
          const repeated = prev !== null && cur.keys !== 0 && prev.keys === cur.keys;
          const falls = score && r >= 3 && steps[r - 3]!.score > prev!.score && prev!.score > cur.score;
          const afterVerdict = decide(g.s, on({ stop, artifact: SHAS[cur.sha] }));
          if (repeated || falls) {
            expect(afterVerdict.action).toMatchObject({
              reason: "stalled",
              stall: { pattern: repeated ? "repeated_findings" : "score_regression" },
            });
            return;
          }
          expect(afterVerdict.state).toBe("awaiting_author");
          // at the resubmit: the same bytes, or the bytes of the round before back
          const nextSha = steps[r]!.sha;
          g.resubmit(r);
          const atResubmit = decide(g.s, on({ stop, artifact: SHAS[nextSha] }));
          const unchanged = nextSha === cur.sha;
          const alternating = !unchanged && prev !== null && nextSha === prev.sha;
          if (unchanged || alternating) {
            const pattern = unchanged ? "unchanged_resubmit" : "alternating_versions";
            expect(atResubmit.action).toMatchObject({ reason: "stalled", stall: { pattern } });
            return;
          }
          expect(atResubmit.action).toMatchObject({ type: "packet", round: r + 1 });
          g.s.resubmits.delete(r); // round() records the resubmit with the next round
        }
      }),
      { numRuns: 300 },
    );
  });
});
