// What a person or a waiting author sees of a gate: its state and the seed's ReviewBrokerOutput shape.
import { rescrubbed } from "./sent-bytes.js";
import type { Difficulty, Outcome, StopPolicy, VerdictFile } from "../spec/schemas.js";
import type { ArtifactState } from "./artifact-view.js";
import type { GateDecision } from "./decide.js";
import { verdictPasses } from "./verdict-pass.js";
import { countedRounds, openRound, roundPackets } from "./gate-queries.js";
import type { ResolvedPolicy } from "./policy.js";
import type { GateSnapshot } from "./snapshot.js";
import { artifactWait, blockedWait, readFaultWait, rebutRefusal, stalePassWait } from "./next-step.js";

export interface ReviewBrokerOutput {
  status:
    | "satisfied"
    | "skipped"
    | "cap_hit"
    | "force_passed"
    | "extended"
    | "rework"
    | "no_verdict"
    | "unavailable"
    | "pending"
    | "stopped"
    | "checkpoint"
    | "refused"
    | "blocked"
    | "artifact_unusable"
    | "stalled"
    /** An outcome.json that does not re-derive from the gate's files (a hand-written one): no pass, a person looks. */
    | "unproven";
  gate: string;
  run_id: string;
  author_host: string;
  reviewer_host: string | null;
  independence: "strong" | "weak" | null;
  rounds: number;
  trail_path: string;
  satisfied_at_round?: number;
  state: string;
  waiting_for: string;
  detail: string;
  last_verdict: string | null;
  round: number;
  /** The auto-review-loop modes in force (bus-spec/SPEC.md §21). */
  modes: { stop: StopPolicy; difficulty: Difficulty; human_checkpoint: boolean };
}

const WAITING_FOR: Record<string, string> = {
  no_request: "a request",
  done: "nothing",
  broker: "the broker",
  reviewing: "the reviewer",
  dispatched: "the reviewer",
  normalizing: "the manual worker",
  verifying: "the verifier",
  awaiting_author: "the author (revise, then `guild-bus resubmit`)",
  awaiting_decision: "a human decision (`guild-bus decide`)",
};

/** What a waiting gate asks for, where the modes add a choice. */
function waitingFor(s: GateSnapshot, d: GateDecision, rebuttable: boolean, artifact: ArtifactState): string {
  if (d.state === "done") return stalePassWait(s, artifact) ?? WAITING_FOR.done!;
  const waits = readFaultWait(s) ?? blockedWait(s) ?? artifactWait(s, d, artifact);
  if (waits) return waits;
  if (d.held?.length) return WAITING_FOR.broker!; // a worker that waits on the broker is not the one to wait for
  if (d.state === "awaiting_author" && rebuttable)
    return "the author (revise, then `guild-bus resubmit`; or contest the findings once with `guild-bus rebut`)";
  if (d.state === "awaiting_decision" && s.escalations.get(d.round)?.reason === "human_checkpoint") {
    return `a human checkpoint (\`guild-bus decide ${s.runId} ${s.gate} continue|stop|rework --round ${d.round} [--note "instructions"]\`)`;
  }
  return WAITING_FOR[d.state] ?? d.state;
}

function statusOf(s: GateSnapshot, d: GateDecision, artifact: ArtifactState): ReviewBrokerOutput["status"] {
  if (s.outcome) return s.outcome.status;
  if (artifactWait(s, d, artifact)) return "artifact_unusable";
  if (d.state === "awaiting_author") return s.decisions.get(d.round)?.choice === "extend-cap" ? "extended" : "rework";
  if (d.state === "awaiting_decision") {
    const reason = s.escalations.get(d.round)?.reason;
    if (reason === "unavailable") return "unavailable";
    if (reason === "no_verdict" || reason === "identity_unverified" || reason === "score_unavailable") return "no_verdict";
    if (reason === "human_checkpoint") return "checkpoint";
    if (reason === "request_refused") return "refused";
    if (reason === "codex_skip_blocked") return "blocked";
    if (reason === "stalled") return "stalled";
    if (reason === "artifact_missing" || reason === "artifact_too_large" || reason === "artifact_not_text" || reason === "scrub_failed")
      return "artifact_unusable";
    return "cap_hit";
  }
  return "pending";
}

/** "issues (gate not passed; score 5/10, not ready)": the verdict under the stop policy in force. */
function lastVerdict(v: VerdictFile, stop: StopPolicy): string {
  const score =
    v.score_gate && (v.score_gate.score !== null || v.score_gate.readiness !== null)
      ? `; score ${v.score_gate.score ?? "?"}/10, ${v.score_gate.readiness ?? "no readiness"}`
      : "";
  const rulings = v.rulings ? `; ${v.rulings.upheld} upheld, ${v.rulings.withdrawn} withdrawn` : "";
  return `${v.result_verdict} (gate ${verdictPasses(v, stop) ? "passed" : "not passed"}${score}${rulings})`;
}

/** An outcome describes the bytes it ended on; say so when the artifact is no longer those bytes (SPEC §17). */
function outcomeDetail(o: Outcome, now: ArtifactState): string {
  const base = `outcome ${o.status}`;
  if (o.artifact_sha256 === null) return base;
  if (!now.ok) return `${base} for sha ${o.artifact_sha256}; the artifact is now unreadable (${now.detail})`;
  if (now.sha === o.artifact_sha256) return base;
  const why = rescrubbed(o, now) ? "its raw bytes unchanged: the redaction settings changed since" : "changed since";
  return `${base} for sha ${o.artifact_sha256}; the artifact is now ${now.sha} (${why})`;
}

/** The gate's status for a person or a waiting author, from its snapshot, decision and the artifact as it is now. */
export function gateStatus(
  s: GateSnapshot,
  d: GateDecision,
  artifact: ArtifactState,
  policy: ResolvedPolicy,
  trailPath: string,
): ReviewBrokerOutput {
  const reviewers = roundPackets(s, openRound(s));
  const p = reviewers[0];
  const v = s.verdicts.get(openRound(s));
  return {
    status: statusOf(s, d, artifact),
    gate: s.gate,
    run_id: s.runId,
    author_host: s.request?.author_host ?? "unknown",
    reviewer_host: s.outcome?.reviewer_host ?? (reviewers.map((r) => r.reviewer_provider).join(" + ") || null),
    independence: s.outcome?.independence ?? (v?.independence_violation ? "weak" : (p?.independence ?? null)),
    rounds: countedRounds(s),
    trail_path: trailPath,
    ...(s.outcome?.satisfied_at_round ? { satisfied_at_round: s.outcome.satisfied_at_round } : {}),
    state: d.state,
    waiting_for: waitingFor(s, d, rebutRefusal(s, d.round, policy, artifact) === null, artifact),
    detail: s.outcome ? outcomeDetail(s.outcome, artifact) : d.detail,
    last_verdict: v ? lastVerdict(v, policy.stop) : null,
    round: d.round,
    modes: { stop: policy.stop, difficulty: policy.difficulty, human_checkpoint: policy.humanCheckpoint },
  };
}
