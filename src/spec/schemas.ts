// The one schema module: every file the bus reads or writes is described here, and bus-spec/schemas/*.json
// are generated from these definitions (src/spec/generate.ts). Written with zod/mini: every command and worker loads
// this module, and with zod's chained API it took about 70 ms to load, with zod/mini about 45 (see bench/README.md).
import * as z from "zod/mini";
import { GATE_RE, PROVIDER_ID_RE, RUN_ID_RE, SHA256_RE } from "./ids.js";
import { ADAPTER_KINDS, FAMILIES, MAX_EXTEND_BY, RESULT_WIRE } from "./constants.js";
import { quorumProblem } from "./quorum-rule.js";
import { SPACE, UNPRINTABLE } from "./text-classes.js";

// zod/mini ships without messages; the bus reports zod's English ones ("Invalid input: expected string, …")
z.config(z.locales.en());

/** A copy of the schema carrying metadata for the generated JSON Schema (as a registry entry, never a check). */
function withMeta<T extends z.ZodMiniType>(schema: T, meta: { title?: string; description?: string }): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, meta);
  return copy;
}
/**
 * A schema built on its first use rather than when this module loads: every command loads this module, most use a few
 * of the file schemas, and building them all took about 6 ms of every start (bench/README.md). The proxy stands for the
 * schema everywhere (the schemas built from it hold it, and its metadata is registered on it); the schema it builds is
 * its own, so the metadata needs no copy.
 */
function onFirstUse<T extends z.ZodMiniType>(build: () => T, meta?: { title?: string; description?: string }): T {
  let schema: T | undefined;
  const built = () => (schema ??= build());
  const proxy = new Proxy({} as T, {
    get: (_, key) => Reflect.get(built(), key),
    set: (_, key, value) => Reflect.set(built(), key, value),
    has: (_, key) => Reflect.has(built(), key),
    ownKeys: () => Reflect.ownKeys(built()),
    // reported configurable: the stand-in object lacks the schema's own non-configurable `_zod`
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(built(), key);
      return found && { ...found, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(built(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(built(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(built()),
  });
  if (meta) z.globalRegistry.add(proxy, meta);
  return proxy;
}
/** A copy of the schema with a description. */
export function described<T extends z.ZodMiniType>(schema: T, description: string): T {
  return withMeta(schema, { description });
}
/**
 * A field that belongs to other values of its object's discriminator (`extend_by` only with `extend-cap`): present
 * here, it makes the file invalid, by name. The generated JSON Schema says it too (the field's schema is `not: {}`).
 */
const belongsTo = (owner: string) => described(z.optional(z.never({ error: `belongs to ${owner} only` })), `only with ${owner}`);
/** The objects keyed by one field (a discriminated union): a value no branch takes is named as an enum's would be. */
const keyedBy = (values: readonly string[]) => ({
  error: (issue: { code?: string }) =>
    issue.code === "invalid_union" ? `Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join("|")}` : undefined,
});
/** Every value of `values` but `but`, as an enum (the other branch of a discriminated union). */
const enumBut = <T extends string, U extends T>(values: readonly T[], but: readonly U[]) =>
  z.enum(values.filter((v): v is Exclude<T, U> => !(but as readonly T[]).includes(v)) as [Exclude<T, U>, ...Exclude<T, U>[]]);
const wholeNumbers = new Map<string, z.ZodMiniNumber>();
/** A whole number, at least min and at most max when they are given (one shared instance per range). */
export function wholeNumber(min?: number, max?: number): z.ZodMiniNumber {
  const range = `${min}..${max}`;
  let schema = wholeNumbers.get(range);
  if (!schema) {
    const bounds = [...(min === undefined ? [] : [z.minimum(min)]), ...(max === undefined ? [] : [z.maximum(max)])];
    schema = z.number().check(z.int(), ...bounds);
    wholeNumbers.set(range, schema);
  }
  return schema;
}
const patterned = (re: RegExp, message?: string) => z.string().check(z.regex(re, message));

// Patterns spell their classes out (src/spec/text-classes.ts): the generated JSON Schemas must mean the same to
// every validator, and Python's re has no \p{…} and another \s and \d.
const nonBlank = patterned(new RegExp(`[^${SPACE}]`, "u"), "must be a non-blank string");
/** One line, 1 to 200 characters, no control or format character, no outer space (the inside of its pattern). */
const ONE_LINE = `[^${SPACE}${UNPRINTABLE}](?:[^${UNPRINTABLE}]{0,198}[^${SPACE}${UNPRINTABLE}])?`;
/** A host or model name as a result gives it: it is printed on one line in trail.md, status and the console. */
const oneLineName = patterned(
  new RegExp(`^${ONE_LINE}$`, "u"),
  "must be one line without control or format characters or outer spaces, at most 200 characters",
);
/**
 * The author's host or model as a request names it (outer spaces, as hosts send them, are trimmed): copied into every
 * packet and shown on one line, so bounded and printable. The request's author_model; `review` holds its host to it too.
 */
export const AuthorName = patterned(
  new RegExp(`^[${SPACE}]*(?:${ONE_LINE})?[${SPACE}]*$`, "u"),
  "must be one line without control or format characters, at most 200 characters",
);
/** A project path as a request names it: packets name it in backticks on one line (the broker refuses others). */
const projectPath = patterned(
  new RegExp(`^[^${UNPRINTABLE}\`]*[^${SPACE}${UNPRINTABLE}\`][^${UNPRINTABLE}\`]*$`, "u"),
  "must be a non-blank path without control, format, line-separator or backtick characters (a packet names it in backticks)",
);
const sha256Hex = patterned(SHA256_RE, "must be 64 hex characters");
const isoTime = patterned(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T/, "must be an ISO-8601 timestamp");
const runId = patterned(RUN_ID_RE);
const gate = patterned(GATE_RE);
const round = wholeNumber(1);
// One instance each, shared by every field (a schema never changes once built, and metadata goes on a copy): every
// instance built costs every start.
const OPTIONAL_STRING = z.optional(z.string());
const NULLABLE_STRING = z.nullable(z.string());
const optionalString = () => OPTIONAL_STRING;
const nullableString = () => NULLABLE_STRING;

export { FAMILIES };
export const Family = z.enum(FAMILIES);
export type Family = z.infer<typeof Family>;
/** A family a quorum can name: a known one (a member of no known family counts for none). */
export const KnownFamily = z.enum(FAMILIES.filter((f): f is Exclude<Family, "unknown"> => f !== "unknown"));
export type KnownFamily = z.infer<typeof KnownFamily>;
export const Independence = z.enum(["strong", "weak"]);
export type Independence = z.infer<typeof Independence>;
export const Severity = z.enum(["blocking", "high", "medium", "low", "info"]);
export const Verdict = z.enum(["satisfied", "issues"]);

/** A finding as the lenient reader takes it: any JSON value but blank text (it would have no title). */
const FindingItem = onFirstUse(() =>
  z.union([nonBlank, z.number(), z.boolean(), z.null(), z.record(z.string(), z.unknown()), z.array(z.unknown())]),
);

/**
 * What any result file must be (consume-only): Guild's reader, plus the shapes the bus's answer reader refuses in what
 * the gate reads (the verdict, the finding lists, the rulings). Unknown keys tolerated, finding objects not inspected.
 */
export const ReviewResultLenient = onFirstUse(
  () =>
    z.looseObject({
      schema_version: z.optional(z.literal(RESULT_WIRE)),
      packet_id: nonBlank,
      artifact_sha256_reviewed: nonBlank,
      verdict: Verdict,
      blocking_findings: z.array(FindingItem),
      findings: z.optional(z.nullable(z.array(FindingItem))),
      rulings: z.optional(z.nullable(z.array(Ruling))),
    }),
  { title: "review_result.v1 (lenient reader)", description: "What any reviewer may deliver as result-<n>.json." },
);
export type ReviewResultLenient = z.infer<typeof ReviewResultLenient>;

export const Finding = onFirstUse(() =>
  z.looseObject({
    id: optionalString(),
    severity: Severity,
    title: nonBlank,
    detail: optionalString(),
    evidence: optionalString(),
  }),
);
export type Finding = z.infer<typeof Finding>;

export const Readiness = z.enum(["ready", "almost", "not ready"]);
export type Readiness = z.infer<typeof Readiness>;

/** The auto-review-loop modes (bus-spec/SPEC.md §21), chosen per request or in settings. */
export const StopPolicy = z.enum(["verdict", "score"]);
export type StopPolicy = z.infer<typeof StopPolicy>;
export const Difficulty = z.enum(["medium", "hard", "nightmare"]);
export type Difficulty = z.infer<typeof Difficulty>;

/** A reviewer's ruling on one finding the author contested (hard and nightmare difficulty). */
export const Ruling = onFirstUse(() =>
  z.looseObject({
    finding: described(nonBlank, "the contested finding (its title or id)"),
    ruling: z.enum(["upheld", "withdrawn"]),
    reason: optionalString(),
  }),
);
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
export const DispatchAttempt = onFirstUse(() =>
  z.looseObject({
    provider: nonBlank,
    adapter: nonBlank,
    model: described(nullableString(), "the model requested (null: the CLI's default)"),
    effort: described(z.nullable(Effort), "the reasoning effort sent (null: none sent)"),
    tier: EffortTier,
    outcome: z.enum(["output", "not-run", "ambiguous"]),
    capability: described(z.optional(CapabilityError), "not-run because the effort or the model was refused before any review ran"),
    reason: optionalString(),
    note: described(optionalString(), "e.g. effort not supported by this CLI"),
    repair: described(z.optional(z.boolean()), "the schema-repair dispatch"),
  }),
);
export type DispatchAttempt = z.infer<typeof DispatchAttempt>;

/** Results the bus itself writes: the lenient shape plus closed enums and identity fields. */
export const ReviewResultStrict = onFirstUse(
  () =>
    z.looseObject({
      schema_version: z.literal(RESULT_WIRE),
      packet_id: nonBlank,
      artifact_sha256_reviewed: sha256Hex,
      verdict: Verdict,
      summary: optionalString(),
      findings: z.array(Finding),
      blocking_findings: z.array(Finding),
      round,
      reviewer_host: oneLineName,
      reviewer_model: oneLineName,
      reviewer_model_source: z.optional(z.enum(["reported", "requested", "declared"])),
      reviewer_family: z.optional(Family),
      normalized_from: z.optional(z.enum(["structured", "fenced", "whole-json", "sentinel", "manual"])),
      repaired: z.optional(z.boolean()),
      score: described(z.optional(z.number()), "the reviewer's score out of 10, as it gave it (the verifier judges its range)"),
      readiness: z.optional(Readiness),
      score_problems: described(
        z.optional(z.array(z.string())),
        "why no score or readiness could be taken from the output (the score gate is then unavailable)",
      ),
      memory_update: described(optionalString(), "hard/nightmare: the reviewer's notes to itself for its next round"),
      rulings: described(z.optional(z.array(Ruling)), "a ruling round: the reviewer's ruling on each contested finding"),
      dispatch_attempts: described(z.optional(z.array(DispatchAttempt)), "every dispatch of the round, in order"),
      ran: described(
        z.optional(z.object({ provider: nonBlank, model: nullableString(), effort: z.nullable(Effort), tier: EffortTier })),
        "the provider and the (model, effort) pair whose answer this is",
      ),
      identity_assurance: described(
        z.optional(z.enum(["caller-declared-unverified"])),
        "copilot: the model is the profile's, declared by configuration; nothing reported it",
      ),
      copilot_profile: described(optionalString(), "copilot: the custom agent profile that ran"),
      delivery_key: described(
        optionalString(),
        "the key whose sha256 the round's attempt-<n>.json recorded: this result is the dispatching worker's own",
      ),
    }),
  { title: "review_result.v1 (as written by the bus)" },
);
export type ReviewResultStrict = z.infer<typeof ReviewResultStrict>;

let resultFields: ReadonlySet<string> | undefined;
/** Every field name of a result and of the objects it lists: the keys the scrubber never renames (`scrubResult`). */
export function resultFieldNames(): ReadonlySet<string> {
  return (resultFields ??= new Set([ReviewResultStrict, Finding, Ruling, DispatchAttempt].flatMap((schema) => Object.keys(schema.shape))));
}

/** A quorum gate's rule (SPEC §26): K of N reviewers of pairwise-distinct families, none the author's, must pass. */
export const QuorumRule = onFirstUse(() =>
  z
    .object({
      need: described(wholeNumber(1, 8), "K: how many distinct families must pass on the same artifact bytes"),
      of: described(wholeNumber(1, 8), "N: how many reviewers each round dispatches"),
      families: described(
        z.optional(z.array(KnownFamily)),
        "families that must be among those that pass (e.g. openai and google for G-spec); need ≤ of, and at most need distinct families " +
          "(JSON Schema cannot compare two values: the schema's own refinement, quorumProblem, checks it)",
      ),
    })
    .check(
      z.superRefine((q, ctx) => {
        const problem = quorumProblem(q);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      }),
    ),
);
export type QuorumRule = z.infer<typeof QuorumRule>;

export const ReviewMode = z.enum(["cross", "local", "off"]);
export type ReviewMode = z.infer<typeof ReviewMode>;

export const RunMeta = onFirstUse(
  () =>
    z.object({
      schema_version: z.literal("guild_bus.run.v1"),
      run_id: runId,
      created_at: isoTime,
      created_by: optionalString(),
    }),
  { title: "runs/<run-id>/run.json" },
);

export const Request = onFirstUse(
  () =>
    z.object({
      schema_version: z.literal("guild_bus.request.v1"),
      run_id: runId,
      gate,
      artifact_path: described(projectPath, "path of the artifact, relative to the project root (the parent of .guild/)"),
      author_host: nonBlank,
      author_host_source: described(
        z.optional(z.enum(["declared", "mcp-client-info"])),
        "mcp-client-info: the host is the MCP client's own name from the handshake, not a claim of the caller",
      ),
      author_host_version: described(optionalString(), "the MCP client's version from the handshake"),
      // copied (trimmed) into every packet: bounded, so a packet cannot outgrow a gate file for a reason no retry changes
      author_model: z.optional(AuthorName),
      reviewer: described(z._default(z.string(), "auto"), "auto, or a provider id to pin"),
      review: z.optional(ReviewMode),
      risk: z.optional(z.enum(["low", "medium", "high"])),
      cap: z.optional(wholeNumber(1)),
      stop: described(
        z.optional(StopPolicy),
        "verdict: the five-condition gate; score: score ≥ 6 and readiness ready|almost replace the verdict condition",
      ),
      difficulty: z.optional(Difficulty),
      human_checkpoint: described(
        z.optional(z.boolean()),
        "wait for `guild-bus decide continue|stop|rework` after every round that does not end the gate",
      ),
      restart_cap: described(
        z.optional(wholeNumber(1, 50)),
        "settings.restart_cap when the gate was requested: what the gate's rounds and escalations are judged by",
      ),
      stall_detection: described(
        z.optional(z.boolean()),
        "settings.stall_detection when the gate was requested: what the gate's rounds and escalations are judged by",
      ),
      paths: described(
        z.optional(z.array(projectPath)),
        "further project-relative paths the reviewer should read (listed in every packet; read directly at nightmare)",
      ),
      quorum: described(z.optional(QuorumRule), "a quorum gate: every round goes to N reviewers of distinct families (SPEC §26)"),
      requested_at: isoTime,
    }),
  { title: "review/<gate>/request.json" },
);
export type Request = z.infer<typeof Request>;

export const RestartReason = z.enum(["artifact_changed", "retry", "malformed", "degraded", "ruling", "finalizer"]);

/** The family classification a packet's round was issued under (SPEC §7): review/<gate>/family-maps-<sha>.json. */
export const FamilyMaps = onFirstUse(
  () => z.object({ family_aliases: z.record(z.string(), Family), host_families: z.record(z.string(), Family) }),
  {
    title: "review/<gate>/family-maps-<sha>.json",
    description: "settings.family_aliases whole and the author host's settings.host_families entry; named by the sha256 of its bytes",
  },
);
export type FamilyMaps = z.infer<typeof FamilyMaps>;

export const PacketFrontMatter = onFirstUse(
  () =>
    z.object({
      schema_version: z.literal("guild_bus.packet.v1"),
      packet_id: nonBlank,
      run_id: runId,
      gate,
      round,
      counted_round: described(round, "the round number counted against the cap (restarts and retries keep it)"),
      cap: described(wholeNumber(1, 1000), "effective cap: the resolved cap plus human extensions"),
      restart_of: z.nullable(round),
      restart_reason: z.nullable(RestartReason),
      author_host: nonBlank,
      author_model: nullableString(),
      author_family: Family,
      author_family_source: z.enum(["declared-model", "host-map", "unknown"]),
      reviewer_provider: nonBlank,
      reviewer_adapter: nonBlank,
      reviewer_model: nullableString(),
      reviewer_family: Family,
      independence: Independence,
      selection_status: z.enum(["selected", "degraded-local", "skipped"]),
      selection_reason: z.string(),
      family_maps_sha256: described(
        z.optional(sha256Hex),
        "sha256 of the gate's family-maps-<sha>.json the packet was issued under: the round's families are classified " +
          "under its maps, whatever the settings say later; a missing or other file passes nothing",
      ),
      family_maps: described(
        z.optional(FamilyMaps),
        "the same maps inline, as the previous build recorded them (absent with no family_maps_sha256: a packet of an " +
          "earlier build, classified under the settings)",
      ),
      contested_titles: described(
        z.optional(z.array(z.string())),
        "a ruling round: the title of each contested finding as this packet shows it (scrubbed, then cut); its ruling is " +
          "counted against them, whatever the redaction settings say later (absent: a packet of an earlier build)",
      ),
      artifact_path: nonBlank,
      artifact_sha256: described(sha256Hex, "sha256 of the scrubbed artifact bytes embedded in this packet"),
      artifact_raw_sha256: described(
        z.optional(sha256Hex),
        "sha256 of the artifact file's raw bytes when the packet was issued: an edit inside a redacted region still restarts the round",
      ),
      artifact_changed_at_ms: described(
        z.optional(wholeNumber()),
        "nightmare packets: the artifact file's ctime (whole ms, by the file system's clock) when the packet was issued; " +
          "a later one restarts the round",
      ),
      difficulty: described(z.optional(Difficulty), "absent means medium; nightmare packets carry paths, not the artifact"),
      stop: described(z.optional(StopPolicy), "absent means verdict"),
      quorum: described(
        z.optional(QuorumRule),
        "a quorum round's member packet (packet-<n>.<provider>.md): the rule the round is judged by, fixed when it was issued",
      ),
      issued_at: isoTime,
    }),
  { title: "review/<gate>/packet-<n>.md front matter" },
);
export type PacketFrontMatter = z.infer<typeof PacketFrontMatter>;

export const Attempt = onFirstUse(
  () =>
    z.object({
      schema_version: z.literal("guild_bus.attempt.v1"),
      run_id: runId,
      gate,
      round,
      packet_id: nonBlank,
      provider: nonBlank,
      worker: z.object({ host: z.string(), pid: wholeNumber() }),
      started_at: isoTime,
      delivery_key_sha256: described(
        z.optional(sha256Hex),
        "sha256 of a key the dispatching worker keeps in memory and writes into the result it delivers: the round takes no other result",
      ),
      end_key_sha256: described(
        z.optional(sha256Hex),
        "sha256 of a second key the worker keeps, written into the failure it delivers if the round ends without a result: " +
          "a malformed or unavailable failure without it ends nothing",
      ),
    }),
  { title: "review/<gate>/attempt-<n>.json", description: "Recorded before a reviewer is dispatched." },
);
export type Attempt = z.infer<typeof Attempt>;

export const FailureKind = z.enum(["malformed", "no_verdict", "unavailable"]);
export const Failure = onFirstUse(
  () =>
    z.object({
      schema_version: z.literal("guild_bus.failure.v1"),
      run_id: runId,
      gate,
      round,
      packet_id: nonBlank,
      kind: FailureKind,
      reason: nonBlank,
      reviewer_provider: optionalString(),
      reviewer_model: z.optional(nullableString()),
      dispatch_attempts: described(z.optional(z.array(DispatchAttempt)), "every dispatch of the round, in order"),
      end_key: described(optionalString(), "the key whose sha256 the round's attempt-<n>.json recorded as end_key_sha256"),
      at: isoTime,
    }),
  { title: "review/<gate>/failure-<n>.json", description: "A round that ended without a result." },
);
export type Failure = z.infer<typeof Failure>;

export const GatePassConditions = onFirstUse(() =>
  z.object({
    parses: z.boolean(),
    packet_id_match: z.boolean(),
    sha256_match: z.boolean(),
    satisfied: z.boolean(),
    no_blockers: z.boolean(),
  }),
);
export const GatePassReport = onFirstUse(() =>
  z.object({
    pass: z.boolean(),
    conditions: GatePassConditions,
    recomputed_sha256: sha256Hex,
    reasons: z.array(z.string()),
  }),
);
export type GatePassReport = z.infer<typeof GatePassReport>;

export const ScoreGate = onFirstUse(
  () =>
    z.object({
      score: z.nullable(z.number()),
      readiness: z.nullable(Readiness),
      available: described(z.boolean(), "a finite score within 1–10 and a readiness were taken from the reviewer's own output"),
      positive: described(z.boolean(), "available, score ≥ 6 and readiness ready or almost"),
      reasons: z.array(z.string()),
    }),
  { description: "the score condition (ARIS's stop rule), evaluated for every result; applied only under stop=score" },
);
export type ScoreGate = z.infer<typeof ScoreGate>;

export const VerdictFile = onFirstUse(
  () =>
    z.object({
      schema_version: z.literal("guild_bus.verdict.v1"),
      run_id: runId,
      gate,
      round,
      packet_id: nonBlank,
      packet_sha256: described(
        z.optional(sha256Hex),
        "sha256 of the packet file bytes the result was judged against (absent in verdicts from before it was recorded)",
      ),
      result_sha256: described(sha256Hex, "sha256 of the result file bytes that were verified"),
      artifact_sha256_reviewed: nullableString(),
      result_verdict: nullableString(),
      blocking_count: z.nullable(wholeNumber(0)),
      reviewer_model: nullableString(),
      reviewer_family: Family,
      independence_violation: z.boolean(),
      violation_families: described(
        z.optional(
          z.object({
            author_family: Family,
            author_family_source: z.enum(["declared-model", "host-map", "unknown"]),
            reviewer_family: Family,
            family_relation: z.enum(["same", "unknown"]),
          }),
        ),
        "with independence_violation: the families as the maps it was sealed under class them (the outcome of its weak " +
          "pass records them); absent in verdicts from before it was recorded",
      ),
      gate_pass: GatePassReport,
      score_gate: z.optional(ScoreGate),
      blocking_keys: described(
        z.optional(z.array(patterned(/^[0-9a-f]{16}$/)).check(z.maxLength(200))),
        "each blocking finding's key (sha256 of its normalised title and evidence, 16 hex), sorted: stall detection (§14)",
      ),
      rulings: described(
        z.optional(z.object({ upheld: wholeNumber(0), withdrawn: wholeNumber(0) })),
        "a ruling round: how many contested findings were upheld (each keeps the gate closed) and withdrawn",
      ),
      verified_at: isoTime,
    }),
  { title: "review/<gate>/verdict-<n>.json" },
);
export type VerdictFile = z.infer<typeof VerdictFile>;

export const Resubmit = onFirstUse(
  () =>
    z.object({
      schema_version: z.literal("guild_bus.resubmit.v1"),
      run_id: runId,
      gate,
      after_round: round,
      at: isoTime,
    }),
  { title: "review/<gate>/resubmit-<n>.json", description: "The author revised the artifact after round n." },
);

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
export const StallEvidence = onFirstUse(() => {
  const REPEATED = 'pattern "repeated_findings"';
  const SHAS = 'pattern "unchanged_resubmit" or "alternating_versions"';
  const REGRESSION = 'pattern "score_regression"';
  const fields = <P extends z.ZodMiniType, F extends z.ZodMiniType, A extends z.ZodMiniType, S extends z.ZodMiniType>(
    pattern: P,
    findings: F,
    shas: A,
    scores: S,
  ) => ({
    pattern,
    since_round: described(wholeNumber(1), "the first round of the pattern"),
    rounds: described(z.array(wholeNumber(1)), "the rounds that show it, oldest first"),
    findings,
    artifact_sha256: shas,
    scores,
  });
  const findings = described(
    z.optional(z.array(z.object({ title: z.string(), evidence: optionalString() }))),
    "repeated_findings: the blocking findings raised again, as the reviewer wrote them (scrubbed)",
  );
  const shas = described(z.optional(z.array(sha256Hex)), "the artifact bytes each round reviewed, and last the resubmitted ones");
  const scores = described(z.optional(z.array(z.number())), "score_regression: the scores of the rounds, oldest first");
  return z.discriminatedUnion(
    "pattern",
    [
      z.object(fields(z.literal("repeated_findings"), findings, belongsTo(SHAS), belongsTo(REGRESSION))),
      z.object(fields(z.enum(["unchanged_resubmit", "alternating_versions"]), belongsTo(REPEATED), shas, belongsTo(REGRESSION))),
      z.object(fields(z.literal("score_regression"), belongsTo(REPEATED), belongsTo(SHAS), scores)),
    ],
    keyedBy(StallPattern.options),
  );
});
export type StallEvidence = z.infer<typeof StallEvidence>;
export const DecisionChoice = z.enum(["force-pass", "extend-cap", "rework", "retry", "override", "continue", "stop"]);
export type DecisionChoice = z.infer<typeof DecisionChoice>;

export const Escalation = onFirstUse(
  () => {
    const fields = <R extends z.ZodMiniType, S extends z.ZodMiniType>(reason: R, stall: S) => ({
      schema_version: z.literal("guild_bus.escalation.v1"),
      run_id: runId,
      gate,
      round: wholeNumber(0),
      reason,
      detail: z.string(),
      options: z.array(DecisionChoice),
      stall,
      at: isoTime,
    });
    return z.discriminatedUnion(
      "reason",
      [
        z.object(
          fields(z.literal("stalled"), described(z.optional(StallEvidence), "reason stalled: the pattern and the rounds that show it")),
        ),
        z.object(fields(enumBut(EscalationReason.options, ["stalled"]), belongsTo('reason "stalled"'))),
      ],
      keyedBy(EscalationReason.options),
    );
  },
  { title: "review/<gate>/escalation-<n>.json" },
);
export type Escalation = z.infer<typeof Escalation>;

export const Decision = onFirstUse(
  () => {
    const fields = <C extends z.ZodMiniType, E extends z.ZodMiniType>(choice: C, extendBy: E) => ({
      schema_version: z.literal("guild_bus.decision.v1"),
      run_id: runId,
      gate,
      round: wholeNumber(0),
      choice,
      extend_by: extendBy,
      note: optionalString(),
      decided_by: optionalString(),
      escalation_sha256: described(
        z.optional(sha256Hex),
        "sha256 of the escalation-<n>.json bytes this answers: a decision naming none must be dated after it, never ahead of now",
      ),
      at: isoTime,
    });
    return z.discriminatedUnion(
      "choice",
      [
        z.object(fields(z.literal("extend-cap"), z.optional(wholeNumber(1, MAX_EXTEND_BY)))),
        z.object(fields(enumBut(DecisionChoice.options, ["extend-cap"]), belongsTo('choice "extend-cap"'))),
      ],
      keyedBy(DecisionChoice.options),
    );
  },
  { title: "review/<gate>/decision-<n>.json" },
);
export type Decision = z.infer<typeof Decision>;

export const OutcomeStatus = z.enum(["satisfied", "skipped", "force_passed", "rework", "stopped"]);
export const Outcome = onFirstUse(
  () => {
    const fields = <S extends z.ZodMiniType, A extends z.ZodMiniType, Q extends z.ZodMiniType>(status: S, satisfiedAt: A, quorum: Q) => ({
      schema_version: z.literal("guild_bus.outcome.v1"),
      run_id: runId,
      gate,
      status,
      author_host: z.string(),
      author_family: Family,
      reviewer_host: described(nullableString(), 'the reviewer provider; a quorum pass: the counted members\' ids joined by " + "'),
      reviewer_model: described(
        nullableString(),
        'the reviewer model; a quorum pass: the counted members\' models joined by " + " ("unknown model" for one not known)',
      ),
      reviewer_family: described(
        z.nullable(Family),
        "the reviewer family; a quorum pass: the first counted member's (quorum.members names every member's family and model)",
      ),
      family_relation: described(
        z.optional(z.nullable(z.enum(["different", "same", "unknown"]))),
        "author vs reviewer family, as classified",
      ),
      author_family_source: z.optional(z.enum(["declared-model", "host-map", "unknown"])),
      identity_assurance: described(
        z.optional(nullableString()),
        "how the reviewer model is known: reported by the CLI/endpoint, requested (not reported), or declared (unverified)",
      ),
      independence: z.nullable(Independence),
      rounds: wholeNumber(0),
      satisfied_at_round: satisfiedAt,
      final_round: wholeNumber(0),
      artifact_sha256: nullableString(),
      artifact_raw_sha256: described(
        z.optional(z.nullable(sha256Hex)),
        "sha256 of the artifact file's raw bytes at the outcome: an edit inside a redacted region is a change too",
      ),
      quorum,
      reason: z.string(),
      trail_path: z.string(),
      at: isoTime,
    });
    return z.discriminatedUnion(
      "status",
      [
        z.object(
          fields(
            z.literal("satisfied"),
            z.optional(round),
            described(
              z.optional(
                z.object({
                  need: wholeNumber(1),
                  of: wholeNumber(1),
                  families: z.optional(z.array(Family)),
                  members: z.array(z.object({ provider: z.string(), family: Family, model: nullableString() })),
                }),
              ),
              "a satisfied quorum gate: the reviewers whose passes counted, one per family, all on artifact_sha256",
            ),
          ),
        ),
        z.object(fields(enumBut(OutcomeStatus.options, ["satisfied"]), belongsTo('status "satisfied"'), belongsTo('status "satisfied"'))),
      ],
      keyedBy(OutcomeStatus.options),
    );
  },
  { title: "review/<gate>/outcome.json" },
);
export type Outcome = z.infer<typeof Outcome>;

export const TrailEntry = onFirstUse(
  () =>
    z.object({
      round,
      counted_round: round,
      restart_of: z.nullable(round),
      restart_reason: z.optional(z.nullable(RestartReason)),
      reviewer_host: z.string(),
      reviewer_model: nullableString(),
      reviewer_family: Family,
      independence: Independence,
      member: described(optionalString(), "a quorum round: the member reviewer this entry is for (SPEC §26)"),
      packet: z.string(),
      result: nullableString(),
      post_sentinel_scan: z.string(),
      artifact_sha256_packet: z.string(),
      artifact_sha256_reviewed: nullableString(),
      verifier_recomputed_sha256: nullableString(),
      gate_pass: z.nullable(z.boolean()),
      reasons: z.array(z.string()),
      verdict: nullableString(),
      blocking_findings: z.nullable(wholeNumber()),
      score: z.optional(z.nullable(z.number())),
      readiness: z.optional(z.nullable(Readiness)),
      dispatch: described(
        z.optional(z.array(z.string())),
        "each dispatch attempt of the round, then the provider, model and effort that ran",
      ),
      state: z.string(),
    }),
  { title: "one round of trail.md (also in `status --json`)" },
);
export type TrailEntry = z.infer<typeof TrailEntry>;

export const Event = onFirstUse(
  () =>
    z.looseObject({
      ts: isoTime,
      event: z.enum(["codex_review_round", "review_escalation", "review_decision", "review_outcome"]),
      run_id: runId,
      gate,
      round_number: wholeNumber(0),
      terminated_by_satisfied: z.optional(z.boolean()),
      reviewer_host: optionalString(),
      independence: z.optional(Independence),
      reason: optionalString(),
      status: optionalString(),
      options: described(z.optional(z.array(DecisionChoice)), "review_escalation: the choices offered (Guild's options_offered)"),
      choice: described(z.optional(DecisionChoice), "review_decision: the person's choice (Guild's user_choice)"),
    }),
  { title: "runs/<run-id>/events.jsonl line" },
);
export type Event = z.infer<typeof Event>;

/** A copilot agent profile name: a plain file name under .github/agents/. */
export const COPILOT_PROFILE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const TierPair = z.object({ model: optionalString(), effort: z.optional(Effort) });

export const ProviderConfig = onFirstUse(() =>
  z.looseObject({
    adapter: z.enum(ADAPTER_KINDS),
    model: described(optionalString(), "model id requested from (or declared for) this reviewer"),
    argv: described(z.optional(z.array(z.string()).check(z.minLength(1))), "command adapter: program and arguments, no shell"),
    input: described(z._default(z.enum(["stdin", "file"]), "stdin"), "command adapter: packet on stdin, or its path appended to argv"),
    timeout_ms: z.optional(wholeNumber(100, 86_400_000)),
    env: described(z.optional(z.array(z.string())), "extra environment variable names passed to the child"),
    selectable: described(z._default(z.boolean(), true), "may auto selection pick it"),
    binary: described(optionalString(), "codex/claude/gemini adapters: the CLI to run (default: its usual name on PATH)"),
    extra_args: described(z.optional(z.array(z.string())), "extra CLI flags (never packet content)"),
    base_url: described(optionalString(), "http adapter (and CLIs that take one): the API base URL"),
    api_key_env: described(optionalString(), "name of the environment variable holding the API key (the key itself is never stored)"),
    fallback: described(z.optional(z.array(z.string())), "provider ids to try, in order, only when this one proves no review ran"),
    structured_output: described(
      z.optional(z.boolean()),
      "http adapter: send a JSON-schema response_format (default true; some endpoints reject it)",
    ),
    effort: described(z.optional(Effort), "reasoning effort sent on every call (the regular tier's unless effort_tiers says otherwise)"),
    effort_tiers: described(
      z.optional(z.object({ regular: z.optional(TierPair), "deep-audit": z.optional(TierPair) })),
      "per tier (settings.gate_tiers picks it per gate): the model and effort to send instead of model and effort",
    ),
    effort_chain: described(
      z.optional(z.array(Effort)),
      "efforts to step down through, in order, only when one is refused as unsupported before any review ran",
    ),
    model_chain: described(
      z.optional(z.array(z.string())),
      "models to step through, in order, only when one is refused as unknown before any review ran",
    ),
    effort_floor: described(z.optional(Effort), "never send an effort below this one (and refuse to run a CLI whose effort cannot be set)"),
    copilot_profiles: described(
      z.optional(z.partialRecord(Family, patterned(COPILOT_PROFILE_RE))),
      "copilot adapter: model family → custom agent profile (.github/agents/<profile>.agent.md) whose model is of that family",
    ),
  }),
);

export type ProviderConfig = z.infer<typeof ProviderConfig>;

/**
 * The key of a per-gate settings map: any text to the schema, judged by the settings reader (isGateKey), which names a
 * key that is no gate, so one entry's typo neither drops the map nor applies to no gate in silence.
 */
export const GateKey = z.string();

export const Settings = onFirstUse(
  () =>
    z.looseObject({
      $schema: described(
        optionalString(),
        "an editor's hint, never read: the JSON Schema this file follows (bus-spec/schemas/settings.schema.json)",
      ),
      schema_version: z.optional(z.literal("guild_bus.settings.v1")),
      review: z.optional(ReviewMode),
      require_review: z.optional(z.boolean()),
      max_rounds: described(z.optional(wholeNumber(1, 100)), "the round cap when the request gives none"),
      codex_cap: described(z.optional(wholeNumber(1, 100)), "the older name of max_rounds (max_rounds wins when both are set)"),
      codex_skip_enforcement: z.optional(z.enum(["warn", "block"])),
      reviewer: described(optionalString(), "auto, or a provider id to pin"),
      weak_reviewer: described(optionalString(), "provider for the weak same-host path"),
      providers: z.optional(z.record(patterned(PROVIDER_ID_RE), ProviderConfig)),
      family_aliases: z.optional(z.record(z.string(), Family)),
      host_families: z.optional(z.record(z.string(), Family)),
      secrets_policy: z.optional(
        z.object({
          env_allowlist: z.optional(z.array(z.string())),
          redaction_patterns: z.optional(z.array(z.string())),
        }),
      ),
      restart_cap: z.optional(wholeNumber(1, 50)),
      stall_detection: described(
        z.optional(z.boolean()),
        "escalate a loop that stopped making progress (repeated findings, unchanged resubmit, …) as stalled (default true)",
      ),
      stop: described(z.optional(StopPolicy), "the stop policy when the request gives none (default verdict)"),
      difficulty: described(z.optional(Difficulty), "the difficulty when the request gives none (default medium)"),
      human_checkpoint: described(z.optional(z.boolean()), "the human checkpoint when the request gives none (default false)"),
      foreign_grace_ms: described(
        z.optional(wholeNumber(0, 600_000)),
        "how long an invalid foreign drop may still be being written before it is quarantined",
      ),
      stop_gate: described(
        z.optional(
          z.object({
            enabled: described(z.optional(z.boolean()), "block the author host's turn while a gate it opened waits for it (default false)"),
            max_blocks: described(z.optional(wholeNumber(1, 20)), "blocks per gate before the turn may end (default 2)"),
          }),
        ),
        "the author hosts' stop hook (`guild-bus hook stop`; `guild-bus gate on|off`)",
      ),
      gate_tiers: described(
        z.optional(z.record(GateKey, EffortTier)),
        "gate (G-lane for every lane gate) → effort tier; regular when absent",
      ),
      gate_quorum: described(
        z.optional(
          z.record(
            GateKey,
            z.strictObject({
              need: described(z.optional(wholeNumber(1, 8)), "K (default: the named families, else of)"),
              of: described(z.optional(wholeNumber(1, 8)), "N (default: need, at least the named families)"),
              families: z.optional(z.array(KnownFamily)),
            }),
          ),
        ),
        "gate (G-lane for every lane gate) → its quorum when the request asks for none (SPEC §26)",
      ),
    }),
  { title: ".guild/settings.json" },
);
export type Settings = z.infer<typeof Settings>;

export const Capability = onFirstUse(
  () =>
    z.looseObject({
      schema_version: z.optional(z.literal("host_capability.v1")),
      host: optionalString(),
      provider: optionalString(),
      id: optionalString(),
      model: optionalString(),
      family: described(optionalString(), "informational: the bus derives families from model strings only"),
      providers: z.optional(z.array(z.looseObject({ id: z.string(), model: optionalString(), family: optionalString() }))),
    }),
  { title: ".guild/hosts/<host>/capability.json" },
);

export const CodexSkipStreak = onFirstUse(
  () =>
    z.looseObject({
      schema_version: z.literal("guild.codex_skip_streak.v1"),
      streak: wholeNumber(0),
      threshold: z.optional(wholeNumber()),
      blocked: z.boolean(),
      updated_at: optionalString(),
      reason: optionalString(),
      clear_by: optionalString(),
    }),
  { title: ".guild/codex-skip-streak.json" },
);

export const PUBLISHED_SCHEMAS = {
  "review_result.v1": ReviewResultLenient,
  "review_result.v1.strict": ReviewResultStrict,
  packet: PacketFrontMatter,
  family_maps: FamilyMaps,
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
