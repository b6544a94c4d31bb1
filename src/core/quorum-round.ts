// A quorum round judged (SPEC §26): each member's files judged as a single reviewer's would be, then the round as a
// whole — any blocker fails it, K distinct counting families passing on one artifact sha pass it, and a member that
// could not review restarts the round (or escalates, naming the families that are missing).
import { UNPROVEN_END_OPTIONS, unprovenEnd } from "./result-slot.js";
import type { DecisionChoice, EscalationReason, PacketFrontMatter, QuorumRule, StopPolicy, VerdictFile } from "../spec/schemas.js";
import { failReasons, malformedEnd, namesUnsentBytes, verdictBlocks, verdictPasses } from "./verdict-pass.js";
import { roundMembers } from "./gate-queries.js";
import { judgeQuorum, type QuorumJudgement } from "./quorum.js";
import type { GateSnapshot, ReviewSlots } from "./snapshot.js";

/** How one member's part of a round ended, or that it has not yet. */
export type MemberState =
  | { kind: "pending"; waiting: "reviewing" | "dispatched" | "normalizing" | "verifying" }
  | { kind: "pass"; verdict: VerdictFile }
  /** Bound to its packet and the bytes, and it blocks (blocking findings, or an upheld contested one). */
  | { kind: "blocked"; verdict: VerdictFile; why: string }
  /** Bound, no blockers, and still not a pass (the verdict or the score says no). */
  | { kind: "not_passed"; verdict: VerdictFile; why: string }
  | { kind: "score_unavailable"; verdict: VerdictFile; why: string }
  /** Reviewed other bytes than the artifact's when it was verified. */
  | { kind: "stale"; verdict: VerdictFile; why: string }
  | { kind: "malformed" | "unavailable" | "no_verdict"; why: string };

export function memberState(slots: ReviewSlots, round: number, stop: StopPolicy): MemberState {
  const broken = slots.brokenSeals.get(round);
  if (broken !== undefined) return { kind: "no_verdict", why: broken };
  const failure = slots.failures.get(round);
  if (failure) return { kind: failure.kind, why: failure.reason };
  const verdict = slots.verdicts.get(round);
  if (!verdict) {
    if (slots.results.has(round)) return { kind: "pending", waiting: "verifying" };
    if (slots.responses.has(round)) return { kind: "pending", waiting: "normalizing" };
    return { kind: "pending", waiting: slots.attempts.has(round) ? "dispatched" : "reviewing" };
  }
  const c = verdict.gate_pass.conditions;
  if (verdictPasses(verdict, stop)) return { kind: "pass", verdict };
  // a member that named bytes its packet never sent answered wrongly: it alone goes again, not every paid member
  const malformed = malformedEnd(slots, round, { member: true });
  if (malformed !== null) return { kind: "malformed", why: malformed };
  const why = failReasons(verdict, stop).join("; ");
  // unless it blocks: its findings are of the bytes it was sent, and a blocker from any reviewer closes the round (as
  // `check` judges it; the others' passes never outweigh it)
  const packet = slots.packets.get(round);
  if (packet && namesUnsentBytes(verdict, packet)) return { kind: "blocked", verdict, why };
  if (!c.sha256_match) return { kind: "stale", verdict, why };
  if (verdictBlocks(verdict)) return { kind: "blocked", verdict, why };
  if (stop === "score" && !verdict.score_gate?.available) return { kind: "score_unavailable", verdict, why };
  return { kind: "not_passed", verdict, why };
}

export interface QuorumMemberRound {
  provider: string;
  packet: PacketFrontMatter;
  state: MemberState;
}

/** Round R's members and how each ended. */
export function quorumMembers(s: GateSnapshot, round: number, stop: StopPolicy): QuorumMemberRound[] {
  return roundMembers(s, round).map(([provider, packet]) => ({
    provider,
    packet,
    state: memberState(s.members.get(provider)!, round, stop),
  }));
}

/** The rule over the members' verdicts: which passes count, on which sha, what is missing. */
export function judgeMembers(
  rule: QuorumRule,
  authorFamily: PacketFrontMatter["author_family"],
  members: QuorumMemberRound[],
): QuorumJudgement {
  return judgeQuorum(
    rule,
    authorFamily,
    members.map(({ provider, packet, state }) => {
      const verdict = "verdict" in state ? state.verdict : null;
      return {
        provider,
        family: verdict?.reviewer_family ?? packet.reviewer_family,
        passed: state.kind === "pass",
        violation: verdict?.independence_violation === true,
        blocking: state.kind === "blocked",
        sha: verdict?.gate_pass.recomputed_sha256 ?? null,
      };
    }),
  );
}

/** What is missing for the rule, in words: the named families, or how many more families. */
export function shortfall(j: QuorumJudgement): string {
  const named = j.missingFamilies.length ? ` (missing ${j.missingFamilies.join(", ")})` : "";
  return `${j.missingCount} more passing famil${j.missingCount === 1 ? "y" : "ies"} needed${named}`;
}

/** The round's disposition, for decide() to turn into its action. */
export type QuorumVerdict =
  | { type: "wait"; waiting: "reviewing" | "dispatched" | "normalizing" | "verifying"; detail: string }
  | { type: "pass"; judgement: QuorumJudgement }
  | { type: "fail"; why: string }
  /** `members`: the ones whose part ended so (the malformed, the unavailable to replace). */
  | { type: "restart"; reason: "artifact_changed" | "malformed" | "degraded"; why: string; members: string[] }
  | { type: "escalate"; reason: EscalationReason; detail: string; options?: DecisionChoice[] };

const SEALED_VIOLATION =
  "its verdict sealed an independence violation " +
  "(under the settings when it was verified, its reviewer was of the author's family or of none)";
const WAIT_ORDER = ["reviewing", "dispatched", "normalizing", "verifying"] as const;
const list = (ms: QuorumMemberRound[], f: (m: QuorumMemberRound) => string) => ms.map((m) => `${m.provider}: ${f(m)}`).join("; ");
const whyOf = (m: QuorumMemberRound) => ("why" in m.state ? m.state.why : m.state.kind);

/**
 * Round R of a quorum gate, once every member's packet is out. Order: wait for every member (a pending one may
 * still block); a blocker fails the round (the author has findings to act on); a member whose round ended without a
 * verdict escalates as a single reviewer's would; bytes that changed restart; then the rule; then members that could
 * not review restart the round (malformed, unavailable: replaced); otherwise the round did not pass.
 */
export function judgeQuorumRound(s: GateSnapshot, R: number, P: PacketFrontMatter, stop: StopPolicy): QuorumVerdict {
  const rule = P.quorum!;
  const members = quorumMembers(s, R, stop);
  const pending = members.filter((m) => m.state.kind === "pending");
  if (pending.length) {
    const least = WAIT_ORDER.find((w) => pending.some((m) => m.state.kind === "pending" && m.state.waiting === w))!;
    const done = members.length - pending.length;
    return {
      type: "wait",
      waiting: least,
      detail:
        `quorum ${rule.need}/${rule.of}: ${done} of ${members.length} reviewers done; ` +
        `waiting for ${list(pending, (m) => (m.state as { waiting: string }).waiting)}`,
    };
  }
  const of = (kind: MemberState["kind"]) => members.filter((m) => m.state.kind === kind);
  const blocked = of("blocked");
  if (blocked.length) return { type: "fail", why: `blocked by ${list(blocked, whyOf)}` };
  const noVerdict = of("no_verdict");
  if (noVerdict.length) {
    // a member's failure without its worker's end key shows no review ran: no force-pass is offered on it
    const unproven = noVerdict.some((m) => {
      const failure = s.members.get(m.provider)?.failures.get(R);
      return failure !== undefined && unprovenEnd(m.packet, failure);
    });
    return {
      type: "escalate",
      reason: "no_verdict",
      detail: list(noVerdict, whyOf),
      ...(unproven ? { options: UNPROVEN_END_OPTIONS } : {}),
    };
  }
  const stale = of("stale");
  if (stale.length)
    return { type: "restart", reason: "artifact_changed", why: `artifact changed mid-review (${list(stale, whyOf)})`, members: [] };
  // members verified against different bytes (the artifact changed between them): their reviews never add up
  const shas = new Set(members.flatMap((m) => ("verdict" in m.state ? [m.state.verdict.gate_pass.recomputed_sha256] : [])));
  if (shas.size > 1)
    return {
      type: "restart",
      reason: "artifact_changed",
      why: `the reviewers verified different artifact bytes (${[...shas].join(", ")})`,
      members: [],
    };
  const judgement = judgeMembers(rule, P.author_family, members);
  if (judgement.pass) return { type: "pass", judgement };
  const malformed = of("malformed");
  if (malformed.length)
    return { type: "restart", reason: "malformed", why: list(malformed, whyOf), members: malformed.map((m) => m.provider) };
  const unavailable = of("unavailable");
  if (unavailable.length) {
    const why = `unavailable: ${list(unavailable, whyOf)}`;
    // one replacement round; a second unavailable round is a human's (as for a single reviewer)
    if (P.restart_reason === "degraded") return { type: "escalate", reason: "unavailable", detail: `${why}; ${shortfall(judgement)}` };
    return { type: "restart", reason: "degraded", why, members: unavailable.map((m) => m.provider) };
  }
  const scoreless = of("score_unavailable");
  if (scoreless.length) return { type: "escalate", reason: "score_unavailable", detail: `no usable score from ${list(scoreless, whyOf)}` };
  const notPassed = of("not_passed");
  // a pass whose verdict sealed a violation stays as sealed: the settings since never make its member count (§26)
  const sealed = members.filter((m) => m.state.kind === "pass" && m.state.verdict.independence_violation);
  const uncounted = sealed.length ? `; ${list(sealed, () => SEALED_VIOLATION)}` : "";
  // every member passed its own five conditions, yet their families do not make the quorum: no revision fixes that
  if (!notPassed.length)
    return {
      type: "escalate",
      reason: "identity_unverified",
      detail:
        `every reviewer passed, but the families that count fall short: ${shortfall(judgement)} ` +
        `(the author's family and unknown never count)${uncounted}`,
    };
  return { type: "fail", why: `quorum ${rule.need}/${rule.of} not met: ${shortfall(judgement)}; ${list(notPassed, whyOf)}${uncounted}` };
}
