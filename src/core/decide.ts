// The round loop as one pure function: a gate snapshot and the resolved policy in, the gate's state and the
// broker's next action out. No I/O here; the broker worker executes the action and calls decide again.
import { UNPROVEN_END_OPTIONS, unprovenEnd } from "./result-slot.js";
import type {
  DecisionChoice,
  Escalation,
  EscalationReason,
  PacketFrontMatter,
  QuorumRule,
  Settings,
  StallEvidence,
  StopPolicy,
  VerdictFile,
} from "../spec/schemas.js";
import type { ArtifactView } from "./artifact-view.js";
import type { ResolvedPolicy } from "./policy.js";
import { type GateSnapshot, noRequestText } from "./snapshot.js";
import {
  contestRefusal,
  effectiveCap,
  gatePolicy,
  offers,
  openRound,
  roundMembers,
  roundPacket,
  roundVerdicts,
  validDecision,
} from "./gate-queries.js";
import { judgeQuorumRound, quorumMembers } from "./quorum-round.js";
import { endedMalformed, malformedTwice } from "./malformed-rule.js";
import type { QuorumJudgement } from "./quorum.js";
import { judgedChain, stallAfterVerdict, stallAtResubmit, stallDetail } from "./stall.js";
import { failReasons, malformedEnd, namesItsPacket, verdictBlocks, verdictPasses } from "./verdict-pass.js";
import { changedSinceSent, passNoLongerHolds } from "./sent-bytes.js";
import { authorIdentity } from "./selection.js";
import { type HeldSlot, heldSlots, heldWords } from "./held-round.js";
import { issuedFamilyMaps } from "./family.js";

export type OutcomeAction = {
  type: "outcome";
  status: "satisfied" | "skipped" | "force_passed" | "rework" | "stopped";
  reason: string;
  round: number;
  independence?: "strong" | "weak";
  /** A satisfied quorum gate: the members whose passes counted (SPEC §26). */
  quorum?: QuorumJudgement["counted"];
  /** The reason names the reviewer's model: the outcome adds where that name came from (its identity_assurance). */
  namesModel?: true;
};
export type PacketAction = {
  type: "packet";
  round: number;
  counted_round: number;
  restart_of: number | null;
  restart_reason: PacketFrontMatter["restart_reason"];
  cap: number;
  /** The packet whose reviewer selection is reused; null to select now (first packet, or after an unavailable one). */
  inherit: PacketFrontMatter | null;
  /** Providers a new selection must not pick (they proved unavailable in this gate). */
  exclude?: string[];
  /** Why the excluded provider could not run (its failure's reason), quoted when nobody else can review. */
  excludeWhy?: string;
  /** A quorum round: its rule, the members it keeps from the round it follows, and the providers it must not pick. */
  quorum?: QuorumIssue;
};
export interface QuorumIssue {
  rule: QuorumRule;
  keep: PacketFrontMatter[];
  exclude: string[];
}
export type EscalationAction = {
  type: "escalation";
  round: number;
  reason: EscalationReason;
  detail: string;
  options: DecisionChoice[];
  /** Reason stalled: what shows it. */
  stall?: StallEvidence;
};
export type Action = OutcomeAction | PacketAction | EscalationAction;

export type GateStateName =
  "no_request" | "done" | "broker" | "reviewing" | "dispatched" | "normalizing" | "verifying" | "awaiting_author" | "awaiting_decision";

export interface GateDecision {
  state: GateStateName;
  round: number;
  action: Action | null;
  detail: string;
  /** The open round's slots whose named worker waits for the broker to act first (`heldSlots`): status names the broker. */
  held?: HeldSlot[];
}

export interface DecideContext {
  policy: ResolvedPolicy;
  codexSkip: { blocked: boolean; enforcement: "warn" | "block" };
  /** Asked only when a decision needs the artifact (a packet, a pass): waiting states never read it. */
  artifact: () => ArtifactView;
  /** The sha of the family maps the broker issues this gate's packets under now (SPEC §7): one lost it writes again. */
  mapsNow?: string;
}

const CAP_OPTIONS: DecisionChoice[] = ["force-pass", "extend-cap", "rework"];
export const RETRY_OPTIONS: DecisionChoice[] = ["retry", "force-pass", "rework"];
const CHECKPOINT_OPTIONS: DecisionChoice[] = ["continue", "stop", "rework"];
/** The artifact is missing, too large or not text: once it is fixed, retry starts the round again. */
export const ARTIFACT_OPTIONS: DecisionChoice[] = ["retry", "rework"];

function act(action: Action, detail: string): GateDecision {
  return { state: "broker", round: action.round, action, detail };
}
function wait(state: GateStateName, round: number, detail: string, held: HeldSlot[] = []): GateDecision {
  return { state, round, action: null, detail, ...(held.length ? { held } : {}) };
}

function consecutiveRestarts(snapshot: GateSnapshot, round: number): number {
  let n = 0;
  // Follow only strictly earlier rounds: a packet file whose restart_of points at itself or forward must not hang the broker.
  for (
    let p = roundPacket(snapshot, round);
    p?.restart_reason === "artifact_changed" && p.restart_of !== null && p.restart_of < p.round;
    p = roundPacket(snapshot, p.restart_of)
  )
    n++;
  return n;
}

/** Another round would likely be read no better: the person deciding is told where to look first. */
const MALFORMED_TWICE_HINT =
  " — the reviewer's answers could not be read twice: check its model and settings (`guild-bus providers`, the workers' log) " +
  "before extend-cap";

export function decide(snapshot: GateSnapshot, ctx: DecideContext): GateDecision {
  if (snapshot.outcome) return wait("done", snapshot.outcome.final_round, `outcome ${snapshot.outcome.status}`);
  if (!snapshot.request) return wait("no_request", 0, noRequestText(snapshot));
  const R = openRound(snapshot);
  const cap = effectiveCap(snapshot, ctx.policy);
  const next = (p: PacketFrontMatter, counted: number, restartOf: number | null, reason: PacketAction["restart_reason"]): PacketAction => ({
    type: "packet",
    round: R + 1,
    counted_round: counted,
    restart_of: restartOf,
    restart_reason: reason,
    cap,
    inherit: p.quorum ? null : p,
    ...(p.quorum ? { quorum: quorumIssue(snapshot, p.quorum, R, reason, p.stop) } : {}),
  });
  const escalate = (reason: EscalationReason, detail: string, options: DecisionChoice[]) =>
    act({ type: "escalation", round: R, reason, detail, options }, detail);
  // A stall is answered like the cap: extend-cap goes on (and grants more rounds), force-pass or rework end the gate.
  const stalled = (stall: StallEvidence) => {
    const detail = stallDetail(stall);
    return act({ type: "escalation", round: R, reason: "stalled", detail, options: CAP_OPTIONS, stall }, detail);
  };
  // Every packet embeds the artifact: one that cannot be read is a human's to fix, never a packet retried forever.
  const issue = (packet: PacketAction, detail: string): GateDecision => {
    const a = ctx.artifact();
    if (a.ok) return act(packet, detail);
    if (snapshot.escalations.has(R))
      return wait("awaiting_author", R, `${a.problem.replace("_", " ")}: ${a.detail} — fix it and the round starts`);
    return escalate(a.problem, a.detail, ARTIFACT_OPTIONS);
  };

  if (R === 0) {
    if (!ctx.policy.required)
      return act({ type: "outcome", status: "skipped", reason: `review not required (${ctx.policy.requiredBecause})`, round: 0 }, "skip");
    const esc = snapshot.escalations.get(0);
    const decided = validDecision(snapshot, 0)?.choice ?? null;
    if (decided === "rework") {
      const reason =
        esc!.reason === "codex_skip_blocked" ? "rework chosen at the codex-skip block" : `human chose rework after ${esc!.reason}`;
      return act({ type: "outcome", status: "rework", reason, round: 0 }, "rework");
    }
    const blocked = ctx.codexSkip.blocked && ctx.codexSkip.enforcement === "block";
    // Only the codex-skip block lifts on its own (its sentinel clears); any other round-0 escalation waits for a human.
    if (esc && decided !== "override" && decided !== "retry" && (esc.reason !== "codex_skip_blocked" || blocked)) {
      return wait("awaiting_decision", 0, `escalation: ${esc.reason} — ${esc.detail}`);
    }
    if (ctx.policy.refusal) {
      // Never a packet the request cannot be served by; a round-0 slot already used waits until the request or settings change.
      return esc
        ? wait("awaiting_decision", 0, `request refused: ${ctx.policy.refusal}`)
        : escalate("request_refused", ctx.policy.refusal, ["rework"]);
    }
    if (!esc && blocked)
      return escalate("codex_skip_blocked", "codex-skip streak is blocked and codex_skip_enforcement=block", ["override", "rework"]);
    const quorum = ctx.policy.quorum ? { quorum: { rule: ctx.policy.quorum, keep: [], exclude: [] } } : {};
    return issue(
      { type: "packet", round: 1, counted_round: 1, restart_of: null, restart_reason: null, cap, inherit: null, ...quorum },
      ctx.policy.quorum ? `first packets (quorum ${ctx.policy.quorum.need}/${ctx.policy.quorum.of})` : "first packet",
    );
  }

  const P = roundPacket(snapshot, R)!;
  const verdict = snapshot.verdicts.get(R);
  // The author's turn after a round that did not pass: contest its findings once, or revise and resubmit.
  // A human who answered round R's escalation has seen the round: only an unanswered resubmit is checked for a stall.
  const authorTurn = (waiting: string, resubmitted = "author resubmitted", checkStall = false): GateDecision => {
    if (snapshot.rebuttals.has(R) && contestRefusal(snapshot, R, ctx.policy) === null) {
      // A ruling may only uphold or withdraw round R's findings, so it must judge the bytes round R sent: on edited
      // bytes it would pass new text its reviewer was told not to block. An edited artifact gets a full round.
      if (changedSinceSent(P, ctx.artifact()))
        return issue(
          next(P, P.counted_round + 1, null, null),
          `the artifact changed since round ${R} was sent: a full round reviews it (a ruling judges only round ${R}'s bytes)`,
        );
      return issue(next(P, P.counted_round, R, "ruling"), `the author contested round ${R}'s findings: the reviewer rules`);
    }
    if (snapshot.resubmits.has(R)) {
      const now = checkStall && ctx.policy.stallDetection ? ctx.artifact() : null;
      const stall = now?.ok ? stallAtResubmit(snapshot, R, now) : null;
      if (stall) return stalled(stall);
      return issue(next(P, P.counted_round + 1, null, null), resubmitted);
    }
    return wait("awaiting_author", R, waiting);
  };
  const esc = snapshot.escalations.get(R);
  if (esc) {
    const dec = validDecision(snapshot, R);
    if (!dec) {
      const changed =
        offers(esc, "force-pass") && changedSinceSent(P, ctx.artifact())
          ? ` (the artifact changed since round ${R} was sent: a force-pass passes the bytes round ${R} sent, not these)`
          : "";
      return wait("awaiting_decision", R, `escalation: ${esc.reason} — ${esc.detail}${changed}`);
    }
    switch (dec.choice) {
      case "force-pass":
        // it passes the bytes round R sent (its outcome binds them), whatever the artifact holds by now (SPEC §17)
        return act({ type: "outcome", status: "force_passed", reason: `human force-pass after ${esc.reason}`, round: R }, "force-pass");
      case "rework":
        return act({ type: "outcome", status: "rework", reason: `human chose rework after ${esc.reason}`, round: R }, "rework");
      case "retry":
        // a retried ruling rules again on the findings the author contested (once per counted round: it stays final),
        // while the artifact holds the bytes they were found in; on edited bytes it is an ordinary retry, as before
        if (P.restart_reason === "ruling" && P.restart_of !== null && P.restart_of < R && !changedSinceSent(P, ctx.artifact()))
          return issue(next(P, P.counted_round, P.restart_of, "ruling"), `retry: the reviewer rules on round ${P.restart_of}'s findings`);
        return issue(next(P, P.counted_round, R, "retry"), "retry");
      case "stop":
        return act({ type: "outcome", status: "stopped", reason: `human stopped the loop after ${esc.reason}`, round: R }, "stop");
      case "continue":
        return authorTurn(`continue after round ${R}: revise the artifact and resubmit`);
      case "extend-cap":
        // After a malformed ending there is nothing for the author to revise: the next round starts afresh.
        if ((esc.reason !== "cap_hit" && esc.reason !== "stalled") || endedMalformed(snapshot, R, P, P.stop ?? ctx.policy.stop)) {
          return issue(next(P, P.counted_round + 1, null, null), "extended after a malformed round");
        }
        return authorTurn("cap extended: revise the artifact and resubmit", "next round after extension");
      default:
        return wait("awaiting_decision", R, `decision ${dec.choice} does not apply`);
    }
  }

  // A stale review never passes: the bytes on disk now must be the bytes the verifier hashed (SPEC §11).
  const restart = (why: string): GateDecision => {
    if (consecutiveRestarts(snapshot, R) >= ctx.policy.restartCap) {
      return escalate("restart_cap_hit", `artifact changed mid-review ${ctx.policy.restartCap + 1} times in a row`, RETRY_OPTIONS);
    }
    return issue(next(P, P.counted_round, R, "artifact_changed"), why);
  };
  // A round that did not pass: the cap, then a human who checks every round (they see a stall there), then a stall.
  const notPassed = (why: string, stop: PacketFrontMatter["stop"] & {}): GateDecision => {
    if (P.counted_round >= cap) return escalate("cap_hit", `round cap ${cap} reached with ${why}`, CAP_OPTIONS);
    if (ctx.policy.humanCheckpoint)
      return escalate("human_checkpoint", `round ${R} did not pass (${why}): continue, stop or rework`, CHECKPOINT_OPTIONS);
    const stall = ctx.policy.stallDetection ? stallAfterVerdict(snapshot, R, stop) : null;
    if (stall) return stalled(stall);
    return authorTurn(why, undefined, true);
  };
  // The malformed rule: a second malformed termination in a row is a human's; otherwise the cap, then a fresh round.
  const malformed = (why: string): GateDecision => {
    const twice = malformedTwice(snapshot, R, P, P.stop ?? ctx.policy.stop);
    if (twice) {
      const from = twice.length ? ` from ${twice.join(", ")}` : "";
      return escalate("malformed_termination_x2", `two malformed terminations in a row${from}: ${why}${MALFORMED_TWICE_HINT}`, CAP_OPTIONS);
    }
    if (P.counted_round >= cap) return escalate("cap_hit", `round cap ${cap} reached (last round malformed: ${why})`, CAP_OPTIONS);
    return issue(next(P, P.counted_round + 1, R, "malformed"), `malformed: ${why}`);
  };
  // the bytes on disk must be those every counted verdict hashed, and the raw file the one the packets embedded
  const unchangedSince = (sha: string, packets: PacketFrontMatter[]): GateDecision | null => {
    const current = ctx.artifact();
    if (!current.ok) return escalate(current.problem, current.detail, ARTIFACT_OPTIONS);
    if (current.sha !== sha)
      return restart(`artifact changed after round ${R} was verified (verified ${sha}, now ${current.sha}): restart on the current bytes`);
    const raw = packets.find((p) => p.artifact_raw_sha256 !== undefined && p.artifact_raw_sha256 !== current.rawSha);
    if (raw)
      return restart(
        `artifact file changed since packet ${R} (raw sha256 ${raw.artifact_raw_sha256}, now ${current.rawSha}), ` +
          "inside what the scrubber redacts: restart on the current bytes",
      );
    // a nightmare reviewer read the file itself, while it ran: bytes written meanwhile and put back may be what it read
    const readLive = packets.find((p) => p.difficulty === "nightmare" && writtenSinceSent(p, current));
    if (readLive)
      return restart(
        `the artifact file was written after packet ${R} was sent (${new Date(current.changedAtMs!).toISOString()}), while its reviewer ` +
          "read it from disk; whatever it holds now, the reviewer may have read other bytes: restart on the current bytes",
      );
    return null;
  };
  // A quorum round (SPEC §26): every member's packet out first, then the round judged as a whole.
  const decideQuorum = (rule: QuorumRule): GateDecision => {
    if (roundMembers(snapshot, R).length < rule.of) {
      const basis = P.restart_of ?? R - 1;
      const quorum = quorumIssue(snapshot, rule, basis, P.restart_reason, P.stop);
      const { counted_round, restart_of, restart_reason } = P;
      return issue(
        { type: "packet", round: R, counted_round, restart_of, restart_reason, cap, inherit: null, quorum },
        `quorum round ${R}: the next reviewer's packet`,
      );
    }
    const stop = P.stop ?? ctx.policy.stop;
    const q = judgeQuorumRound(snapshot, R, P, stop);
    switch (q.type) {
      case "wait": {
        const held = heldSlots(snapshot, ctx.mapsNow);
        return wait(q.waiting, R, held.length ? `${q.detail}; waiting for ${heldWords(held)}` : q.detail, held);
      }
      case "escalate":
        return escalate(q.reason, q.detail, q.options ?? RETRY_OPTIONS);
      case "fail":
        return notPassed(q.why, stop);
      case "pass": {
        const changed = unchangedSince(
          q.judgement.sha!,
          roundMembers(snapshot, R).map(([, p]) => p),
        );
        if (changed) return changed;
        const families = q.judgement.counted.map((c) => `${c.provider} (${c.family})`).join(", ");
        const reason =
          `quorum ${rule.need}/${rule.of} passed: ${families} passed the five conditions on the same bytes; ` + "no reviewer blocks";
        return act({ type: "outcome", status: "satisfied", reason, round: R, independence: "strong", quorum: q.judgement.counted }, "pass");
      }
      case "restart":
        if (q.reason === "artifact_changed") return restart(q.why);
        if (q.reason === "degraded") return issue(next(P, P.counted_round, R, "degraded"), `replacing ${q.why}`);
        // a member malformed twice in a row (this round and the one it restarted) is a human's, as for one reviewer
        return malformed(q.why);
    }
  };
  if (P.quorum) return decideQuorum(P.quorum);

  // The result a verdict was bound to is the only result its round can ever have (SPEC §15): fail closed.
  const broken = snapshot.brokenSeals.get(R);
  // said of every such round alike: a seal that broke, an answer to a packet not the broker's, maps the gate lost
  if (broken !== undefined) return escalate("no_verdict", `round ${R} can no longer pass: ${broken}`, RETRY_OPTIONS);

  // a malformed failure, or a verdict that answered no packet or named bytes it was never sent (with the artifact as
  // the packet sent it: a sha that was never the packet's, and another round on the same bytes would only repeat it)
  const why = malformedEnd(snapshot, R, { moved: () => changedSinceSent(P, ctx.artifact()) });
  if (why !== null) return malformed(why);
  const failure = snapshot.failures.get(R);
  if (failure) {
    if (failure.kind === "unavailable") {
      // Never hard-block on a missing cross-family reviewer: select again without it (the weak path when no other
      // family is left). Only when that is unavailable too does a human decide — or at once for a finalizer, whose
      // re-selection could land on the copilot reviewer it exists to confirm.
      if (P.restart_reason !== "degraded" && P.restart_reason !== "finalizer") {
        return issue(
          { ...next(P, P.counted_round, R, "degraded"), inherit: null, exclude: [P.reviewer_provider], excludeWhy: failure.reason },
          `reviewer ${P.reviewer_provider} unavailable: selecting again`,
        );
      }
      return escalate("unavailable", failure.reason, RETRY_OPTIONS);
    }
    return escalate("no_verdict", failure.reason, unprovenEnd(P, failure) ? UNPROVEN_END_OPTIONS : RETRY_OPTIONS);
  }

  if (verdict) {
    const gp = verdict.gate_pass;
    // A round is judged under the policy its packet was issued with: a settings edit never re-judges a closed round.
    const stop = P.stop ?? ctx.policy.stop;
    if (verdictPasses(verdict, stop)) {
      // the scrubbed view hides redacted regions: an edit there is still a change the review never covered
      const changed = unchangedSince(gp.recomputed_sha256, [P]);
      if (changed) return changed;
      // Copilot's identity is only caller-declared (ARIS's compatibility drive): its pass ends nothing until a
      // reviewer of a known, different family, selected afresh without copilot, passes the same counted round.
      if (P.reviewer_adapter === "copilot") {
        return issue(
          { ...next(P, P.counted_round, R, "finalizer"), inherit: null, exclude: [P.reviewer_provider] },
          `copilot passed round ${R}: a different-family finalizer must confirm`,
        );
      }
      if (verdict.independence_violation && P.independence === "strong") {
        if (identityUnproven(verdict, P)) {
          const why =
            verdict.reviewer_family === "unknown"
              ? "has no known family: independence cannot be proven"
              : `is ${verdict.reviewer_family}, the author's family: a finalizer must be of another family to confirm the copilot pass`;
          return escalate("identity_unverified", `reviewer model ${JSON.stringify(verdict.reviewer_model)} ${why}`, RETRY_OPTIONS);
        }
        return act(
          {
            type: "outcome",
            status: "satisfied",
            // the model may be the result's or the settings' (requested, declared): the outcome says which
            reason:
              `gate passed, but reviewer model ${JSON.stringify(verdict.reviewer_model)} is ${verdict.reviewer_family}, ` +
              weakWhy(snapshot, P, verdict) +
              ": recorded as a weak review",
            round: R,
            independence: "weak",
            namesModel: true,
          },
          "weak pass",
        );
      }
      const reason =
        stop === "score"
          ? `score gate passed (score ${verdict.score_gate!.score}/10, readiness ${verdict.score_gate!.readiness}) ` +
            "with the checksum-bound conditions"
          : "all five gate-pass conditions hold";
      return act({ type: "outcome", status: "satisfied", reason, round: R, independence: P.independence }, "pass");
    }
    if (!gp.conditions.sha256_match) return restart("artifact changed: restart on the current bytes");
    // The score gate never passes on a score it could not read: a human decides (ARIS: review unavailable). A round
    // that found blockers failed on them whatever its score: the author's turn, never a retry that re-rolls them.
    if (stop === "score" && !verdict.score_gate?.available && !verdictBlocks(verdict)) {
      return escalate(
        "score_unavailable",
        `no usable score from the reviewer: ${(verdict.score_gate?.reasons ?? ["the verdict has no score evaluation"]).join("; ")}`,
        RETRY_OPTIONS,
      );
    }
    return notPassed(failReasons(verdict, stop).join("; "), stop);
  }
  // a worker that waits for the broker (its packet's family maps lost, a file in its way) is not the one to wait for
  const held = heldSlots(snapshot, ctx.mapsNow);
  const waitingFor = (worker: string) => `waiting for ${held.length ? heldWords(held) : worker}`;
  if (snapshot.results.has(R)) return wait("verifying", R, `result delivered; ${waitingFor("the verifier")}`, held);
  if (snapshot.responses.has(R)) return wait("normalizing", R, "manual response delivered; waiting for the manual worker");
  if (snapshot.attempts.has(R)) return wait("dispatched", R, `dispatched to ${P.reviewer_provider}`);
  return wait("reviewing", R, waitingFor(`reviewer ${P.reviewer_provider}`), held);
}

/**
 * What a quorum round issued after `basis` keeps: the basis round's members (its quorum packets), less those that
 * proved unavailable when the round is their replacement (degraded).
 */
export function quorumIssue(
  s: GateSnapshot,
  rule: QuorumRule,
  basis: number,
  reason: PacketFrontMatter["restart_reason"],
  stop: PacketFrontMatter["stop"],
): QuorumIssue {
  const members = quorumMembers(s, basis, stop ?? "verdict");
  const exclude = reason === "degraded" ? members.filter((m) => m.state.kind === "unavailable").map((m) => m.provider) : [];
  return { rule, keep: members.filter((m) => !exclude.includes(m.provider)).map((m) => m.packet), exclude };
}

/** decide() under the policy the gate's request resolves to: what the broker, status and wait all ask. */
export function decideGate(s: GateSnapshot, settings: Settings, rest: Omit<DecideContext, "policy" | "mapsNow">): GateDecision {
  return decide(s, { ...rest, policy: gatePolicy(s, settings), ...mapsNowOf(s, settings) });
}

/** `DecideContext.mapsNow` for a gate under `settings`: none before its request. */
export function mapsNowOf(s: GateSnapshot, settings: Settings): Pick<DecideContext, "mapsNow"> {
  return s.request ? { mapsNow: issuedFamilyMaps(s.request.author_host, settings).sha } : {};
}

/**
 * Why the open round's escalation is not the broker's, or null. Without it (and the decision answering it) decide()
 * must act: make an escalation, or an action the broker's plan may turn into one (a packet no reviewer can take, an
 * outcome whose pass does not re-derive), never wait for a reviewer, the verifier or the author. Its reason must be
 * one the files lead the broker to at its round (`unreachedEscalation`), and its options ones the broker offers for
 * that reason. Nor may the author's answer to such a round (a resubmit, a rebuttal) make it one: then only an
 * escalation issuing the next round can raise is the broker's.
 */
export function foreignEscalationProblem(s: GateSnapshot, ctx: DecideContext, rederives: PassRederives): string | null {
  const R = openRound(s);
  const esc = s.escalations.get(R);
  // an ended gate's escalations are its history: its outcome is judged on its own (reverify)
  if (s.outcome || !esc) return null;
  const escalations = new Map(s.escalations);
  escalations.delete(R);
  const decisions = new Map(s.decisions);
  decisions.delete(R);
  const without = { ...s, escalations, decisions };
  const raised = unrecordedAsRaised(without, ctx);
  const d = decide(without, raised);
  if (d.action === null) return `not the broker's: the gate's files do not lead to it (without it: ${d.state}, ${d.detail})`;
  const unreached = unreachedEscalation(without, raised, esc, rederives);
  if (unreached !== null) return `not the broker's: ${unreached}`;
  if (raisedIssuingNext(s, esc)) return null;
  // An author's answer (resubmit, rebuttal) turns the author's turn into a next round: one dropped while the gate
  // waited for the author (which the author's commands do not see) must not become a decision, a force-pass, by it.
  const resubmits = new Set(s.resubmits);
  resubmits.delete(R);
  const rebuttals = new Set(s.rebuttals);
  rebuttals.delete(R);
  const before = decide({ ...without, resubmits, rebuttals }, raised);
  if (before.action !== null) return null;
  return (
    `not the broker's: only the author's answer to round ${R} leads on from ${before.state}, and issuing the next ` +
    `round never escalates ${esc.reason}`
  );
}

/**
 * `ctx` for a gate whose request.json (an earlier build's) recorded no cap or checkpoint: today's settings may not be
 * those the broker escalated under, so the cap is the one the open round's packet was issued under and the checkpoint
 * on (it only ever adds an escalation); `unreachedEscalation` holds the reason to them alike.
 */
function unrecordedAsRaised(s: GateSnapshot, ctx: DecideContext): DecideContext {
  const P = roundPacket(s, openRound(s));
  if (!P || !s.request) return ctx;
  const cap = s.request.cap === undefined ? P.cap - (effectiveCap(s, ctx.policy) - ctx.policy.cap) : ctx.policy.cap;
  const humanCheckpoint = s.request.human_checkpoint === undefined || ctx.policy.humanCheckpoint;
  return { ...ctx, policy: { ...ctx.policy, cap, humanCheckpoint } };
}

/**
 * Whether the artifact file was written after packet `p` was sent, whatever its bytes now (an edit put back): its
 * ctime, which no writer can set back, against the packet's reading by the file system's clock (a packet without
 * it: the broker's clock, issued_at).
 */
function writtenSinceSent(p: PacketFrontMatter, now: ArtifactView): boolean {
  return now.ok && now.changedAtMs !== undefined && Math.floor(now.changedAtMs) > (p.artifact_changed_at_ms ?? Date.parse(p.issued_at));
}

/** Whether round n's pass re-derives from its sealed files at the bytes it sent (`sentPassRederives`): what the broker
 * asks before it writes `satisfied`, turning a pass that does not into `no_verdict`. */
export type PassRederives = (round: number) => boolean;

/**
 * A strong round's pass whose reviewer's independence cannot be proven: its family is unknown, or it is a finalizer
 * of the author's family (a finalizer exists to confirm a pass across families: a weak one confirms nothing, SPEC §23).
 */
function identityUnproven(
  v: Pick<VerdictFile, "independence_violation" | "reviewer_family">,
  P: Pick<PacketFrontMatter, "independence" | "restart_reason">,
): boolean {
  return P.independence === "strong" && !!v.independence_violation && (v.reviewer_family === "unknown" || P.restart_reason === "finalizer");
}

/**
 * Why a strong round's pass the verifier sealed a violation for is weak, in words: its reviewer is of the author's
 * family as the packet's maps class it, request.json's author is not the packet's family under them, or neither, so
 * the settings when it was verified classed it so (an edit to family_aliases or host_families since its packet).
 */
function weakWhy(s: GateSnapshot, P: PacketFrontMatter, v: Pick<VerdictFile, "reviewer_family" | "violation_families">): string {
  if (v.reviewer_family === P.author_family) return "the author's family";
  // the families the verifier judged it under, as the outcome records them (violation_families); an earlier build's
  // verdict recorded none: the author as judgedAuthorFamily (packet-chain.ts) judges it under the packet's maps
  const sealed = v.violation_families;
  const recorded = P.family_maps_sha256 !== undefined ? s.familyMaps.get(P.family_maps_sha256) : P.family_maps;
  const told = sealed !== undefined || (recorded && s.request && authorIdentity(s.request, recorded).family === P.author_family);
  const judged = sealed ? `reviewer ${sealed.reviewer_family}, author ${sealed.author_family}; ` : "";
  if (told)
    return (
      "not the author's family under the family maps its packet was issued with, but the settings when it was verified " +
      `classed it with the author's family or with none (${judged}family_aliases or host_families edited since)`
    );
  return "and the author's family cannot be told from request.json (see the trail)";
}

/** The options the broker offers with each reason (some offer fewer: `UNPROVEN_END_OPTIONS`, round 0's `unavailable`). */
const OFFERED: Record<EscalationReason, readonly DecisionChoice[]> = {
  cap_hit: CAP_OPTIONS,
  malformed_termination_x2: CAP_OPTIONS,
  stalled: CAP_OPTIONS,
  no_verdict: RETRY_OPTIONS,
  unavailable: RETRY_OPTIONS,
  restart_cap_hit: RETRY_OPTIONS,
  identity_unverified: RETRY_OPTIONS,
  score_unavailable: RETRY_OPTIONS,
  human_checkpoint: CHECKPOINT_OPTIONS,
  codex_skip_blocked: ["override", "rework"],
  request_refused: ["rework"],
  artifact_missing: ARTIFACT_OPTIONS,
  artifact_too_large: ARTIFACT_OPTIONS,
  artifact_not_text: ARTIFACT_OPTIONS,
  scrub_failed: ARTIFACT_OPTIONS,
};

/**
 * Why the files never lead the broker to escalate `esc` (its reason, at its round, with its options), or null when
 * they can (SPEC §6, escalation-<n>.json). `s` is the gate without that escalation and its decision. Each reason needs
 * what the broker raises it from, read from files that stay once it is raised (a failure, a verdict, a broken seal,
 * the packet's counted round, the rounds of a stall), never from the artifact, which the author may edit meanwhile:
 * so the broker's own escalation stays the broker's at every later state, and a dropped one of another reason, or at
 * a round that never ended so, is not. On a round its reviewer passed the broker raises only what an edited artifact,
 * a copilot pass or a pass that does not re-derive leads to: none of the reasons a failed round leads to. An edited
 * artifact leaves its own mark, read from the artifact file: other bytes, or a write since the round was sent.
 */
export function unreachedEscalation(s: GateSnapshot, ctx: DecideContext, esc: Escalation, rederives: PassRederives): string | null {
  const extra = esc.options.filter((o) => !OFFERED[esc.reason].includes(o));
  if (extra.length) return `the broker never offers ${extra.join(", ")} with ${esc.reason}`;
  const R = esc.round;
  const P = roundPacket(s, R);
  if (R === 0 || !P) return null; // before round 1 decide() alone says what the broker raises
  const slots = [s, ...s.members.values()];
  const failures = slots.flatMap((x) => x.failures.get(R) ?? []);
  const verdicts = roundVerdicts(s, R);
  const stop = P.stop ?? ctx.policy.stop;
  const passed = verdicts.some((v) => verdictPasses(v, stop));
  const quorum = P.quorum ? judgeQuorumRound(s, R, P, stop) : null;
  // a quorum round whose packets are not all out is still being issued: the broker judges it only once they are
  const issuing = P.quorum !== undefined && roundMembers(s, R).length < P.quorum.of;
  const unproven = verdicts.some((v) => identityUnproven(v, P));
  // what the broker ends satisfied while the artifact holds the round's bytes
  const satisfies = quorum ? !issuing && quorum.type === "pass" : passed && P.reviewer_adapter !== "copilot" && !unproven;
  const needs = (ok: boolean, what: string) => (ok ? null : `${esc.reason} at round ${R} needs ${what}`);
  // What an artifact moved since the round was sent leaves: other bytes (or none) now, or a file written since (an
  // edit put back). A passing round reaches a restart or an artifact problem only so; it is never undone.
  const moved = () => {
    const now = ctx.artifact();
    const sent = quorum ? roundMembers(s, R).map(([, p]) => p) : [P];
    return !now.ok || sent.some((p) => changedSinceSent(p, now) || writtenSinceSent(p, now));
  };
  // a verdict that parses and names its packet, and whether it is for the bytes that packet sent
  // a verdict (a member's) for other bytes than its packet's, as verified: the broker restarts the round on it
  const stale = quorum
    ? !issuing && quorum.type === "restart" && quorum.reason === "artifact_changed"
    : verdicts.some((v) => namesItsPacket(v) && !v.gate_pass.conditions.sha256_match);
  // how decide() reads the round's end: a verdict bound to its packet and the bytes; one without a usable score that
  // blocks nothing (score_unavailable); a round that did not pass (the cap, the checkpoint, a stall, the author's
  // turn); a malformed end (a restart, or the cap: `endedMalformed`, by decide()'s own rule)
  const bound = (v: VerdictFile) => namesItsPacket(v) && v.gate_pass.conditions.sha256_match;
  const scoreless = (v: VerdictFile) => stop === "score" && !v.score_gate?.available && !verdictBlocks(v);
  const single = quorum ? undefined : s.verdicts.get(R);
  const notPassed = quorum ? !issuing && quorum.type === "fail" : single !== undefined && !passed && bound(single) && !scoreless(single);
  // the checkpoint, restart cap and stall detection request.json recorded (SPEC §6); one an earlier build's request did
  // not record is unknown (never today's settings, which may have changed since the broker raised `esc`): any value may
  // have been in force. Its cap is the one packet n was issued under (`unrecordedAsRaised`).
  const unrecorded = (k: "human_checkpoint" | "stall_detection" | "restart_cap") => s.request?.[k] === undefined;
  const checkpoint = (on: boolean) => unrecorded("human_checkpoint") || ctx.policy.humanCheckpoint === on;
  const stallDetection = unrecorded("stall_detection") || ctx.policy.stallDetection;
  const restartCap = unrecorded("restart_cap") ? 1 : ctx.policy.restartCap;
  const atCap = P.counted_round >= effectiveCap(s, ctx.policy);
  switch (esc.reason) {
    case "artifact_missing":
    case "artifact_too_large":
    case "artifact_not_text":
    case "scrub_failed": {
      // A pass is checked against the artifact first (a copilot pass's finalizer packet may be too large as it is);
      // any other round only where a next packet is issued: judged with the artifact as the round sent it.
      if (quorum ? !issuing && quorum.type === "pass" : passed)
        return needs(
          (!quorum && P.reviewer_adapter === "copilot") || moved(),
          `an artifact changed since round ${R} was sent (the round passed)`,
        );
      const sentBytes: ArtifactView = { ok: true, sha: P.artifact_sha256, rawSha: P.artifact_raw_sha256 ?? "" };
      return needs(
        s.resubmits.has(R) || s.rebuttals.has(R) || decide(s, { ...ctx, artifact: () => sentBytes }).action?.type === "packet",
        "a round that leads to a next packet (the author's answer, a restart, a replacement, a quorum round's next member)",
      );
    }
    case "request_refused":
    case "codex_skip_blocked":
      return `${esc.reason} is raised only before round 1`;
    case "no_verdict": {
      // what the broker offers with it, as decide() and its plan reach it: a quorum round's no_verdict only once no
      // member blocks, and no force-pass on a failure that does not prove a review ran (`unprovenEnd`)
      const failure = s.failures.get(R);
      const offered = quorum
        ? !issuing && quorum.type === "escalate" && quorum.reason === "no_verdict"
          ? (quorum.options ?? RETRY_OPTIONS)
          : null
        : s.brokenSeals.has(R)
          ? RETRY_OPTIONS
          : failure?.kind === "no_verdict"
            ? unprovenEnd(P, failure)
              ? UNPROVEN_END_OPTIONS
              : RETRY_OPTIONS
            : null;
      const options = offered ?? (satisfies && !rederives(R) ? RETRY_OPTIONS : null);
      if (options && !esc.options.every((o) => options.includes(o)))
        return `the broker offers only ${options.join(", ")} with no_verdict at round ${R}`;
      return needs(
        options !== null,
        "a no_verdict failure or a broken seal (a quorum round: no member blocking), or a pass that does not re-derive from its result",
      );
    }
    case "unavailable":
      // a quorum selects anew only while its round is being issued and for a degraded replacement; a replacement
      // round that still falls short escalates (quorum-round.ts): never on a pass, a failure or a malformed restart
      return needs(
        quorum
          ? issuing ||
              (quorum.type === "restart" && quorum.reason === "degraded") ||
              (quorum.type === "escalate" && quorum.reason === "unavailable")
          : failures.some((f) => f.kind === "unavailable") || (P.reviewer_adapter === "copilot" && passed),
        quorum
          ? "a quorum round being issued, or one with an unavailable reviewer that did not pass"
          : "an unavailable reviewer, or a copilot pass (its finalizer is selected anew)",
      );
    case "identity_unverified":
      return needs(
        quorum
          ? !issuing && quorum.type === "escalate" && quorum.reason === "identity_unverified"
          : passed && unproven && P.reviewer_adapter !== "copilot",
        "a passing verdict of unproven independence (a reviewer of no known family, a finalizer of the author's)",
      );
    case "score_unavailable":
      // as decide() reaches it: a verdict bound to its packet and the bytes, that blocks nothing and has no score
      return needs(
        stop === "score" &&
          (quorum ? quorum.type === "escalate" && quorum.reason === "score_unavailable" : verdicts.some((v) => bound(v) && scoreless(v))),
        "a verdict that blocks nothing and has no usable score",
      );
    case "human_checkpoint":
      return needs(
        checkpoint(true) && notPassed && !atCap,
        "a verdict that did not pass (bound to its packet and the bytes) below the cap, and the human checkpoint on",
      );
    case "cap_hit":
      return needs(
        (notPassed || endedMalformed(s, R, P, stop)) && atCap,
        `a round that did not pass, or ended malformed, at the cap (counted round ${P.counted_round})`,
      );
    case "malformed_termination_x2":
      return needs(
        malformedTwice(s, R, P, stop) !== null,
        "a round that ended malformed, restarted after one that did (a quorum round: the same member both times)",
      );
    case "restart_cap_hit":
      return needs(
        consecutiveRestarts(s, R) >= restartCap && (stale || ((quorum ? satisfies : passed) && moved())),
        "after the restart cap's restarts, a verdict for other bytes than its packet's, or a pass of bytes the artifact has moved from",
      );
    case "stalled":
      return needs(
        stallDetection &&
          checkpoint(false) &&
          notPassed &&
          !atCap &&
          (stallAfterVerdict(s, R, stop) !== null || stalledAtResubmit(s, R, stop, esc.stall)),
        "a stall its rounds show (§14.1), below the cap and without the human checkpoint (which are raised first)",
      );
  }
}

/**
 * Whether the files show the stall `stall` claims at round R's resubmit: round R was judged (the author was handed its
 * verdict), and the bytes the stall says came back are that round's or the one's before it. The raw bytes are any a
 * round with those scrubbed bytes sent: an edit inside a redacted region changes only the raw ones.
 */
function stalledAtResubmit(s: GateSnapshot, R: number, stop: StopPolicy, stall: StallEvidence | undefined): boolean {
  const back = stall?.artifact_sha256?.at(-1);
  const chain = judgedChain(s, R);
  const P = roundPacket(s, R);
  // a quorum round fails on one member's blockers while another's verdict is for bytes that changed under it: the
  // author was handed the findings, though the round is in no judged chain
  const judged = chain.length > 0 || (P?.quorum !== undefined && judgeQuorumRound(s, R, P, stop).type === "fail");
  if (!s.resubmits.has(R) || back === undefined || !judged) return false;
  return [...new Set([...chain, R])].some((r) => {
    const sent = roundPacket(s, r);
    return (
      sent?.artifact_sha256 === back &&
      stallAtResubmit(s, R, { sha: back, rawSha: sent.artifact_raw_sha256 ?? "" })?.pattern === stall!.pattern
    );
  });
}

/** Whether the broker can raise this escalation as it issues the round after the author's answer to round R. */
function raisedIssuingNext(s: GateSnapshot, esc: { reason: EscalationReason }): boolean {
  if (esc.reason === "unavailable") return roundPacket(s, openRound(s))?.quorum !== undefined; // only a quorum selects anew
  return AFTER_AUTHOR.has(esc.reason);
}
const AFTER_AUTHOR: ReadonlySet<EscalationReason> = new Set([
  "stalled",
  "artifact_missing",
  "artifact_too_large",
  "artifact_not_text",
  "scrub_failed",
]);

/**
 * The exit code `review --wait` uses for a gate that has stopped moving on its own; null while it still moves. A pass
 * whose bytes are no longer the artifact's is 2, as `check` judges it: a waiting author must not report it as passed.
 */
export function waitExitCode(snapshot: GateSnapshot, d: GateDecision, artifact: ArtifactView): number | null {
  if (d.state === "done") {
    const o = snapshot.outcome!;
    if (o.status === "rework" || o.status === "stopped") return 3;
    return passNoLongerHolds(o, artifact) ? 2 : 0;
  }
  if (d.state === "awaiting_author") return 3;
  if (d.state === "awaiting_decision") return snapshot.escalations.get(d.round)?.reason === "unavailable" ? 5 : 4;
  // a gate directory the bus does not read (another gate's, moved or copied here; not a directory) moves only when a
  // person acts: following it would only time out
  return snapshot.problems.some((p) => p.file === "." && !p.fault) ? 2 : null;
}
