// Quorum gates in the round loop (SPEC §26): decide() step by step on hand-built snapshots, then a property over
// every mix of member endings — the gate is satisfied exactly when the rule stated directly says so.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BrokerInput, planStep } from "../../src/core/broker-plan.js";
import { decide, type DecideContext, type EscalationAction, foreignEscalationProblem } from "../../src/core/decide.js";
import type { Provider } from "../../src/core/selection.js";
import type { ResultLookup } from "../../src/core/trail.js";
import { Escalation } from "../../src/spec/schemas.js";
import type { Family, KnownFamily, QuorumRule } from "../../src/spec/schemas.js";
import { AT, context, gate, SHA_A, SHA_B, verdict, type VerdictKind } from "../helpers/snapshots.js";
import { escalationRecord } from "../../src/core/broker-plan.js";

const TWO_OF_TWO: QuorumRule = { need: 2, of: 2 };
const quorumCtx = (rule: QuorumRule = TWO_OF_TWO, over: Parameters<typeof context>[0] = {}) =>
  context({ ...over, policy: { quorum: rule, ...over.policy } });

/** Round 1 issued to codex (openai) and gem (google) for a claude (anthropic) author. */
const issued = (rule: QuorumRule = TWO_OF_TWO) => gate().memberPacket(1, "codex", "openai", rule).memberPacket(1, "gem", "google", rule);

describe("decide: a quorum round", () => {
  it("before round 1, asks for the round's first packets with the rule and nothing to keep", () => {
    const d = decide(gate().s, quorumCtx());
    expect(d.action).toMatchObject({ type: "packet", round: 1, counted_round: 1, quorum: { rule: TWO_OF_TWO, keep: [], exclude: [] } });
  });

  it("a round with fewer member packets than N asks for the next one in the same round", () => {
    const g = gate().memberPacket(1, "codex", "openai", TWO_OF_TWO);
    expect(decide(g.s, quorumCtx()).action).toMatchObject({ type: "packet", round: 1, counted_round: 1, quorum: { rule: TWO_OF_TWO } });
  });

  it("waits while any member is still reviewing, naming each and how far it got", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberAttempt(1, "gem");
    const d = decide(g.s, quorumCtx());
    expect(d).toMatchObject({ state: "dispatched", round: 1, action: null });
    expect(d.detail).toContain("gem: dispatched");
  });

  it("K distinct non-author families passing on the same bytes satisfy the gate, naming who counted", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "pass");
    const d = decide(g.s, quorumCtx());
    expect(d.action).toMatchObject({
      type: "outcome",
      status: "satisfied",
      independence: "strong",
      quorum: [
        { provider: "codex", family: "openai" },
        { provider: "gem", family: "google" },
      ],
    });
  });

  it("a member whose reviewer reports a model of no known family never counts: the round does not pass", () => {
    const g = issued()
      .memberVerdict(1, "codex", "pass")
      .memberVerdict(1, "gem", "pass", { reviewer_model: "house-model-7", reviewer_family: "unknown" });
    const d = decide(g.s, quorumCtx());
    expect(d.action).toMatchObject({ type: "escalation", reason: "identity_unverified" });
    expect(d.detail).toMatch(/1 more passing family needed/);
  });

  it("a member whose verifier sealed an independence violation never counts, whatever family its verdict names", () => {
    // gem's verdict names google, as the packet's maps class it; the settings when it was verified did not
    const sealed = { independence_violation: true, reviewer_family: "google" as const };
    const d = decide(issued().memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "pass", sealed).s, quorumCtx());
    expect(d.action).toMatchObject({ type: "escalation", reason: "identity_unverified" });
    expect(d.detail).toMatch(/1 more passing family needed.*gem: its verdict sealed an independence violation/);
    // 2 of 3: the round passes on the others, never counting it
    const rule = { need: 2, of: 3 };
    const g = issued(rule).memberPacket(1, "ds", "deepseek", rule);
    g.memberVerdict(1, "codex", "pass")
      .memberVerdict(1, "gem", "pass", sealed)
      .memberVerdict(1, "ds", "pass", { reviewer_family: "deepseek" });
    expect(decide(g.s, quorumCtx(rule)).action).toMatchObject({
      type: "outcome",
      status: "satisfied",
      independence: "strong",
      quorum: [
        { provider: "codex", family: "openai" },
        { provider: "ds", family: "deepseek" },
      ],
    });
  });

  it("a blocking finding from any reviewer blocks: the author's turn, naming the blocking reviewer", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "blockers");
    const d = decide(g.s, quorumCtx());
    expect(d).toMatchObject({ state: "awaiting_author", round: 1 });
    expect(d.detail).toContain("blocked by gem");
  });

  it("a blocker at the cap escalates cap_hit, as for one reviewer", () => {
    const g = issued().memberVerdict(1, "codex", "blockers").memberVerdict(1, "gem", "pass");
    const d = decide(g.s, quorumCtx(TWO_OF_TWO, { policy: { cap: 1 } }));
    expect(d.action).toMatchObject({ type: "escalation", reason: "cap_hit" });
  });

  it("2 of 3: a member that did not pass, without blockers, does not stop two others that did", () => {
    const rule = { need: 2, of: 3 };
    const g = issued(rule).memberPacket(1, "ds", "deepseek", rule);
    g.memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "pass").memberFailure(1, "ds", "malformed");
    expect(decide(g.s, quorumCtx(rule)).action).toMatchObject({ type: "outcome", status: "satisfied" });
  });

  it("a pass that does not reach K is the author's turn, saying how many families are missing", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "pass", { gate_pass: notSatisfied() });
    const d = decide(g.s, quorumCtx());
    expect(d.state).toBe("awaiting_author");
    expect(d.detail).toContain("1 more passing family needed");
  });

  it("members whose own verdicts pass but whose families do not count escalate identity_unverified, naming the missing family", () => {
    const rule = { need: 2, of: 2, families: ["openai", "google"] as KnownFamily[] };
    const g = issued(rule).memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "pass", { reviewer_family: "anthropic" });
    const d = decide(g.s, quorumCtx(rule));
    expect(d.action).toMatchObject({ type: "escalation", reason: "identity_unverified" });
    expect(d.detail).toContain("missing google");
  });

  it("an unavailable member is replaced once (degraded, excluding it), then a human decides", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberFailure(1, "gem", "unavailable");
    const first = decide(g.s, quorumCtx());
    expect(first.action).toMatchObject({ type: "packet", round: 2, restart_reason: "degraded", quorum: { exclude: ["gem"] } });
    expect(
      (first.action as { quorum: { keep: Array<{ reviewer_provider: string }> } }).quorum.keep.map((p) => p.reviewer_provider),
    ).toEqual(["codex"]);
    const again = g
      .memberPacket(2, "codex", "openai", TWO_OF_TWO, { restart_of: 1, restart_reason: "degraded", counted_round: 1 })
      .memberPacket(2, "ds", "deepseek", TWO_OF_TWO, { restart_of: 1, restart_reason: "degraded", counted_round: 1 })
      .memberVerdict(2, "codex", "pass")
      .memberFailure(2, "ds", "unavailable");
    expect(decide(again.s, quorumCtx()).action).toMatchObject({ type: "escalation", reason: "unavailable" });
  });

  it("a malformed member restarts the round; the same member malformed again escalates", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberFailure(1, "gem", "malformed");
    expect(decide(g.s, quorumCtx()).action).toMatchObject({ type: "packet", round: 2, restart_reason: "malformed" });
    const again = g
      .memberPacket(2, "codex", "openai", TWO_OF_TWO, { restart_of: 1, restart_reason: "malformed", counted_round: 2 })
      .memberPacket(2, "gem", "google", TWO_OF_TWO, { restart_of: 1, restart_reason: "malformed", counted_round: 2 })
      .memberVerdict(2, "codex", "pass")
      .memberFailure(2, "gem", "malformed");
    expect(decide(again.s, quorumCtx()).action).toMatchObject({ type: "escalation", reason: "malformed_termination_x2" });
  });

  it("a member naming bytes its packet never sent is malformed (it alone goes again), not a stale round every member redoes", () => {
    const g = issued()
      .memberVerdict(1, "codex", "pass")
      .memberVerdict(1, "gem", "sha", { artifact_sha256_reviewed: "c".repeat(64) });
    const d = decide(g.s, quorumCtx());
    expect(d.action).toMatchObject({ type: "packet", round: 2, restart_reason: "malformed" });
    expect(d.detail).toMatch(/names artifact_sha256_reviewed c{64}, not its packet's/);
    // bound to its packet's bytes, the artifact changed under it: the whole round restarts on the current bytes
    const stale = issued().memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "sha");
    expect(decide(stale.s, quorumCtx()).action).toMatchObject({ type: "packet", round: 2, restart_reason: "artifact_changed" });
  });

  it("a member naming bytes its packet never sent that blocks blocks the round: its findings are the author's, whatever passed", () => {
    // 2 of 3, two members passed: before, the blocking member was only malformed, decide() passed the round, and the
    // broker's own re-derivation (as check's) found it blocked and escalated no_verdict — a person asked about a blocker
    const rule = { need: 2, of: 3 };
    const elsewhere = { artifact_sha256_reviewed: "c".repeat(64) };
    const base = verdict(1, "sha");
    const blocks = {
      ...elsewhere,
      blocking_count: 1,
      gate_pass: {
        ...base.gate_pass,
        pass: false,
        conditions: { ...base.gate_pass.conditions, no_blockers: false },
        reasons: [...base.gate_pass.reasons, "1 blocking finding(s) remain"],
      },
    };
    const g = issued(rule)
      .memberPacket(1, "ds", "deepseek", rule)
      .memberVerdict(1, "codex", "pass")
      .memberVerdict(1, "gem", "pass")
      .memberVerdict(1, "ds", "sha", blocks);
    const d = decide(g.s, quorumCtx(rule));
    expect(d).toMatchObject({ state: "awaiting_author", round: 1, action: null });
    expect(d.detail).toContain("blocked by ds");
    // without a blocker it is the reviewer's mistake: K others that passed are the quorum
    const slip = issued(rule)
      .memberPacket(1, "ds", "deepseek", rule)
      .memberVerdict(1, "codex", "pass")
      .memberVerdict(1, "gem", "pass")
      .memberVerdict(1, "ds", "sha", elsewhere);
    expect(decide(slip.s, quorumCtx(rule)).action).toMatchObject({ type: "outcome", status: "satisfied" });
  });

  it("extend-cap after a malformed member at the cap starts the next round afresh (nothing for the author to revise)", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberFailure(1, "gem", "malformed");
    const atCap = quorumCtx(TWO_OF_TWO, { policy: { cap: 1 } });
    expect(decide(g.s, atCap).action).toMatchObject({ type: "escalation", reason: "cap_hit" });
    g.escalation(1, "cap_hit", ["force-pass", "extend-cap", "rework"]).decision(1, "extend-cap", 1);
    expect(decide(g.s, atCap).action).toMatchObject({ type: "packet", round: 2, counted_round: 2 });
  });

  it("a retry that still cannot fill the round writes nothing and waits, naming the missing family", () => {
    // round 1 got codex only (no second family), escalated unavailable; the human retried with nothing changed
    const g = gate().memberPacket(1, "codex", "openai", TWO_OF_TWO);
    g.escalation(1, "unavailable", ["retry", "force-pass", "rework"]).decision(1, "retry");
    const ctx = quorumCtx();
    const codex = { id: "codex", adapter: "codex" as const, model: "gpt-5", family: "openai" as const, selectable: true, available: true };
    const step = planStep(
      g.s,
      brokerInput(ctx, () => null, [codex]),
    );
    expect(step).toMatchObject({ type: "wait", decision: { state: "awaiting_author", round: 1 } });
    expect(step.type === "wait" && step.decision.detail).toMatch(/2 reviewers of distinct known families/);
  });

  it("a member whose round ended without a verdict escalates no_verdict: no paid review is dispatched twice", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberFailure(1, "gem", "no_verdict");
    // without its worker's end key nothing shows a review ran: no force-pass is offered
    expect(decide(g.s, quorumCtx()).action).toMatchObject({ type: "escalation", reason: "no_verdict", options: ["retry", "rework"] });
    const gem = g.s.members.get("gem")!;
    gem.failures.set(1, { ...gem.failures.get(1)!, end_key: "its worker's end key" });
    expect(decide(g.s, quorumCtx()).action).toMatchObject({ reason: "no_verdict", options: ["retry", "force-pass", "rework"] });
  });

  it("passes on different bytes never add up; bytes changed since the pass restart the round", () => {
    const split = issued()
      .memberVerdict(1, "codex", "pass")
      .memberVerdict(1, "gem", "pass", { gate_pass: { ...passed(), recomputed_sha256: SHA_B } });
    expect(decide(split.s, quorumCtx()).action).toMatchObject({ type: "packet", round: 2, restart_reason: "artifact_changed" });
    const both = issued().memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "pass");
    const changed = quorumCtx(TWO_OF_TWO, { artifact: { ok: true, sha: SHA_B, rawSha: SHA_B } });
    expect(decide(both.s, changed).action).toMatchObject({ type: "packet", restart_reason: "artifact_changed" });
  });

  it("after a resubmit the next round keeps the round's members", () => {
    const g = issued().memberVerdict(1, "codex", "blockers").memberVerdict(1, "gem", "pass").resubmit(1);
    const d = decide(g.s, quorumCtx(TWO_OF_TWO, { artifact: { ok: true, sha: SHA_B, rawSha: SHA_B } }));
    expect(d.action).toMatchObject({ type: "packet", round: 2, counted_round: 2 });
    const keep = (d.action as { quorum: { keep: Array<{ reviewer_provider: string }> } }).quorum.keep;
    expect(keep.map((p) => p.reviewer_provider)).toEqual(["codex", "gem"]);
  });

  it("the same merged blocking findings after a revision are a stall", () => {
    const keys = { blocking_keys: ["k1"] };
    const g = issued()
      .memberVerdict(1, "codex", "blockers", keys)
      .memberVerdict(1, "gem", "pass")
      .resubmit(1)
      .memberPacket(2, "codex", "openai", TWO_OF_TWO, { counted_round: 2, artifact_sha256: SHA_B })
      .memberPacket(2, "gem", "google", TWO_OF_TWO, { counted_round: 2, artifact_sha256: SHA_B })
      .memberVerdict(2, "codex", "pass")
      .memberVerdict(2, "gem", "blockers", keys);
    const ctx = quorumCtx(TWO_OF_TWO, { policy: { stallDetection: true } });
    const d = decide(g.s, ctx);
    expect(d.action).toMatchObject({ type: "escalation", reason: "stalled", stall: { pattern: "repeated_findings", rounds: [1, 2] } });
    // the broker's escalation names the repeated findings from every member's result, merged
    const finding = (title: string) => ({
      packet_id: "p",
      artifact_sha256_reviewed: SHA_B,
      verdict: "issues",
      blocking_findings: [{ title }],
    });
    const results: ResultLookup = (n, member) =>
      n === 2 && member === "gem" ? finding("No rollback") : n === 2 && member === "codex" ? finding("no rollback.") : null;
    const step = planStep(g.s, brokerInput(ctx, results, null));
    expect(step.type === "write" && Escalation.parse(JSON.parse(step.text)).stall!.findings).toEqual([{ title: "no rollback." }]);
  });

  // A blocker fails the round whatever the other members did (rule 2): the author was handed those findings, so the
  // round is judged for stall detection even when a member ended without a verdict.
  it.each(["unavailable", "malformed", "no_verdict"] as const)(
    "a member repeating its blockers while another keeps ending %s is a stall, not a loop to the cap",
    (ending) => {
      const keys = { blocking_keys: ["k1"] };
      const g = issued()
        .memberVerdict(1, "codex", "blockers", keys)
        .memberFailure(1, "gem", ending)
        .resubmit(1)
        .memberPacket(2, "codex", "openai", TWO_OF_TWO, { counted_round: 2, artifact_sha256: SHA_B })
        .memberPacket(2, "gem", "google", TWO_OF_TWO, { counted_round: 2, artifact_sha256: SHA_B })
        .memberVerdict(2, "codex", "blockers", keys)
        .memberFailure(2, "gem", ending);
      const d = decide(g.s, quorumCtx(TWO_OF_TWO, { policy: { stallDetection: true } }));
      expect(d.action).toMatchObject({ type: "escalation", reason: "stalled", stall: { pattern: "repeated_findings", rounds: [1, 2] } });
    },
  );

  it("a member's lowest score is not the round's when another member ended without a verdict: no score regression from it", () => {
    const scored = (score: number) => ({
      score_gate: { available: true, positive: false, score, readiness: "almost" as const, reasons: [] },
    });
    let g = issued();
    // round 1 whole (lowest 8), rounds 2 and 3 only codex scored (7, 6) with gem unavailable: not three whole rounds
    g = g.memberVerdict(1, "codex", "blockers", { blocking_keys: ["a"], ...scored(9) }).memberVerdict(1, "gem", "pass", scored(8));
    for (const [round, key, score] of [
      [2, "b", 7],
      [3, "c", 6],
    ] as const) {
      g = g
        .resubmit(round - 1)
        .memberPacket(round, "codex", "openai", TWO_OF_TWO, {
          counted_round: round,
          artifact_sha256: round === 2 ? SHA_B : SHA_A,
          stop: "score",
        })
        .memberPacket(round, "gem", "google", TWO_OF_TWO, {
          counted_round: round,
          artifact_sha256: round === 2 ? SHA_B : SHA_A,
          stop: "score",
        })
        .memberVerdict(round, "codex", "blockers", { blocking_keys: [key], ...scored(score) })
        .memberFailure(round, "gem", "unavailable");
    }
    const d = decide(g.s, quorumCtx(TWO_OF_TWO, { policy: { stallDetection: true, stop: "score" } }));
    expect(d).toMatchObject({ state: "awaiting_author", round: 3 });
  });
});

/** The broker's input over an artifact at SHA_A: results from `results`, nothing else on disk. */
function brokerInput(ctx: DecideContext, results: ResultLookup, providers: Provider[] | null): BrokerInput {
  return {
    settings: {},
    policy: ctx.policy,
    codexSkip: ctx.codexSkip,
    reads: {
      artifact: () => ({ ok: true, text: "", sha: SHA_A, rawSha: SHA_A }),
      artifactNow: () => ({ ok: true, text: "", sha: SHA_A, rawSha: SHA_A }),
      result: results,
      resultBytes: () => ({ ok: false, reason: "none" }),
      text: () => "",
      decisions: () => new Map(),
      rejected: () => [],
    },
    providers,
    now: "2026-01-01T00:00:00.000Z",
    trailPath: "trail.md",
  };
}

function passed() {
  return {
    pass: true,
    conditions: { parses: true, packet_id_match: true, sha256_match: true, satisfied: true, no_blockers: true },
    recomputed_sha256: SHA_A,
    reasons: [],
  };
}
function notSatisfied() {
  return {
    ...passed(),
    pass: false,
    conditions: { ...passed().conditions, satisfied: false },
    reasons: ['verdict is "issues", not "satisfied"'],
  };
}

describe("decide: the quorum rule over every mix of member endings (property)", () => {
  const FAMILIES: Family[] = ["openai", "google", "deepseek", "anthropic", "unknown"];
  type Ending = VerdictKind | "not_satisfied" | "other_sha" | "malformed" | "unavailable" | "no_verdict" | "pending";
  const ENDINGS: Ending[] = [
    "pass",
    "pass",
    "issues",
    "blockers",
    "sha",
    "unparsed",
    "not_satisfied",
    "other_sha",
    "malformed",
    "unavailable",
    "no_verdict",
    "pending",
  ];
  const member = fc.record({ reported: fc.constantFrom(...FAMILIES), ending: fc.constantFrom(...ENDINGS), sealed: fc.boolean() });

  it("satisfied exactly when every member ended, none blocks, and K distinct counting families passed on the current bytes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(member, { minLength: 1, maxLength: 4 }),
        fc.option(fc.constantFrom<KnownFamily>("openai", "google"), { nil: undefined }),
        (needRaw, members, namedFamily) => {
          const of = members.length;
          const need = Math.min(needRaw, of);
          const rule: QuorumRule = { need, of, ...(namedFamily ? { families: [namedFamily] } : {}) };
          const g = gate();
          members.forEach((m, i) => {
            const id = `m${i}`;
            g.memberPacket(1, id, "openai", rule);
            if (m.ending === "pending") return;
            if (m.ending === "malformed" || m.ending === "unavailable" || m.ending === "no_verdict")
              return void g.memberFailure(1, id, m.ending);
            if (m.ending === "not_satisfied")
              return void g.memberVerdict(1, id, "pass", { gate_pass: notSatisfied(), reviewer_family: m.reported });
            if (m.ending === "other_sha")
              return void g.memberVerdict(1, id, "pass", {
                gate_pass: { ...passed(), recomputed_sha256: SHA_B },
                reviewer_family: m.reported,
              });
            g.memberVerdict(1, id, m.ending, { reviewer_family: m.reported, independence_violation: m.sealed });
          });
          const d = decide(g.s, quorumCtx(rule));
          const satisfied = d.action?.type === "outcome" && d.action.status === "satisfied";
          // the rule stated directly: all ended, nobody blocks, no member ended without a verdict, one set of bytes
          const ended = members.every((m) => m.ending !== "pending");
          const blocks = members.some((m) => m.ending === "issues" || m.ending === "blockers");
          const passing = members
            .filter((m) => m.ending === "pass" && m.reported !== "unknown" && m.reported !== "anthropic" && !m.sealed)
            .map((m) => m.reported);
          const families = new Set(passing);
          const bytes = members.some((m) => m.ending === "other_sha" || m.ending === "sha");
          const model =
            ended &&
            !blocks &&
            !members.some((m) => m.ending === "no_verdict") &&
            !bytes &&
            families.size >= need &&
            (namedFamily === undefined || families.has(namedFamily));
          expect(satisfied).toBe(model);
          if (satisfied) {
            const counted = (d.action as { quorum: Array<{ family: Family }> }).quorum.map((c) => c.family);
            expect(new Set(counted).size).toBe(counted.length);
            expect(counted.length).toBeGreaterThanOrEqual(need);
            expect(counted).not.toContain("anthropic");
          }
          if (!ended) expect(d.action).toBeNull();
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe("a quorum member's packet", () => {
  it("lists earlier rounds only, not the members issued before it in its own round", () => {
    const g = issued()
      .memberVerdict(1, "codex", "blockers")
      .memberVerdict(1, "gem", "pass")
      .resubmit(1)
      .memberPacket(2, "codex", "openai", TWO_OF_TWO, { counted_round: 2 });
    const ctx = quorumCtx(TWO_OF_TWO, { artifact: { ok: true, sha: SHA_B, rawSha: SHA_B } });
    const providers: Provider[] = [
      { id: "codex", adapter: "codex", model: "gpt-5", family: "openai", selectable: true, available: true },
      { id: "gem", adapter: "gemini", model: "gemini-2.5-pro", family: "google", selectable: true, available: true },
    ];
    const step = planStep(
      g.s,
      brokerInput(ctx, () => null, providers),
    );
    expect(step).toMatchObject({ type: "write", name: "packet-2.gem.md" });
    const text = step.type === "write" ? step.text : "";
    expect(text).toContain("### Round 1 — reviewer codex");
    expect(text).not.toMatch(/^### Round 2/m);
  });
});

describe("the broker's own stall at a quorum round's resubmit", () => {
  it("stays the broker's when a member blocked and another's verdict was for bytes that changed under it", () => {
    const ctx = quorumCtx(TWO_OF_TWO, { policy: { stallDetection: true } });
    const g = issued().memberVerdict(1, "codex", "blockers").memberVerdict(1, "gem", "sha");
    expect(decide(g.s, ctx)).toMatchObject({ state: "awaiting_author", round: 1 });
    g.resubmit(1); // the bytes round 1 sent, again
    const d = decide(g.s, ctx);
    expect(d.action).toMatchObject({ type: "escalation", reason: "stalled", stall: { pattern: "unchanged_resubmit" } });
    g.s.escalations.set(1, escalationRecord(g.s, d.action as EscalationAction, AT));
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toBeNull();
  });
});

describe("an unavailable escalation on a quorum round", () => {
  const stray = (g: ReturnType<typeof issued>, round = 1) => g.escalation(round, "unavailable", ["retry", "force-pass", "rework"]);

  it.each([
    ["every member passed", () => issued().memberVerdict(1, "codex", "pass").memberVerdict(1, "gem", "pass"), TWO_OF_TWO],
    [
      "the rule met with a member unavailable",
      () =>
        issued({ need: 2, of: 3 })
          .memberPacket(1, "ds", "deepseek", { need: 2, of: 3 })
          .memberVerdict(1, "codex", "pass")
          .memberVerdict(1, "gem", "pass")
          .memberFailure(1, "ds", "unavailable"),
      { need: 2, of: 3 },
    ],
  ] as const)("is not the broker's once the round met its rule (%s): it ends satisfied", (_, make, rule) => {
    const g = make();
    const ctx = quorumCtx(rule);
    expect(decide(g.s, ctx).action).toMatchObject({ type: "outcome", status: "satisfied" });
    stray(g);
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toMatch(/^not the broker's: unavailable at round 1 needs/);
  });

  it("is the broker's when the degraded replacement cannot be selected, or falls short", () => {
    const g = issued().memberVerdict(1, "codex", "pass").memberFailure(1, "gem", "unavailable");
    stray(g);
    expect(foreignEscalationProblem(g.s, quorumCtx(), () => true)).toBeNull();
    g.s.escalations.delete(1);
    g.memberPacket(2, "codex", "openai", TWO_OF_TWO, { restart_of: 1, restart_reason: "degraded", counted_round: 1 })
      .memberPacket(2, "ds", "deepseek", TWO_OF_TWO, { restart_of: 1, restart_reason: "degraded", counted_round: 1 })
      .memberVerdict(2, "codex", "pass")
      .memberFailure(2, "ds", "unavailable");
    const d = decide(g.s, quorumCtx());
    expect(d.action).toMatchObject({ type: "escalation", reason: "unavailable" });
    g.s.escalations.set(2, escalationRecord(g.s, d.action as EscalationAction, AT));
    expect(foreignEscalationProblem(g.s, quorumCtx(), () => true)).toBeNull();
  });

  it("is not the broker's on a round a member blocked (a checkpoint there; the next round keeps its members)", () => {
    const g = issued().memberVerdict(1, "codex", "blockers").memberFailure(1, "gem", "unavailable");
    const ctx = quorumCtx(TWO_OF_TWO, { policy: { humanCheckpoint: true } });
    expect(decide(g.s, ctx).action).toMatchObject({ type: "escalation", reason: "human_checkpoint" });
    stray(g);
    expect(foreignEscalationProblem(g.s, ctx, () => true)).toMatch(/^not the broker's: unavailable at round 1 needs/);
  });
});
