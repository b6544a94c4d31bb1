// The one schema module: every file the bus reads or writes is described here, and bus-spec/schemas/*.json
// are generated from these definitions (src/spec/generate.ts).
import { z } from "zod";
import { GATE_RE, RUN_ID_RE, SHA256_RE } from "./ids.js";
import { ADAPTER_KINDS, FAMILIES, RESULT_WIRE } from "./constants.js";
import { quorumProblem } from "./quorum-rule.js";

const nonBlank = z.string().regex(/\S/, "must be a non-blank string");
/** A host or model name as a result gives it: it is printed on one line in trail.md, status and the console. */
const oneLineName = z
  .string()
  .regex(
    /^[^\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}](?:[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]{0,198}[^\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}])?$/u,
    "must be one line without control or format characters or outer spaces, at most 200 characters",
  );
const sha256Hex = z.string().regex(SHA256_RE, "must be 64 hex characters");
const isoTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T/, "must be an ISO-8601 timestamp");
const runId = z.string().regex(RUN_ID_RE);
const gate = z.string().regex(GATE_RE);
const round = z.number().int().min(1);

export { FAMILIES };
export const Family = z.enum(FAMILIES);
export type Family = z.infer<typeof Family>;
export const Independence = z.enum(["strong", "weak"]);
export type Independence = z.infer<typeof Independence>;
export const Severity = z.enum(["blocking", "high", "medium", "low", "info"]);
export const Verdict = z.enum(["satisfied", "issues"]);

/** What Guild's reader enforces (lenient, consume-only): unknown keys tolerated, finding items not inspected. */
export const ReviewResultLenient = z
  .object({
    schema_version: z.literal(RESULT_WIRE).optional(),
    packet_id: nonBlank,
    artifact_sha256_reviewed: nonBlank,
    verdict: nonBlank,
    blocking_findings: z.array(z.unknown()),
  })
  .loose()
  .meta({ title: "review_result.v1 (lenient reader)", description: "What any reviewer may deliver as result-<n>.json." });
export type ReviewResultLenient = z.infer<typeof ReviewResultLenient>;

export const Finding = z
  .object({
    id: z.string().optional(),
    severity: Severity,
    title: nonBlank,
    detail: z.string().optional(),
    evidence: z.string().optional(),
  })
  .loose();
export type Finding = z.infer<typeof Finding>;

export const Readiness = z.enum(["ready", "almost", "not ready"]);
export type Readiness = z.infer<typeof Readiness>;

/** The auto-review-loop modes (bus-spec/SPEC.md §21), chosen per request or in settings. */
export const StopPolicy = z.enum(["verdict", "score"]);
export type StopPolicy = z.infer<typeof StopPolicy>;
export const Difficulty = z.enum(["medium", "hard", "nightmare"]);
export type Difficulty = z.infer<typeof Difficulty>;

/** A reviewer's ruling on one finding the author contested (hard and nightmare difficulty). */
export const Ruling = z
  .object({
    finding: nonBlank.describe("the contested finding (its title or id)"),
    ruling: z.enum(["upheld", "withdrawn"]),
    reason: z.string().optional(),
  })
  .loose();
export type Ruling = z.infer<typeof Ruling>;

/** Reasoning effort levels, weakest first (the order effort_floor compares in); each CLI accepts a subset. */
export const EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"] as const;
export const Effort = z.enum(EFFORTS);
export type Effort = z.infer<typeof Effort>;
/** Effort tiers chosen per gate (settings.gate_tiers): ARIS's regular and deep-audit reviewer calls. */
export const EffortTier = z.enum(["regular", "deep-audit"]);
export type EffortTier = z.infer<typeof EffortTier>;
/** Why an adapter proved that nothing ran because of what it asked for (the only errors capability fallback follows). */
export const CapabilityError = z.enum(["effort_unsupported", "model_unknown"]);
export type CapabilityError = z.infer<typeof CapabilityError>;

/** One dispatch of a round (a capability or provider fallback step, or the schema repair), in order. */
export const DispatchAttempt = z
  .object({
    provider: nonBlank,
    adapter: nonBlank,
    model: z.string().nullable().describe("the model requested (null: the CLI's default)"),
    effort: Effort.nullable().describe("the reasoning effort sent (null: none sent)"),
    tier: EffortTier,
    outcome: z.enum(["output", "not-run", "ambiguous"]),
    capability: CapabilityError.optional().describe("not-run because the effort or the model was refused before any review ran"),
    reason: z.string().optional(),
    note: z.string().optional().describe("e.g. effort not supported by this CLI"),
    repair: z.boolean().optional().describe("the schema-repair dispatch"),
  })
  .loose();
export type DispatchAttempt = z.infer<typeof DispatchAttempt>;

/** Results the bus itself writes: the lenient shape plus closed enums and identity fields. */
export const ReviewResultStrict = z
  .object({
    schema_version: z.literal(RESULT_WIRE),
    packet_id: nonBlank,
    artifact_sha256_reviewed: sha256Hex,
    verdict: Verdict,
    summary: z.string().optional(),
    findings: z.array(Finding),
    blocking_findings: z.array(Finding),
    round,
    reviewer_host: oneLineName,
    reviewer_model: oneLineName,
    reviewer_model_source: z.enum(["reported", "requested", "declared"]).optional(),
    reviewer_family: Family.optional(),
    normalized_from: z.enum(["structured", "fenced", "whole-json", "sentinel", "manual"]).optional(),
    repaired: z.boolean().optional(),
    score: z.number().optional().describe("the reviewer's score out of 10, as it gave it (the verifier judges its range)"),
    readiness: Readiness.optional(),
    score_problems: z
      .array(z.string())
      .optional()
      .describe("why no score or readiness could be taken from the output (the score gate is then unavailable)"),
    memory_update: z.string().optional().describe("hard/nightmare: the reviewer's notes to itself for its next round"),
    rulings: z.array(Ruling).optional().describe("a ruling round: the reviewer's ruling on each contested finding"),
    dispatch_attempts: z.array(DispatchAttempt).optional().describe("every dispatch of the round, in order"),
    ran: z
      .object({ provider: nonBlank, model: z.string().nullable(), effort: Effort.nullable(), tier: EffortTier })
      .optional()
      .describe("the provider and the (model, effort) pair whose answer this is"),
    identity_assurance: z
      .enum(["caller-declared-unverified"])
      .optional()
      .describe("copilot: the model is the profile's, declared by configuration; nothing reported it"),
    copilot_profile: z.string().optional().describe("copilot: the custom agent profile that ran"),
  })
  .loose()
  .meta({ title: "review_result.v1 (as written by the bus)" });
export type ReviewResultStrict = z.infer<typeof ReviewResultStrict>;

/** A quorum gate's rule (SPEC §26): K of N reviewers of pairwise-distinct families, none the author's, must pass. */
export const QuorumRule = z
  .object({
    need: z.number().int().min(1).max(8).describe("K: how many distinct families must pass on the same artifact bytes"),
    of: z.number().int().min(1).max(8).describe("N: how many reviewers each round dispatches"),
    families: z.array(Family).optional().describe("families that must be among those that pass (e.g. openai and google for G-spec)"),
  })
  .superRefine((q, ctx) => {
    const problem = quorumProblem(q);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
export type QuorumRule = z.infer<typeof QuorumRule>;

export const ReviewMode = z.enum(["cross", "local", "off"]);
export type ReviewMode = z.infer<typeof ReviewMode>;

export const RunMeta = z
  .object({
    schema_version: z.literal("guild_bus.run.v1"),
    run_id: runId,
    created_at: isoTime,
    created_by: z.string().optional(),
  })
  .meta({ title: "runs/<run-id>/run.json" });

export const Request = z
  .object({
    schema_version: z.literal("guild_bus.request.v1"),
    run_id: runId,
    gate,
    artifact_path: nonBlank.describe("path of the artifact, relative to the project root (the parent of .guild/)"),
    author_host: nonBlank,
    author_host_source: z
      .enum(["declared", "mcp-client-info"])
      .optional()
      .describe("mcp-client-info: the host is the MCP client's own name from the handshake, not a claim of the caller"),
    author_host_version: z.string().optional().describe("the MCP client's version from the handshake"),
    author_model: z.string().optional(),
    reviewer: z.string().default("auto").describe("auto, or a provider id to pin"),
    review: ReviewMode.optional(),
    risk: z.enum(["low", "medium", "high"]).optional(),
    cap: z.number().int().min(1).optional(),
    stop: StopPolicy.optional().describe(
      "verdict: the five-condition gate; score: score ≥ 6 and readiness ready|almost replace the verdict condition",
    ),
    difficulty: Difficulty.optional(),
    human_checkpoint: z
      .boolean()
      .optional()
      .describe("wait for `guild-bus decide continue|stop|rework` after every round that does not end the gate"),
    paths: z
      .array(nonBlank)
      .optional()
      .describe("further project-relative paths the reviewer should read (listed in every packet; read directly at nightmare)"),
    quorum: QuorumRule.optional().describe("a quorum gate: every round goes to N reviewers of distinct families (SPEC §26)"),
    requested_at: isoTime,
  })
  .meta({ title: "review/<gate>/request.json" });
export type Request = z.infer<typeof Request>;

export const RestartReason = z.enum(["artifact_changed", "retry", "malformed", "degraded", "ruling", "finalizer"]);

export const PacketFrontMatter = z
  .object({
    schema_version: z.literal("guild_bus.packet.v1"),
    packet_id: nonBlank,
    run_id: runId,
    gate,
    round,
    counted_round: round.describe("the round number counted against the cap (restarts and retries keep it)"),
    cap: z.number().int().min(1).max(1000).describe("effective cap: the resolved cap plus human extensions"),
    restart_of: round.nullable(),
    restart_reason: RestartReason.nullable(),
    author_host: nonBlank,
    author_model: z.string().nullable(),
    author_family: Family,
    author_family_source: z.enum(["declared-model", "host-map", "unknown"]),
    reviewer_provider: nonBlank,
    reviewer_adapter: nonBlank,
    reviewer_model: z.string().nullable(),
    reviewer_family: Family,
    independence: Independence,
    selection_status: z.enum(["selected", "degraded-local", "skipped"]),
    selection_reason: z.string(),
    artifact_path: nonBlank,
    artifact_sha256: sha256Hex.describe("sha256 of the scrubbed artifact bytes embedded in this packet"),
    artifact_raw_sha256: sha256Hex
      .optional()
      .describe(
        "sha256 of the artifact file's raw bytes when the packet was issued: an edit inside a redacted region still restarts the round",
      ),
    difficulty: Difficulty.optional().describe("absent means medium; nightmare packets carry paths, not the artifact"),
    stop: StopPolicy.optional().describe("absent means verdict"),
    quorum: QuorumRule.optional().describe(
      "a quorum round's member packet (packet-<n>.<provider>.md): the rule the round is judged by, fixed when it was issued",
    ),
    issued_at: isoTime,
  })
  .meta({ title: "review/<gate>/packet-<n>.md front matter" });
export type PacketFrontMatter = z.infer<typeof PacketFrontMatter>;

export const Attempt = z
  .object({
    schema_version: z.literal("guild_bus.attempt.v1"),
    run_id: runId,
    gate,
    round,
    packet_id: nonBlank,
    provider: nonBlank,
    worker: z.object({ host: z.string(), pid: z.number().int() }),
    started_at: isoTime,
  })
  .meta({ title: "review/<gate>/attempt-<n>.json", description: "Recorded before a reviewer is dispatched." });
export type Attempt = z.infer<typeof Attempt>;

export const FailureKind = z.enum(["malformed", "no_verdict", "unavailable"]);
export const Failure = z
  .object({
    schema_version: z.literal("guild_bus.failure.v1"),
    run_id: runId,
    gate,
    round,
    packet_id: nonBlank,
    kind: FailureKind,
    reason: nonBlank,
    reviewer_provider: z.string().optional(),
    reviewer_model: z.string().nullable().optional(),
    dispatch_attempts: z.array(DispatchAttempt).optional().describe("every dispatch of the round, in order"),
    at: isoTime,
  })
  .meta({ title: "review/<gate>/failure-<n>.json", description: "A round that ended without a result." });
export type Failure = z.infer<typeof Failure>;

export const GatePassConditions = z.object({
  parses: z.boolean(),
  packet_id_match: z.boolean(),
  sha256_match: z.boolean(),
  satisfied: z.boolean(),
  no_blockers: z.boolean(),
});
export const GatePassReport = z.object({
  pass: z.boolean(),
  conditions: GatePassConditions,
  recomputed_sha256: sha256Hex,
  reasons: z.array(z.string()),
});
export type GatePassReport = z.infer<typeof GatePassReport>;

export const ScoreGate = z
  .object({
    score: z.number().nullable(),
    readiness: Readiness.nullable(),
    available: z.boolean().describe("a finite score within 1–10 and a readiness were taken from the reviewer's own output"),
    positive: z.boolean().describe("available, score ≥ 6 and readiness ready or almost"),
    reasons: z.array(z.string()),
  })
  .describe("the score condition (ARIS's stop rule), evaluated for every result; applied only under stop=score");
export type ScoreGate = z.infer<typeof ScoreGate>;

export const VerdictFile = z
  .object({
    schema_version: z.literal("guild_bus.verdict.v1"),
    run_id: runId,
    gate,
    round,
    packet_id: nonBlank,
    packet_sha256: sha256Hex
      .optional()
      .describe("sha256 of the packet file bytes the result was judged against (absent in verdicts from before it was recorded)"),
    result_sha256: sha256Hex.describe("sha256 of the result file bytes that were verified"),
    artifact_sha256_reviewed: z.string().nullable(),
    result_verdict: z.string().nullable(),
    blocking_count: z.number().int().min(0).nullable(),
    reviewer_model: z.string().nullable(),
    reviewer_family: Family,
    independence_violation: z.boolean(),
    gate_pass: GatePassReport,
    score_gate: ScoreGate.optional(),
    blocking_keys: z
      .array(z.string().regex(/^[0-9a-f]{16}$/))
      .max(200)
      .optional()
      .describe("each blocking finding's key (sha256 of its normalised title and evidence, 16 hex), sorted: stall detection (§14)"),
    rulings: z
      .object({ upheld: z.number().int().min(0), withdrawn: z.number().int().min(0) })
      .optional()
      .describe("a ruling round: how many contested findings were upheld (each keeps the gate closed) and withdrawn"),
    verified_at: isoTime,
  })
  .meta({ title: "review/<gate>/verdict-<n>.json" });
export type VerdictFile = z.infer<typeof VerdictFile>;

export const Resubmit = z
  .object({
    schema_version: z.literal("guild_bus.resubmit.v1"),
    run_id: runId,
    gate,
    after_round: round,
    at: isoTime,
  })
  .meta({ title: "review/<gate>/resubmit-<n>.json", description: "The author revised the artifact after round n." });

export const EscalationReason = z.enum([
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
  "artifact_missing",
  "artifact_too_large",
  "artifact_not_text",
  "scrub_failed",
  "stalled",
]);
export type EscalationReason = z.infer<typeof EscalationReason>;
export const StallPattern = z.enum(["repeated_findings", "unchanged_resubmit", "score_regression", "alternating_versions"]);
export type StallPattern = z.infer<typeof StallPattern>;
export const StallEvidence = z.object({
  pattern: StallPattern,
  since_round: z.number().int().min(1).describe("the first round of the pattern"),
  rounds: z.array(z.number().int().min(1)).describe("the rounds that show it, oldest first"),
  findings: z
    .array(z.object({ title: z.string(), evidence: z.string().optional() }))
    .optional()
    .describe("repeated_findings: the blocking findings raised again, as the reviewer wrote them (scrubbed)"),
  artifact_sha256: z.array(sha256Hex).optional().describe("the artifact bytes each round reviewed, and last the resubmitted ones"),
  scores: z.array(z.number()).optional().describe("score_regression: the scores of the rounds, oldest first"),
});
export type StallEvidence = z.infer<typeof StallEvidence>;
export const DecisionChoice = z.enum(["force-pass", "extend-cap", "rework", "retry", "override", "continue", "stop"]);
export type DecisionChoice = z.infer<typeof DecisionChoice>;

export const Escalation = z
  .object({
    schema_version: z.literal("guild_bus.escalation.v1"),
    run_id: runId,
    gate,
    round: z.number().int().min(0),
    reason: EscalationReason,
    detail: z.string(),
    options: z.array(DecisionChoice),
    stall: StallEvidence.optional().describe("reason stalled: the pattern and the rounds that show it"),
    at: isoTime,
  })
  .meta({ title: "review/<gate>/escalation-<n>.json" });
export type Escalation = z.infer<typeof Escalation>;

export const Decision = z
  .object({
    schema_version: z.literal("guild_bus.decision.v1"),
    run_id: runId,
    gate,
    round: z.number().int().min(0),
    choice: DecisionChoice,
    extend_by: z.number().int().min(1).max(5).optional(),
    note: z.string().optional(),
    decided_by: z.string().optional(),
    escalation_sha256: sha256Hex
      .optional()
      .describe("sha256 of the escalation-<n>.json bytes this answers: a decision naming none must be dated after it, never ahead of now"),
    at: isoTime,
  })
  .meta({ title: "review/<gate>/decision-<n>.json" });
export type Decision = z.infer<typeof Decision>;

export const OutcomeStatus = z.enum(["satisfied", "skipped", "force_passed", "rework", "stopped"]);
export const Outcome = z
  .object({
    schema_version: z.literal("guild_bus.outcome.v1"),
    run_id: runId,
    gate,
    status: OutcomeStatus,
    author_host: z.string(),
    author_family: Family,
    reviewer_host: z.string().nullable(),
    reviewer_model: z.string().nullable(),
    reviewer_family: Family.nullable(),
    family_relation: z.enum(["different", "same", "unknown"]).nullable().optional().describe("author vs reviewer family, as classified"),
    author_family_source: z.enum(["declared-model", "host-map", "unknown"]).optional(),
    identity_assurance: z
      .string()
      .nullable()
      .optional()
      .describe("how the reviewer model is known: reported by the CLI/endpoint, requested (not reported), or declared (unverified)"),
    independence: Independence.nullable(),
    rounds: z.number().int().min(0),
    satisfied_at_round: round.optional(),
    final_round: z.number().int().min(0),
    artifact_sha256: z.string().nullable(),
    artifact_raw_sha256: sha256Hex
      .nullable()
      .optional()
      .describe("sha256 of the artifact file's raw bytes at the outcome: an edit inside a redacted region is a change too"),
    quorum: z
      .object({
        need: z.number().int().min(1),
        of: z.number().int().min(1),
        families: z.array(Family).optional(),
        members: z.array(z.object({ provider: z.string(), family: Family, model: z.string().nullable() })),
      })
      .optional()
      .describe("a satisfied quorum gate: the reviewers whose passes counted, one per family, all on artifact_sha256"),
    reason: z.string(),
    trail_path: z.string(),
    at: isoTime,
  })
  .meta({ title: "review/<gate>/outcome.json" });
export type Outcome = z.infer<typeof Outcome>;

export const TrailEntry = z
  .object({
    round,
    counted_round: round,
    restart_of: round.nullable(),
    restart_reason: RestartReason.nullable().optional(),
    reviewer_host: z.string(),
    reviewer_model: z.string().nullable(),
    reviewer_family: Family,
    independence: Independence,
    member: z.string().optional().describe("a quorum round: the member reviewer this entry is for (SPEC §26)"),
    packet: z.string(),
    result: z.string().nullable(),
    post_sentinel_scan: z.string(),
    artifact_sha256_packet: z.string(),
    artifact_sha256_reviewed: z.string().nullable(),
    verifier_recomputed_sha256: z.string().nullable(),
    gate_pass: z.boolean().nullable(),
    reasons: z.array(z.string()),
    verdict: z.string().nullable(),
    blocking_findings: z.number().int().nullable(),
    score: z.number().nullable().optional(),
    readiness: Readiness.nullable().optional(),
    dispatch: z.array(z.string()).optional().describe("each dispatch attempt of the round, then the provider, model and effort that ran"),
    state: z.string(),
  })
  .meta({ title: "one round of trail.md (also in `status --json`)" });
export type TrailEntry = z.infer<typeof TrailEntry>;

export const Event = z
  .object({
    ts: isoTime,
    event: z.enum(["codex_review_round", "review_escalation", "review_outcome"]),
    run_id: runId,
    gate,
    round_number: z.number().int().min(0),
    terminated_by_satisfied: z.boolean().optional(),
    reviewer_host: z.string().optional(),
    independence: Independence.optional(),
    reason: z.string().optional(),
    status: z.string().optional(),
  })
  .loose()
  .meta({ title: "runs/<run-id>/events.jsonl line" });
export type Event = z.infer<typeof Event>;

/** A copilot agent profile name: a plain file name under .github/agents/. */
export const COPILOT_PROFILE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const TierPair = z.object({ model: z.string().optional(), effort: Effort.optional() });

export const ProviderConfig = z
  .object({
    adapter: z.enum(ADAPTER_KINDS),
    model: z.string().optional().describe("model id requested from (or declared for) this reviewer"),
    argv: z.array(z.string()).min(1).optional().describe("command adapter: program and arguments, no shell"),
    input: z.enum(["stdin", "file"]).default("stdin").describe("command adapter: packet on stdin, or its path appended to argv"),
    timeout_ms: z.number().int().min(100).max(86_400_000).optional(),
    env: z.array(z.string()).optional().describe("extra environment variable names passed to the child"),
    selectable: z.boolean().default(true).describe("may auto selection pick it"),
    binary: z.string().optional().describe("codex/claude/gemini adapters: the CLI to run (default: its usual name on PATH)"),
    extra_args: z.array(z.string()).optional().describe("extra CLI flags (never packet content)"),
    base_url: z.string().optional().describe("http adapter (and CLIs that take one): the API base URL"),
    api_key_env: z.string().optional().describe("name of the environment variable holding the API key (the key itself is never stored)"),
    fallback: z.array(z.string()).optional().describe("provider ids to try, in order, only when this one proves no review ran"),
    structured_output: z
      .boolean()
      .optional()
      .describe("http adapter: send a JSON-schema response_format (default true; some endpoints reject it)"),
    effort: Effort.optional().describe("reasoning effort sent on every call (the regular tier's unless effort_tiers says otherwise)"),
    effort_tiers: z
      .object({ regular: TierPair.optional(), "deep-audit": TierPair.optional() })
      .optional()
      .describe("per tier (settings.gate_tiers picks it per gate): the model and effort to send instead of model and effort"),
    effort_chain: z
      .array(Effort)
      .optional()
      .describe("efforts to step down through, in order, only when one is refused as unsupported before any review ran"),
    model_chain: z
      .array(z.string())
      .optional()
      .describe("models to step through, in order, only when one is refused as unknown before any review ran"),
    effort_floor: Effort.optional().describe("never send an effort below this one (and refuse to run a CLI whose effort cannot be set)"),
    copilot_profiles: z
      .partialRecord(Family, z.string().regex(COPILOT_PROFILE_RE))
      .optional()
      .describe("copilot adapter: model family → custom agent profile (.github/agents/<profile>.agent.md) whose model is of that family"),
  })
  .loose();
export type ProviderConfig = z.infer<typeof ProviderConfig>;

export const Settings = z
  .object({
    schema_version: z.literal("guild_bus.settings.v1").optional(),
    review: ReviewMode.optional(),
    require_review: z.boolean().optional(),
    max_rounds: z.number().int().min(1).max(100).optional().describe("the round cap when the request gives none"),
    codex_cap: z.number().int().min(1).max(100).optional().describe("the older name of max_rounds (max_rounds wins when both are set)"),
    codex_skip_enforcement: z.enum(["warn", "block"]).optional(),
    reviewer: z.string().optional().describe("auto, or a provider id to pin"),
    weak_reviewer: z.string().optional().describe("provider for the weak same-host path"),
    providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/), ProviderConfig).optional(),
    family_aliases: z.record(z.string(), Family).optional(),
    host_families: z.record(z.string(), Family).optional(),
    secrets_policy: z
      .object({
        env_allowlist: z.array(z.string()).optional(),
        redaction_patterns: z.array(z.string()).optional(),
      })
      .optional(),
    restart_cap: z.number().int().min(1).max(50).optional(),
    stall_detection: z
      .boolean()
      .optional()
      .describe("escalate a loop that stopped making progress (repeated findings, unchanged resubmit, …) as stalled (default true)"),
    stop: StopPolicy.optional().describe("the stop policy when the request gives none (default verdict)"),
    difficulty: Difficulty.optional().describe("the difficulty when the request gives none (default medium)"),
    human_checkpoint: z.boolean().optional().describe("the human checkpoint when the request gives none (default false)"),
    foreign_grace_ms: z
      .number()
      .int()
      .min(0)
      .max(600_000)
      .optional()
      .describe("how long an invalid foreign drop may still be being written before it is quarantined"),
    stop_gate: z
      .object({
        enabled: z.boolean().optional().describe("block the author host's turn while a gate it opened waits for it (default false)"),
        max_blocks: z.number().int().min(1).max(20).optional().describe("blocks per gate before the turn may end (default 2)"),
      })
      .optional()
      .describe("the author hosts' stop hook (`guild-bus hook stop`; `guild-bus gate on|off`)"),
    gate_tiers: z
      .record(z.string(), EffortTier)
      .optional()
      .describe("gate (G-lane for every lane gate) → effort tier; regular when absent"),
    gate_quorum: z
      .record(
        z.string(),
        z
          .object({
            need: z.number().int().min(1).max(8).optional().describe("K (default: the named families, else of)"),
            of: z.number().int().min(1).max(8).optional().describe("N (default: need, at least the named families)"),
            families: z.array(Family).optional(),
          })
          .strict(),
      )
      .optional()
      .describe("gate (G-lane for every lane gate) → its quorum when the request asks for none (SPEC §26)"),
  })
  .loose()
  .meta({ title: ".guild/settings.json" });
export type Settings = z.infer<typeof Settings>;

export const Capability = z
  .object({
    schema_version: z.literal("host_capability.v1").optional(),
    host: z.string().optional(),
    provider: z.string().optional(),
    id: z.string().optional(),
    model: z.string().optional(),
    family: z.string().optional().describe("informational: the bus derives families from model strings only"),
    providers: z.array(z.object({ id: z.string(), model: z.string().optional(), family: z.string().optional() }).loose()).optional(),
  })
  .loose()
  .meta({ title: ".guild/hosts/<host>/capability.json" });

export const CodexSkipStreak = z
  .object({
    schema_version: z.literal("guild.codex_skip_streak.v1"),
    streak: z.number().int().min(0),
    threshold: z.number().int().optional(),
    blocked: z.boolean(),
    updated_at: z.string().optional(),
    reason: z.string().optional(),
    clear_by: z.string().optional(),
  })
  .loose()
  .meta({ title: ".guild/codex-skip-streak.json" });

/** Every schema published in bus-spec/schemas, by file stem. */
export const PUBLISHED_SCHEMAS = {
  "review_result.v1": ReviewResultLenient,
  "review_result.v1.strict": ReviewResultStrict,
  packet: PacketFrontMatter,
  request: Request,
  attempt: Attempt,
  failure: Failure,
  verdict: VerdictFile,
  resubmit: Resubmit,
  escalation: Escalation,
  decision: Decision,
  outcome: Outcome,
  trail_entry: TrailEntry,
  event: Event,
  settings: Settings,
  capability: Capability,
  codex_skip_streak: CodexSkipStreak,
  run: RunMeta,
} as const;

/** Flatten zod issues to "path: message" lines, every problem, not just the first. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "(root)";
    if (issue.code === "invalid_type" && issue.path.length && issue.message.endsWith("received undefined")) {
      return `missing required field: ${where}`;
    }
    return `${where}: ${issue.message}`;
  });
}
