// "Round R ended malformed" and "two malformed terminations in a row" (SPEC §14's malformed rule, §26 rule 6), read
// three ways: decide()'s own round end, its extend-cap after that round's cap_hit, and the escalation evidence check
// (`unreachedEscalation`). Over generated single-reviewer and quorum rounds they must agree.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decide, foreignEscalationProblem, type GateDecision, unreachedEscalation } from "../../src/core/decide.js";
import type { Failure, PacketFrontMatter, QuorumRule, VerdictFile } from "../../src/spec/schemas.js";
import { context, escalation, gate, SHA_B, type Gate, type VerdictKind } from "../helpers/snapshots.js";

type Ending = { failure: Failure["kind"] } | { verdict: VerdictKind | "unsent" | "unsent_blocking" };
const ENDINGS: Ending[] = [
  { failure: "malformed" },
  { failure: "no_verdict" },
  { failure: "unavailable" },
  ...(["pass", "issues", "not_satisfied", "blockers", "sha", "unparsed", "packet_id", "unsent", "unsent_blocking"] as const).map(
    (verdict) => ({ verdict }),
  ),
];
const ending = fc.constantFrom(...ENDINGS);

/** A verdict whose result names bytes its packet never sent (a raw file's sha, say), blocking or not. */
function unsent(v: VerdictFile, blocking: boolean): Partial<VerdictFile> {
  const conditions = { ...v.gate_pass.conditions, sha256_match: false, no_blockers: !blocking };
  return {
    artifact_sha256_reviewed: SHA_B,
    blocking_count: blocking ? 2 : 0,
    gate_pass: { ...v.gate_pass, pass: false, conditions, reasons: ["sha256 mismatch"] },
  };
}

function end(g: Gate, round: number, e: Ending, member?: string): void {
  if ("failure" in e) {
    if (member) g.memberFailure(round, member, e.failure);
    else g.failure(round, e.failure);
    return;
  }
  const kind: VerdictKind = e.verdict === "unsent" || e.verdict === "unsent_blocking" ? "pass" : e.verdict;
  if (member) g.memberVerdict(round, member, kind);
  else g.verdict(round, kind);
  if (kind === e.verdict) return;
  const slots = member ? g.s.members.get(member)! : g.s;
  const v = slots.verdicts.get(round)!;
  slots.verdicts.set(round, { ...v, ...unsent(v, e.verdict === "unsent_blocking") });
}

const RESTARTS = ["malformed", "retry", null] as const;
interface Case {
  quorum: QuorumRule | null;
  reason: (typeof RESTARTS)[number];
  cap: number;
  first: [Ending, Ending];
  second: [Ending, Ending];
}
const arb: fc.Arbitrary<Case> = fc.record({
  quorum: fc.constantFrom<QuorumRule | null>(null, { need: 2, of: 2 }, { need: 1, of: 2 }),
  reason: fc.constantFrom(...RESTARTS),
  cap: fc.integer({ min: 1, max: 3 }),
  first: fc.tuple(ending, ending),
  second: fc.tuple(ending, ending),
});

/** Round 1, then round 2 re-running it (`reason`) or counted anew; each reviewer's part of each round ended so. */
function build({ quorum, reason, first, second }: Case): Gate {
  const two: Partial<PacketFrontMatter> = {
    restart_of: reason === null ? null : 1,
    restart_reason: reason,
    counted_round: reason === "retry" ? 1 : 2,
  };
  const g = gate();
  if (!quorum) {
    g.packet(1).packet(2, two);
    end(g, 1, first[0]);
    end(g, 2, second[0]);
    return g;
  }
  const members = [
    ["codex", "openai"],
    ["gem", "google"],
  ] as const;
  members.forEach(([p, family], i) => {
    g.memberPacket(1, p, family, quorum).memberPacket(2, p, family, quorum, two);
    end(g, 1, first[i]!, p);
    end(g, 2, second[i]!, p);
  });
  return g;
}

const escalates = (d: GateDecision, reason: string) => d.action?.type === "escalation" && d.action.reason === reason;
/** decide()'s round end: a malformed re-run, two malformed terminations, or the cap reached on a malformed round. */
const decidedMalformed = (d: GateDecision) =>
  (d.action?.type === "packet" && d.action.restart_reason === "malformed") ||
  escalates(d, "malformed_termination_x2") ||
  (escalates(d, "cap_hit") && d.detail.includes("last round malformed"));

describe("a round that ended malformed: one rule", () => {
  it("decide()'s round end, its extend-cap after the round's cap_hit and the escalation evidence agree", () => {
    fc.assert(
      fc.property(arb, (x) => {
        const ctx = context({ policy: { cap: x.cap, quorum: x.quorum } });
        const g = build(x);
        const d = decide(g.s, ctx);
        const malformed = decidedMalformed(d);
        const evidence = (reason: "cap_hit" | "malformed_termination_x2") =>
          unreachedEscalation(g.s, ctx, escalation(2, reason, ["force-pass", "extend-cap", "rework"]), () => true) === null;
        // the evidence check accepts the broker's two malformed terminations, and only those
        expect(evidence("malformed_termination_x2"), d.detail).toBe(escalates(d, "malformed_termination_x2"));
        if (escalates(d, "cap_hit")) {
          expect(evidence("cap_hit"), d.detail).toBe(true);
          // after a malformed round there is nothing to revise: extend-cap issues the next round at once (SPEC §14 6d)
          const ext = build(x);
          ext.escalation(2, "cap_hit", ["force-pass", "extend-cap", "rework"]).decision(2, "extend-cap");
          const after = decide(ext.s, ctx);
          expect(after.action?.type === "packet" && after.action.restart_of === null, after.detail).toBe(malformed);
          expect(after.state === "awaiting_author", after.detail).toBe(!malformed);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("a round that ended malformed: where the copies disagreed", () => {
  const CAP: ["force-pass", "extend-cap", "rework"] = ["force-pass", "extend-cap", "rework"];
  const TWO: QuorumRule = { need: 2, of: 2 };
  const quorum = () => gate().memberPacket(1, "codex", "openai", TWO).memberPacket(1, "gem", "google", TWO);

  it("extend-cap after a single reviewer's unreadable result at the cap issues the next round at once (§14 6d)", () => {
    const g = gate().packet(1).verdict(1, "unparsed");
    const ctx = context({ policy: { cap: 1 } });
    expect(decide(g.s, ctx).action).toMatchObject({ type: "escalation", reason: "cap_hit" });
    g.escalation(1, "cap_hit", CAP).decision(1, "extend-cap");
    expect(decide(g.s, ctx).action).toMatchObject({ type: "packet", round: 2, counted_round: 2, restart_of: null });
  });

  it("extend-cap after a quorum round that failed on a blocker is the author's turn, though another member was malformed", () => {
    const g = quorum().memberVerdict(1, "codex", "blockers").memberFailure(1, "gem", "malformed");
    const ctx = context({ policy: { cap: 1, quorum: TWO } });
    expect(decide(g.s, ctx).action).toMatchObject({ type: "escalation", reason: "cap_hit" });
    g.escalation(1, "cap_hit", CAP).decision(1, "extend-cap");
    expect(decide(g.s, ctx)).toMatchObject({ state: "awaiting_author", action: null });
  });

  it("a quorum round's malformed_termination_x2 needs the same member malformed twice, as decide() escalates it", () => {
    const again = { restart_of: 1, restart_reason: "malformed" as const, counted_round: 2 };
    const g = quorum().memberFailure(1, "codex", "malformed").memberVerdict(1, "gem", "pass");
    g.memberPacket(2, "codex", "openai", TWO, again).memberPacket(2, "gem", "google", TWO, again);
    g.memberVerdict(2, "codex", "pass").memberFailure(2, "gem", "malformed");
    const ctx = context({ policy: { quorum: TWO } });
    // another member malformed in the restart: a third round, not a human's
    expect(decide(g.s, ctx).action).toMatchObject({ type: "packet", round: 3, restart_reason: "malformed" });
    g.escalation(2, "malformed_termination_x2", CAP);
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toMatch(
      /malformed_termination_x2 at round 2 needs a round that ended malformed/,
    );
  });
});
