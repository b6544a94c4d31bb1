// Every escalation decide() raises, written as the broker writes it, is the broker's own by the evidence check
// (`foreignEscalationProblem`, SPEC §6): over single-reviewer and quorum rounds, a round re-run or counted anew, each
// part ending any way — sealed independence violations, members of the author's family or of none, malformed ends —
// so no change to one rule moves the broker's own escalation aside as a stranger's.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escalationRecord } from "../../src/core/broker-plan.js";
import { decide, type DecideContext, type EscalationAction, foreignEscalationProblem } from "../../src/core/decide.js";
import type { Family, PacketFrontMatter, QuorumRule } from "../../src/spec/schemas.js";
import { AT, context, type Gate, gate, request, type VerdictKind } from "../helpers/snapshots.js";

const FAILURES = ["malformed", "unavailable", "no_verdict"] as const;
const VERDICTS = ["pass", "issues", "blockers", "sha", "unparsed", "packet_id"] as const;
const ending = fc.record({
  ends: fc.constantFrom("pending", ...FAILURES, ...VERDICTS),
  family: fc.constantFrom<Family>("openai", "google", "deepseek", "anthropic", "unknown"),
  sealed: fc.boolean(),
});
type Ending = typeof ending extends fc.Arbitrary<infer T> ? T : never;
const restart = fc.constantFrom<PacketFrontMatter["restart_reason"]>(null, "malformed", "retry", "artifact_changed");

/** Round 2 re-running round 1 (`reason`) or counted anew. */
const second = (cap: number, reason: PacketFrontMatter["restart_reason"]): Partial<PacketFrontMatter> => ({
  cap,
  restart_of: reason === null ? null : 1,
  restart_reason: reason,
  counted_round: reason === null || reason === "malformed" ? 2 : 1,
});

/** One part of a round ended so: a failure, a verdict (its family, its sealed violation), or nothing yet. */
function end(g: Gate, round: number, e: Ending, member?: string): void {
  if (e.ends === "pending") return;
  if ((FAILURES as readonly string[]).includes(e.ends)) {
    const kind = e.ends as (typeof FAILURES)[number];
    if (member) g.memberFailure(round, member, kind);
    else g.failure(round, kind);
    return;
  }
  const over = { reviewer_family: e.family, independence_violation: e.sealed };
  if (member) g.memberVerdict(round, member, e.ends as VerdictKind, over);
  else g.verdict(round, e.ends as VerdictKind, over);
}

/** The broker's escalation, if decide() raises one, is its own. */
function ownEscalation(g: Gate, ctx: DecideContext): void {
  const d = decide(g.s, ctx);
  if (d.action?.type !== "escalation") return;
  g.s.escalations.set(d.action.round, escalationRecord(g.s, d.action as EscalationAction, AT));
  expect(
    foreignEscalationProblem(g.s, ctx, () => true),
    `${d.action.reason}: ${d.detail}`,
  ).toBeNull();
}

const rounds = { reason: restart, cap: fc.integer({ min: 1, max: 2 }), two: fc.boolean() };

describe("the broker's own escalation stays its own", () => {
  it("a single reviewer's rounds", () => {
    const arb = fc.record({ ...rounds, first: ending, then: ending, checkpoint: fc.boolean() });
    fc.assert(
      fc.property(arb, ({ first, then, reason, cap, two, checkpoint }) => {
        const g = gate(request({ human_checkpoint: checkpoint })).packet(1, { cap });
        end(g, 1, first);
        if (two) end(g.packet(2, second(cap, reason)), 2, then);
        ownEscalation(g, context({ policy: { cap, humanCheckpoint: checkpoint } }));
      }),
      { numRuns: 3000 },
    );
  });

  it("a quorum's rounds", () => {
    const FAMILIES = ["openai", "google", "deepseek"] as const;
    const arb = fc.record({
      ...rounds,
      first: fc.array(ending, { minLength: 2, maxLength: 3 }),
      then: fc.array(ending, { minLength: 3, maxLength: 3 }),
      need: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(arb, ({ first, then, need, reason, cap, two }) => {
        const rule: QuorumRule = { need: Math.min(need, first.length), of: first.length };
        const g = gate(request({ human_checkpoint: false }));
        first.forEach((e, i) => end(g.memberPacket(1, `m${i}`, FAMILIES[i]!, rule, { cap }), 1, e, `m${i}`));
        if (two) first.forEach((_, i) => end(g.memberPacket(2, `m${i}`, FAMILIES[i]!, rule, second(cap, reason)), 2, then[i]!, `m${i}`));
        ownEscalation(g, context({ policy: { quorum: rule, cap } }));
      }),
      { numRuns: 3000 },
    );
  });
});
