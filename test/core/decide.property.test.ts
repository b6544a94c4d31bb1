// Properties of the round loop: random event sequences applied to a snapshot by a small simulator of the broker,
// the reviewers, the verifier, the author and the human; plus decide() on arbitrary (even inconsistent) snapshots.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Action, decide, type DecideContext, type GateDecision, type GateStateName } from "../../src/core/decide.js";
import { verdictPasses } from "../../src/core/verdict-pass.js";
import type { GateSnapshot } from "../../src/core/snapshot.js";
import type { DecisionChoice, EscalationReason, Failure, PacketFrontMatter, StopPolicy, VerdictFile } from "../../src/spec/schemas.js";
import {
  apply,
  context,
  decision,
  escalation,
  failure,
  gate,
  openRound,
  type ScoreKind,
  scoreGate,
  verdict,
  type VerdictKind,
} from "../helpers/snapshots.js";

const STATES: GateStateName[] = [
  "no_request",
  "done",
  "broker",
  "reviewing",
  "dispatched",
  "normalizing",
  "verifying",
  "awaiting_author",
  "awaiting_decision",
];
const CHOICES: DecisionChoice[] = ["force-pass", "extend-cap", "rework", "retry", "override", "continue", "stop"];
const SCORE_KINDS: Array<ScoreKind | "none"> = ["positive", "negative", "unavailable", "none"];
const VERDICT_KINDS: VerdictKind[] = ["pass", "issues", "not_satisfied", "blockers", "sha", "unparsed", "packet_id"];
const FAILURE_KINDS: Failure["kind"][] = ["malformed", "no_verdict", "unavailable"];
const REASONS: EscalationReason[] = [
  "cap_hit",
  "malformed_termination_x2",
  "no_verdict",
  "unavailable",
  "restart_cap_hit",
  "codex_skip_blocked",
  "identity_unverified",
  "score_unavailable",
  "human_checkpoint",
  "request_refused",
  "stalled",
];

type Ev =
  | { t: "attempt" }
  | { t: "result"; kind: VerdictKind; violation: "none" | "same" | "unknown"; score: ScoreKind | "none"; upheld: boolean }
  | { t: "rebuttal" }
  | { t: "failure"; kind: Failure["kind"] }
  | { t: "resubmit" }
  | { t: "decision"; choice: DecisionChoice; extendBy: number | undefined }
  | { t: "stray-decision"; round: number; choice: DecisionChoice; extendBy: number | undefined };

const evArb: fc.Arbitrary<Ev> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Ev>({ t: "attempt" }) },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("result" as const),
      kind: fc.constantFrom(...VERDICT_KINDS),
      violation: fc.constantFrom("none" as const, "none" as const, "same" as const, "unknown" as const),
      score: fc.constantFrom(...SCORE_KINDS),
      upheld: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant<Ev>({ t: "rebuttal" }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("failure" as const), kind: fc.constantFrom(...FAILURE_KINDS) }) },
  { weight: 3, arbitrary: fc.constant<Ev>({ t: "resubmit" }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("decision" as const),
      choice: fc.constantFrom(...CHOICES),
      extendBy: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("stray-decision" as const),
      round: fc.integer({ min: 0, max: 12 }),
      choice: fc.constantFrom(...CHOICES),
      extendBy: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    }),
  },
);

const ctxArb: fc.Arbitrary<DecideContext> = fc
  .record({
    required: fc.boolean(),
    cap: fc.integer({ min: 1, max: 4 }),
    restartCap: fc.integer({ min: 1, max: 3 }),
    blocked: fc.boolean(),
    enforcement: fc.constantFrom("warn" as const, "block" as const),
    // the modes are drawn less often than the defaults, so the older paths (restart caps, unavailable) stay reachable
    stop: fc.constantFrom("verdict" as const, "verdict" as const, "score" as const),
    difficulty: fc.constantFrom("medium" as const, "medium" as const, "hard" as const, "nightmare" as const),
    humanCheckpoint: fc.constantFrom(false, false, true),
    // every history here resubmits the same bytes, so detection on turns most resubmits into a stall
    stallDetection: fc.constantFrom(false, false, true),
    refusal: fc.oneof(
      { weight: 9, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constant("difficulty nightmare: the pinned reviewer cannot read the repository") },
    ),
  })
  .map(({ required, cap, restartCap, blocked, enforcement, stop, difficulty, humanCheckpoint, stallDetection, refusal }) =>
    context({ policy: { required, cap, restartCap, stop, difficulty, humanCheckpoint, stallDetection, refusal }, blocked, enforcement }),
  );

/**
 * The oracle for "the verdict passes", restated from SPEC §14 ("Passing") rather than imported: the four
 * checksum-bound conditions and no upheld ruling, plus `satisfied` under stop=verdict or a positive score under
 * stop=score. decide() and the code it calls (verdictPasses) are what these properties judge.
 */
function passesPerSpec(v: VerdictFile | undefined, stop: StopPolicy): boolean {
  if (!v) return false;
  const { parses, packet_id_match, sha256_match, no_blockers, satisfied } = v.gate_pass.conditions;
  if (!parses || !packet_id_match || !sha256_match || !no_blockers) return false;
  if ((v.rulings?.upheld ?? 0) !== 0) return false;
  return stop === "verdict" ? satisfied : v.score_gate?.positive === true;
}

/** The cap the human has granted: the resolved cap plus every extend-cap that answered an escalation offering it. */
function grantedCap(s: GateSnapshot, ctx: DecideContext): number {
  let cap = ctx.policy.cap;
  for (const [round, d] of s.decisions) {
    const esc = s.escalations.get(round);
    if (d.choice === "extend-cap" && esc && esc.options.includes("extend-cap")) cap += d.extend_by ?? 1;
  }
  return cap;
}

function chainOfRestarts(s: GateSnapshot, round: number): number {
  let n = 0;
  for (
    let p = s.packets.get(round);
    p && p.restart_reason === "artifact_changed" && p.restart_of !== null && p.restart_of < p.round;
    p = s.packets.get(p.restart_of)
  )
    n++;
  return n;
}

/** Everything a single decide() call must satisfy on a snapshot the simulator built. */
function checkDecision(s: GateSnapshot, ctx: DecideContext, d: GateDecision): void {
  expect(STATES).toContain(d.state);
  expect(d.action === null).toBe(d.state !== "broker");
  // Deterministic, and independent of object identity.
  expect(decide(s, ctx)).toEqual(d);
  expect(decide(structuredClone(s), ctx)).toEqual(d);
  const a = d.action;
  if (!a) return;
  expect(s.outcome).toBeNull(); // nothing happens after an outcome
  const R = openRound(s);
  const P = s.packets.get(R);
  if (a.type === "outcome") {
    expect(a.round).toBe(R);
    if (a.status === "satisfied") {
      expect(R).toBeGreaterThanOrEqual(1);
      expect(s.failures.has(R)).toBe(false);
      expect(passesPerSpec(s.verdicts.get(R), ctx.policy.stop)).toBe(true);
      // the score policy passes only on a positive score (≥ 6, ready|almost) with the checksum-bound conditions
      if (ctx.policy.stop === "score") expect(s.verdicts.get(R)!.score_gate?.positive).toBe(true);
      const c = s.verdicts.get(R)!.gate_pass.conditions;
      expect(c.parses && c.packet_id_match && c.sha256_match && c.no_blockers).toBe(true);
      expect(a.independence).toBe(s.verdicts.get(R)!.independence_violation ? "weak" : P!.independence);
      expect(P!.reviewer_adapter).not.toBe("copilot"); // a copilot pass only ever asks for a finalizer
    }
    if (a.status === "stopped") {
      expect(s.decisions.get(R)?.choice).toBe("stop");
      expect(s.escalations.get(R)?.options).toContain("stop");
    }
    if (a.status === "force_passed") {
      expect(s.decisions.get(R)?.choice).toBe("force-pass");
      expect(s.escalations.get(R)?.options).toContain("force-pass");
    }
    if (a.status === "rework") {
      expect(s.decisions.get(R)?.choice).toBe("rework");
      expect(s.escalations.get(R)?.options).toContain("rework");
    }
    if (a.status === "skipped") {
      expect(ctx.policy.required).toBe(false);
      expect(R).toBe(0);
    }
    if (ctx.policy.required) expect(a.status).not.toBe("skipped");
  }
  if (a.type === "escalation") {
    expect(a.round).toBe(R);
    expect(s.escalations.has(R)).toBe(false); // progress: never re-issue an existing file
    expect(a.options.length).toBeGreaterThan(0);
    if (a.reason === "codex_skip_blocked") expect(R).toBe(0);
    if (a.reason === "cap_hit") expect(P!.counted_round).toBeGreaterThanOrEqual(grantedCap(s, ctx));
    if (a.reason === "request_refused") expect(R === 0 && ctx.policy.refusal !== null).toBe(true);
    if (a.reason === "score_unavailable") {
      const v = s.verdicts.get(R);
      expect(ctx.policy.stop === "score" && v?.score_gate?.available !== true).toBe(true);
      expect(v?.gate_pass.conditions.no_blockers && !v.rulings?.upheld).toBe(true); // blockers are the author's, never re-rolled
    }
    if (a.reason === "stalled") {
      // only when on, before the cap, never where a human checks every round, always with its evidence and the cap's options
      expect(ctx.policy.stallDetection).toBe(true);
      expect(ctx.policy.humanCheckpoint).toBe(false);
      expect(P!.counted_round).toBeLessThan(grantedCap(s, ctx));
      expect(a.options).toEqual(["force-pass", "extend-cap", "rework"]);
      expect(a.stall?.rounds.at(-1)).toBe(R);
      if (a.stall?.pattern === "unchanged_resubmit" || a.stall?.pattern === "alternating_versions") expect(s.resubmits.has(R)).toBe(true);
    }
    if (a.reason === "human_checkpoint") {
      expect(ctx.policy.humanCheckpoint).toBe(true);
      expect(passesPerSpec(s.verdicts.get(R), ctx.policy.stop)).toBe(false);
      expect(P!.counted_round).toBeLessThan(grantedCap(s, ctx));
    }
  }
  if (a.type === "packet") {
    expect(a.round).toBe(R + 1);
    expect(s.packets.has(a.round)).toBe(false);
    expect(a.cap).toBe(grantedCap(s, ctx));
    expect(a.counted_round).toBeGreaterThanOrEqual(1);
    expect(a.counted_round).toBeLessThanOrEqual(grantedCap(s, ctx));
    if (R === 0) {
      expect(a).toMatchObject({ counted_round: 1, restart_of: null, restart_reason: null, inherit: null });
      expect(ctx.policy.required).toBe(true);
      expect(ctx.policy.refusal).toBeNull(); // a refused request never gets a packet
    } else if (a.restart_reason === "degraded") {
      // an unavailable reviewer: select again without it, on the same counted round
      expect(s.failures.get(R)?.kind).toBe("unavailable");
      expect(P!.restart_reason).not.toBe("degraded");
      expect(P!.restart_reason).not.toBe("finalizer");
      expect(a).toMatchObject({ inherit: null, exclude: [P!.reviewer_provider], restart_of: R, counted_round: P!.counted_round });
    } else if (a.restart_reason === "finalizer") {
      // a copilot pass: a fresh selection without that provider confirms it, on the same counted round
      expect(P!.reviewer_adapter).toBe("copilot");
      expect(passesPerSpec(s.verdicts.get(R), ctx.policy.stop)).toBe(true);
      expect(a).toMatchObject({ inherit: null, exclude: [P!.reviewer_provider], restart_of: R, counted_round: P!.counted_round });
    } else {
      expect(a.inherit).toEqual(P);
      // a person's retry of a ruling round rules again on the round the author contested (decide.ts, SPEC §21)
      const retriedRuling = a.restart_reason === "ruling" && s.decisions.get(R)?.choice === "retry" && P!.restart_reason === "ruling";
      if (a.restart_reason === "ruling" && !retriedRuling) {
        // one ruling per counted round, only at hard or nightmare, only on an author's rebuttal of blocking findings
        expect(ctx.policy.difficulty).not.toBe("medium");
        expect(s.rebuttals.has(R)).toBe(true);
        expect(P!.restart_reason).not.toBe("ruling");
        expect(s.verdicts.get(R)!.blocking_count).toBeGreaterThan(0);
      }
      if (a.restart_reason === "artifact_changed" || a.restart_reason === "retry" || a.restart_reason === "ruling") {
        // Restarts, retries and rulings never consume the cap.
        expect(a.restart_of).toBe(retriedRuling ? P!.restart_of : R);
        expect(a.counted_round).toBe(P!.counted_round);
      } else {
        expect(a.counted_round).toBe(P!.counted_round + 1);
      }
      if (a.restart_reason === "artifact_changed") {
        expect(s.verdicts.get(R)?.gate_pass.conditions.sha256_match).toBe(false);
        expect(chainOfRestarts(s, R)).toBeLessThan(ctx.policy.restartCap);
      }
      // a plain next round follows the author's resubmit, or an extension after a malformed round (nothing to revise):
      // a malformed failure, or a verdict that does not parse or names another packet (SPEC §14 rules 7, 13)
      const c = s.verdicts.get(R)?.gate_pass.conditions;
      const malformed = s.failures.get(R)?.kind === "malformed" || (c !== undefined && !(c.parses && c.packet_id_match));
      if (a.restart_reason === null)
        expect(
          s.resubmits.has(R) ||
            (s.decisions.get(R)?.choice === "extend-cap" && (malformed || s.escalations.get(R)?.reason === "malformed_termination_x2")),
        ).toBe(true);
    }
  }
}

interface Trace {
  actions: Action[];
  validDecisions: Array<{ round: number; choice: DecisionChoice }>;
}

/** The broker: decide, check, apply, until the gate waits. */
function settleChecked(s: GateSnapshot, ctx: DecideContext, fresh: Partial<PacketFrontMatter>, trace: Trace): GateDecision {
  for (let guard = 0; guard < 30; guard++) {
    const d = decide(s, ctx);
    checkDecision(s, ctx, d);
    if (!d.action) return d;
    trace.actions.push(d.action);
    apply(s, d.action, ctx.policy, fresh);
  }
  throw new Error("the broker did not settle");
}

/** Who a fresh selection picks: the default strong reviewer, a weak one, or copilot (whose passes need a finalizer). */
type First = "strong" | "weak" | "copilot";
const firstArb = fc.constantFrom<First>("strong", "strong", "weak", "copilot");
const FRESH: Record<First, Partial<PacketFrontMatter>> = {
  strong: {},
  weak: { independence: "weak", selection_status: "degraded-local" },
  copilot: { reviewer_provider: "copilot", reviewer_adapter: "copilot", reviewer_model: null },
};

function simulate(ctx: DecideContext, events: Ev[], first: First): { s: GateSnapshot; trace: Trace; last: GateDecision } {
  const s = gate().s;
  const trace: Trace = { actions: [], validDecisions: [] };
  const fresh = FRESH[first];
  let d = settleChecked(s, ctx, fresh, trace);
  for (const ev of events) {
    if (s.outcome) break;
    const R = openRound(s);
    const P = s.packets.get(R);
    const open = d.state === "reviewing" || d.state === "dispatched";
    switch (ev.t) {
      case "attempt":
        if (d.state === "reviewing")
          s.attempts.set(R, {
            schema_version: "guild_bus.attempt.v1",
            run_id: s.runId,
            gate: s.gate,
            round: R,
            packet_id: P!.packet_id,
            provider: "codex",
            worker: { host: "h", pid: 1 },
            started_at: "2025-01-01T00:00:00Z",
          });
        break;
      case "result":
        if (open) {
          // The verifier flags independence only on a strong packet, and counts rulings only on a ruling packet.
          const violation = ev.violation !== "none" && P!.independence === "strong";
          s.results.set(R, { mtimeMs: 1, size: 100, version: "test" });
          s.verdicts.set(
            R,
            verdict(R, ev.kind, {
              ...(violation
                ? {
                    independence_violation: true,
                    reviewer_family: ev.violation === "same" ? "anthropic" : "unknown",
                    reviewer_model: ev.violation === "same" ? "claude-opus-4" : "mystery",
                  }
                : {}),
              ...(ev.score !== "none" ? { score_gate: scoreGate(ev.score) } : {}),
              ...(P!.restart_reason === "ruling" ? { rulings: { upheld: ev.upheld ? 1 : 0, withdrawn: 1 } } : {}),
            }),
          );
        }
        break;
      case "rebuttal":
        if (d.state === "awaiting_author") s.rebuttals.add(R);
        break;
      case "failure":
        if (open) s.failures.set(R, failure(R, ev.kind));
        break;
      case "resubmit":
        if (d.state === "awaiting_author") s.resubmits.add(R);
        break;
      case "decision":
        if (d.state === "awaiting_decision" && !s.decisions.has(d.round)) {
          s.decisions.set(
            d.round,
            decision(d.round, ev.choice, ev.extendBy, ev.choice === "continue" ? "look at the rollback" : undefined),
          );
          if (s.escalations.get(d.round)?.options.includes(ev.choice)) trace.validDecisions.push({ round: d.round, choice: ev.choice });
        }
        break;
      case "stray-decision":
        if (!s.decisions.has(ev.round)) s.decisions.set(ev.round, decision(ev.round, ev.choice, ev.extendBy));
        break;
    }
    d = settleChecked(s, ctx, fresh, trace);
  }
  return { s, trace, last: d };
}

describe("decide: properties over simulated gates", () => {
  it("every decision along any event sequence keeps the round-loop invariants", () => {
    fc.assert(
      fc.property(ctxArb, fc.array(evArb, { maxLength: 40 }), firstArb, (ctx, events, first) => {
        simulate(ctx, events, first); // checkDecision asserts at every step
      }),
      { numRuns: 1500 },
    );
  });

  it(`outcomes: satisfied only on a passing latest verdict, force_passed/rework only after that decision, \
skipped only when not required`, () => {
    fc.assert(
      fc.property(ctxArb, fc.array(evArb, { maxLength: 40 }), firstArb, (ctx, events, first) => {
        const { s } = simulate(ctx, events, first);
        const o = s.outcome;
        if (!o) return;
        const R = openRound(s);
        expect(o.final_round).toBe(R);
        if (o.status === "satisfied") expect(passesPerSpec(s.verdicts.get(R), ctx.policy.stop)).toBe(true);
        if (o.status === "stopped") expect(s.decisions.get(R)?.choice).toBe("stop");
        if (o.status === "force_passed") expect(s.decisions.get(R)?.choice).toBe("force-pass");
        if (o.status === "skipped") expect(ctx.policy.required).toBe(false);
        if (o.status === "rework") expect(s.decisions.get(R)?.choice).toBe("rework");
        // A weak packet never yields a strong outcome.
        if (o.status === "satisfied" && s.packets.get(R)!.independence === "weak") expect(o.independence).toBe("weak");
        if (o.status === "satisfied") expect(s.packets.get(R)!.reviewer_adapter).not.toBe("copilot");
      }),
      { numRuns: 1500 },
    );
  });

  it("counted rounds stay within the cap in force when each packet was issued; restarts keep the counted round", () => {
    fc.assert(
      fc.property(ctxArb, fc.array(evArb, { maxLength: 40 }), firstArb, (ctx, events, first) => {
        const { s } = simulate(ctx, events, first);
        const extended = [...s.decisions].some(
          ([r, d]) => d.choice === "extend-cap" && s.escalations.get(r)?.options.includes("extend-cap"),
        );
        for (const p of s.packets.values()) {
          expect(p.counted_round).toBeLessThanOrEqual(p.cap);
          if (!extended) expect(p.counted_round).toBeLessThanOrEqual(ctx.policy.cap);
          if (p.restart_reason === "artifact_changed" || p.restart_reason === "retry" || p.restart_reason === "ruling") {
            expect(p.counted_round).toBe(s.packets.get(p.restart_of!)!.counted_round);
          }
        }
        // Counted rounds never go down from one packet to the next.
        const rounds = [...s.packets.keys()].sort((a, b) => a - b);
        for (let i = 1; i < rounds.length; i++) {
          expect(s.packets.get(rounds[i]!)!.counted_round).toBeGreaterThanOrEqual(s.packets.get(rounds[i - 1]!)!.counted_round);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("the simulator is not vacuous: it reaches every outcome, escalation and kind of packet", () => {
    const seen = new Set<string>();
    for (const [ctx, events, first] of fc.sample(fc.tuple(ctxArb, fc.array(evArb, { maxLength: 40 }), firstArb), {
      numRuns: 3000,
      seed: 42,
    })) {
      for (const a of simulate(ctx, events, first).trace.actions) {
        seen.add(
          a.type === "outcome" ? `outcome:${a.status}` : a.type === "escalation" ? `escalation:${a.reason}` : `packet:${a.restart_reason}`,
        );
      }
    }
    expect([...seen].sort()).toEqual([
      ...[
        "cap_hit",
        "codex_skip_blocked",
        "human_checkpoint",
        "identity_unverified",
        "malformed_termination_x2",
        "no_verdict",
        "request_refused",
        "restart_cap_hit",
        "score_unavailable",
        "stalled",
        "unavailable",
      ].map((r) => `escalation:${r}`),
      ...["force_passed", "rework", "satisfied", "skipped", "stopped"].map((s) => `outcome:${s}`),
      ...["artifact_changed", "degraded", "finalizer", "malformed", "null", "retry", "ruling"].map((r) => `packet:${r}`),
    ]);
  });

  it("a gate whose reviewer always passes and never fails ends satisfied with only one counted round", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 3 }), (cap, shaRestarts) => {
        const ctx = context({ policy: { cap, restartCap: 3 } });
        const events: Ev[] = [
          ...Array.from(
            { length: shaRestarts },
            () => ({ t: "result", kind: "sha", violation: "none", score: "none", upheld: false }) as Ev,
          ),
          { t: "result", kind: "pass", violation: "none", score: "none", upheld: false },
        ];
        const { s } = simulate(ctx, events, "strong");
        expect(s.outcome?.status).toBe("satisfied");
        expect(s.outcome?.final_round).toBe(shaRestarts + 1);
        expect(Math.max(...[...s.packets.values()].map((p) => p.counted_round))).toBe(1);
      }),
    );
  });
});

// Arbitrary snapshots, including ones no honest broker would write (a foreign writer, a corrupted file set).
const roundArb = fc.integer({ min: 1, max: 6 });
const snapshotArb = fc.record({
  hasRequest: fc.boolean(),
  packets: fc.array(
    fc.record({
      round: roundArb,
      counted: roundArb,
      restartOf: fc.option(roundArb, { nil: null }),
      reason: fc.constantFrom(null, "artifact_changed" as const, "retry" as const, "malformed" as const, "ruling" as const),
      independence: fc.constantFrom("strong" as const, "weak" as const),
    }),
    { maxLength: 6 },
  ),
  attempts: fc.array(roundArb, { maxLength: 3 }),
  results: fc.array(roundArb, { maxLength: 3 }),
  responses: fc.array(roundArb, { maxLength: 3 }),
  verdicts: fc.array(
    fc.record({
      round: roundArb,
      kind: fc.constantFrom(...VERDICT_KINDS),
      violation: fc.boolean(),
      family: fc.constantFrom("unknown" as const, "anthropic" as const, "openai" as const),
      score: fc.constantFrom(...SCORE_KINDS),
      upheld: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
    }),
    { maxLength: 4 },
  ),
  rebuttals: fc.array(roundArb, { maxLength: 2 }),
  failures: fc.array(fc.record({ round: roundArb, kind: fc.constantFrom(...FAILURE_KINDS) }), { maxLength: 3 }),
  resubmits: fc.array(roundArb, { maxLength: 3 }),
  escalations: fc.array(
    fc.record({ round: fc.integer({ min: 0, max: 6 }), reason: fc.constantFrom(...REASONS), options: fc.subarray(CHOICES) }),
    { maxLength: 3 },
  ),
  decisions: fc.array(
    fc.record({
      round: fc.integer({ min: 0, max: 6 }),
      choice: fc.constantFrom(...CHOICES),
      by: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    }),
    { maxLength: 3 },
  ),
  outcome: fc.option(fc.constantFrom("satisfied" as const, "skipped" as const, "force_passed" as const, "rework" as const), { nil: null }),
});

function build(x: typeof snapshotArb extends fc.Arbitrary<infer T> ? T : never): GateSnapshot {
  const g = gate(x.hasRequest ? undefined : null);
  for (const p of x.packets)
    g.packet(p.round, { counted_round: p.counted, restart_of: p.restartOf, restart_reason: p.reason, independence: p.independence });
  for (const r of x.attempts) g.attempt(r);
  for (const r of x.results) g.result(r);
  for (const r of x.responses) g.response(r);
  for (const v of x.verdicts) {
    g.verdict(v.round, v.kind, {
      independence_violation: v.violation,
      reviewer_family: v.family,
      ...(v.score !== "none" ? { score_gate: scoreGate(v.score) } : {}),
      ...(v.upheld !== undefined ? { rulings: { upheld: v.upheld, withdrawn: 0 } } : {}),
    });
  }
  for (const r of x.rebuttals) g.rebuttal(r);
  for (const f of x.failures) g.failure(f.round, f.kind);
  for (const r of x.resubmits) g.resubmit(r);
  for (const e of x.escalations) g.s.escalations.set(e.round, escalation(e.round, e.reason, e.options));
  for (const d of x.decisions) g.s.decisions.set(d.round, decision(d.round, d.choice, d.by));
  if (x.outcome) g.outcome(x.outcome, Math.max(0, ...g.s.packets.keys()));
  return g.s;
}

describe("verdictPasses states the SPEC rule", () => {
  it("agrees with the oracle on every mix of conditions, upheld rulings, score and stop policy", () => {
    const NAMES = ["parses", "packet_id_match", "sha256_match", "satisfied", "no_blockers"] as const;
    let passing = 0;
    for (let bits = 0; bits < 2 ** NAMES.length; bits++)
      for (const upheld of [undefined, 0, 1])
        for (const score of SCORE_KINDS)
          for (const stop of ["verdict", "score"] as const) {
            const conditions = Object.fromEntries(NAMES.map((n, i) => [n, (bits & (1 << i)) !== 0])) as Record<
              (typeof NAMES)[number],
              boolean
            >;
            const v = verdict(1, "pass", {
              gate_pass: { ...verdict(1, "pass").gate_pass, conditions },
              ...(upheld !== undefined ? { rulings: { upheld, withdrawn: 0 } } : {}),
              ...(score !== "none" ? { score_gate: scoreGate(score) } : {}),
            });
            const expected = passesPerSpec(v, stop);
            if (expected) passing++;
            expect(verdictPasses(v, stop), JSON.stringify({ conditions, upheld, score, stop })).toBe(expected);
          }
    expect(passing).toBeGreaterThan(0);
  });
});

describe("decide: total on arbitrary snapshots", () => {
  it("never throws, always returns an action or a wait state, is deterministic and leaves the snapshot alone", () => {
    fc.assert(
      fc.property(snapshotArb, ctxArb, (x, ctx) => {
        const s = build(x);
        const before = structuredClone(s);
        const d = decide(s, ctx);
        expect(STATES).toContain(d.state);
        expect(d.action === null).toBe(d.state !== "broker");
        expect(Number.isInteger(d.round) && d.round >= 0).toBe(true);
        expect(typeof d.detail).toBe("string");
        expect(decide(before, ctx)).toEqual(d);
        expect(s).toEqual(before);
        if (d.action?.type === "outcome" && d.action.status === "satisfied") {
          const R = openRound(s);
          expect(passesPerSpec(s.verdicts.get(R), ctx.policy.stop)).toBe(true);
          expect(s.failures.has(R)).toBe(false);
        }
        if (d.action?.type === "outcome" && d.action.status === "skipped") expect(ctx.policy.required).toBe(false);
        if (d.action?.type === "outcome" && d.action.status === "force_passed")
          expect(s.decisions.get(d.action.round)?.choice).toBe("force-pass");
      }),
      { numRuns: 3000 },
    );
  });

  it("restart chains of any shape (self-references, forward references, cycles) terminate and respect the restart cap", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(roundArb, { nil: null }), { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        (restartOf, restartCap) => {
          const g = gate();
          restartOf.forEach((of, i) => g.packet(i + 1, { counted_round: 1, restart_of: of, restart_reason: "artifact_changed" }));
          g.verdict(6, "sha");
          const d = decide(g.s, context({ policy: { restartCap } }));
          const a = d.action!;
          expect(a.type === "packet" || (a.type === "escalation" && a.reason === "restart_cap_hit")).toBe(true);
          if (a.type === "packet")
            expect(a).toMatchObject({ round: 7, restart_of: 6, counted_round: 1, restart_reason: "artifact_changed" });
        },
      ),
      { numRuns: 500 },
    );
  });
});
