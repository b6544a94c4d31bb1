// Builders for GateSnapshot and the records in it, plus a tiny in-memory broker that applies decide()'s actions,
// so the pure round loop can be driven without a filesystem.
import { type Action, decide, type DecideContext, type GateDecision } from "../../src/core/decide.js";
import { type ArtifactView } from "../../src/core/artifact-view.js";
import { escalationRecord, type GateReads, outcomeRecord, packetFront } from "../../src/core/broker-plan.js";
import { reviewerFields } from "../../src/core/packet-chain.js";
import { packetId, renderPacket } from "../../src/core/packet.js";
import { sha256Hex } from "../../src/core/sha.js";
import { DEFAULT_RESTART_CAP, type ResolvedPolicy } from "../../src/core/policy.js";
import { emptySlots, emptySnapshot, type GateSnapshot, type ReviewSlots } from "../../src/core/snapshot.js";
import type {
  Attempt,
  Decision,
  DecisionChoice,
  Escalation,
  EscalationReason,
  Failure,
  Family,
  Outcome,
  PacketFrontMatter,
  QuorumRule,
  Request,
  ScoreGate,
  VerdictFile,
} from "../../src/spec/schemas.js";
import { Settings } from "../../src/spec/schemas.js";

export const RUN = "run1";
export const GATE = "G-spec";
export const AT = "2025-01-01T00:00:00.000Z";
export const SHA_A = "a".repeat(64);
export const SHA_B = "b".repeat(64);
export const RESULT_SHA = "c".repeat(64);
/** The raw bytes behind SHA_A: packets built here record it as artifact_raw_sha256. */
export const RAW_SHA = "d".repeat(64);

export function request(over: Partial<Request> = {}): Request {
  return {
    schema_version: "guild_bus.request.v1",
    run_id: RUN,
    gate: GATE,
    artifact_path: "docs/spec.md",
    author_host: "claude",
    reviewer: "auto",
    requested_at: AT,
    ...over,
  };
}

export function policy(over: Partial<ResolvedPolicy> = {}): ResolvedPolicy {
  return {
    mode: "cross",
    required: true,
    requiredBecause: "review=cross",
    cap: 5,
    warnings: [],
    restartCap: DEFAULT_RESTART_CAP,
    stop: "verdict",
    difficulty: "medium",
    humanCheckpoint: false,
    // the builders here resubmit the same bytes (SHA_A) round after round: stall tests turn detection on themselves
    stallDetection: false,
    quorum: null,
    refusal: null,
    ...over,
  };
}

/** The artifact on disk is the bytes every verdict here verified (SHA_A) unless a test says otherwise. */
export function context(
  over: { policy?: Partial<ResolvedPolicy>; blocked?: boolean; enforcement?: "warn" | "block"; artifact?: ArtifactView } = {},
): DecideContext {
  return {
    policy: policy(over.policy),
    codexSkip: { blocked: over.blocked ?? false, enforcement: over.enforcement ?? "warn" },
    artifact: () => over.artifact ?? { ok: true, sha: SHA_A, rawSha: RAW_SHA },
  };
}

/** Settings configuring the reviewer packet() names: a pass re-derives only for a reviewer settings know (SPEC §15). */
export const SETTINGS: Settings = Settings.parse({ providers: { codex: { adapter: "codex", model: "gpt-5" } } });

export function packet(round: number, over: Partial<PacketFrontMatter> = {}): PacketFrontMatter {
  return {
    schema_version: "guild_bus.packet.v1",
    packet_id: packetId(RUN, GATE, round),
    run_id: RUN,
    gate: GATE,
    round,
    counted_round: round,
    cap: 5,
    restart_of: null,
    restart_reason: null,
    author_host: "claude",
    author_model: null,
    author_family: "anthropic",
    author_family_source: "host-map",
    reviewer_provider: "codex",
    reviewer_adapter: "codex",
    reviewer_model: "gpt-5",
    reviewer_family: "openai",
    independence: "strong",
    selection_status: "selected",
    selection_reason: "auto: codex (openai ≠ anthropic)",
    artifact_path: "docs/spec.md",
    artifact_sha256: SHA_A,
    issued_at: AT,
    ...over,
  };
}

/** not_satisfied: an "issues" verdict whose findings are none of them blocking (only `satisfied` fails). */
export type VerdictKind = "pass" | "issues" | "not_satisfied" | "blockers" | "sha" | "unparsed" | "packet_id";

/** The score condition as the verifier records it: a positive, a negative or an unavailable score. */
export type ScoreKind = "positive" | "negative" | "unavailable";

export function scoreGate(kind: ScoreKind): ScoreGate {
  if (kind === "positive") return { score: 6, readiness: "almost", available: true, positive: true, reasons: [] };
  if (kind === "negative")
    return {
      score: 5.99,
      readiness: "almost",
      available: true,
      positive: false,
      reasons: ["score 5.99/10, readiness almost: the gate needs a score of at least 6 and readiness ready or almost"],
    };
  return { score: 11, readiness: "ready", available: false, positive: false, reasons: ["score 11 is outside 1–10"] };
}

/** A verdict as the verifier writes it; `kind` picks which of the five conditions fail. */
export function verdict(round: number, kind: VerdictKind, over: Partial<VerdictFile> = {}): VerdictFile {
  const c = { parses: true, packet_id_match: true, sha256_match: true, satisfied: true, no_blockers: true };
  const reasons: string[] = [];
  if (kind === "issues") {
    c.satisfied = false;
    c.no_blockers = false;
    reasons.push('verdict is "issues", not "satisfied"', "1 blocking finding(s) remain");
  }
  if (kind === "not_satisfied") {
    c.satisfied = false;
    reasons.push('verdict is "issues", not "satisfied"');
  }
  if (kind === "blockers") {
    c.no_blockers = false;
    reasons.push("2 blocking finding(s) remain");
  }
  if (kind === "sha") {
    c.sha256_match = false;
    reasons.push("sha256 mismatch — the artifact changed since its packet, or the result did not copy the packet's artifact_sha256");
  }
  if (kind === "unparsed") {
    Object.assign(c, { parses: false, packet_id_match: false, sha256_match: false, satisfied: false, no_blockers: false });
    reasons.push("parse: result is not valid JSON");
  }
  if (kind === "packet_id") {
    c.packet_id_match = false;
    reasons.push("packet_id mismatch");
  }
  const pass = Object.values(c).every(Boolean);
  return {
    schema_version: "guild_bus.verdict.v1",
    run_id: RUN,
    gate: GATE,
    round,
    packet_id: packetId(RUN, GATE, round),
    result_sha256: RESULT_SHA,
    // a stale verdict ("sha") is bound to its packet's bytes: the artifact changed under it, as the verifier finds
    artifact_sha256_reviewed: kind === "unparsed" ? null : SHA_A,
    result_verdict: kind === "unparsed" ? null : kind === "issues" || kind === "not_satisfied" ? "issues" : "satisfied",
    blocking_count: kind === "unparsed" ? null : kind === "issues" ? 1 : kind === "blockers" ? 2 : 0,
    reviewer_model: "gpt-5",
    reviewer_family: "openai",
    independence_violation: false,
    gate_pass: { pass, conditions: c, recomputed_sha256: SHA_A, reasons },
    verified_at: AT,
    ...over,
  };
}

export function failure(round: number, kind: Failure["kind"], reason = `${kind} happened`): Failure {
  return {
    schema_version: "guild_bus.failure.v1",
    run_id: RUN,
    gate: GATE,
    round,
    packet_id: packetId(RUN, GATE, round),
    kind,
    reason,
    at: AT,
  };
}

export function escalation(round: number, reason: EscalationReason, options: DecisionChoice[], detail: string = reason): Escalation {
  return { schema_version: "guild_bus.escalation.v1", run_id: RUN, gate: GATE, round, reason, detail, options, at: AT };
}

export function decision(round: number, choice: DecisionChoice, extendBy?: number, note?: string): Decision {
  return {
    schema_version: "guild_bus.decision.v1",
    run_id: RUN,
    gate: GATE,
    round,
    choice,
    ...(extendBy ? { extend_by: extendBy } : {}),
    ...(note ? { note } : {}),
    at: AT,
  } as Decision; // any choice with any extension: a test may plant one the schema refuses
}

/** The key the reviewer worker of attempt() keeps: its results carry it (SPEC §15). */
export const DELIVERY_KEY = "k".repeat(43);

export function attempt(round: number): Attempt {
  return {
    schema_version: "guild_bus.attempt.v1",
    run_id: RUN,
    gate: GATE,
    round,
    packet_id: packetId(RUN, GATE, round),
    provider: "codex",
    worker: { host: "h", pid: 1 },
    started_at: AT,
    delivery_key_sha256: sha256Hex(DELIVERY_KEY),
  };
}

export function outcome(status: Outcome["status"], finalRound: number, over: Partial<Outcome> = {}): Outcome {
  return {
    schema_version: "guild_bus.outcome.v1",
    run_id: RUN,
    gate: GATE,
    status,
    author_host: "claude",
    author_family: "anthropic",
    reviewer_host: finalRound ? "codex" : null,
    reviewer_model: finalRound ? "gpt-5" : null,
    reviewer_family: finalRound ? "openai" : null,
    independence: finalRound ? "strong" : null,
    rounds: finalRound,
    final_round: finalRound,
    ...(status === "satisfied" ? { satisfied_at_round: finalRound } : {}),
    artifact_sha256: SHA_A,
    reason: status,
    trail_path: `.guild/runs/${RUN}/review/${GATE}/trail.md`,
    at: AT,
    ...over,
  } as Outcome; // `over` may plant what the schema refuses
}

/** A chainable builder over one snapshot. */
export class Gate {
  readonly s: GateSnapshot;
  constructor(req: Request | null = request()) {
    this.s = emptySnapshot(RUN, GATE, `/nowhere/${RUN}/${GATE}`);
    this.s.request = req;
  }
  packet(round: number, over: Partial<PacketFrontMatter> = {}): this {
    this.s.packets.set(round, packet(round, over));
    return this;
  }
  attempt(round: number): this {
    this.s.attempts.set(round, attempt(round));
    return this;
  }
  /** A quorum member's packet (packet-<n>.<provider>.md) under `rule`. */
  memberPacket(round: number, provider: string, family: Family, rule: QuorumRule, over: Partial<PacketFrontMatter> = {}): this {
    const slots = this.slots(provider);
    const model = `${family}-model`;
    slots.packets.set(
      round,
      packet(round, {
        packet_id: packetId(RUN, GATE, round, provider),
        reviewer_provider: provider,
        reviewer_adapter: "command",
        reviewer_model: model,
        reviewer_family: family,
        quorum: rule,
        ...over,
      }),
    );
    return this;
  }
  /** A quorum member's verdict; its family is the member packet's unless `over` says otherwise. */
  memberVerdict(round: number, provider: string, kind: VerdictKind, over: Partial<VerdictFile> = {}): this {
    const slots = this.slots(provider);
    const p = slots.packets.get(round)!;
    slots.results.set(round, { mtimeMs: 1, size: 100, version: "test" });
    slots.verdicts.set(
      round,
      verdict(round, kind, { packet_id: p.packet_id, reviewer_model: p.reviewer_model!, reviewer_family: p.reviewer_family, ...over }),
    );
    return this;
  }
  memberFailure(round: number, provider: string, kind: Failure["kind"]): this {
    this.slots(provider).failures.set(round, { ...failure(round, kind), packet_id: packetId(RUN, GATE, round, provider) });
    return this;
  }
  memberAttempt(round: number, provider: string): this {
    this.slots(provider).attempts.set(round, { ...attempt(round), provider, packet_id: packetId(RUN, GATE, round, provider) });
    return this;
  }
  private slots(provider: string): ReviewSlots {
    let slots = this.s.members.get(provider);
    if (!slots) this.s.members.set(provider, (slots = emptySlots()));
    return slots;
  }
  result(round: number): this {
    this.s.results.set(round, { mtimeMs: 1, size: 100, version: "test" });
    return this;
  }
  response(round: number): this {
    this.s.responses.set(round, { mtimeMs: 1, size: 100, version: "test" });
    return this;
  }
  verdict(round: number, kind: VerdictKind, over: Partial<VerdictFile> = {}): this {
    this.result(round);
    this.s.verdicts.set(round, verdict(round, kind, over));
    return this;
  }
  failure(round: number, kind: Failure["kind"], reason?: string): this {
    this.s.failures.set(round, failure(round, kind, reason));
    return this;
  }
  resubmit(round: number): this {
    this.s.resubmits.add(round);
    return this;
  }
  rebuttal(round: number): this {
    this.s.rebuttals.add(round);
    return this;
  }
  memory(round: number): this {
    this.s.memories.add(round);
    return this;
  }
  escalation(round: number, reason: EscalationReason, options: DecisionChoice[]): this {
    this.s.escalations.set(round, escalation(round, reason, options));
    return this;
  }
  decision(round: number, choice: DecisionChoice, extendBy?: number, note?: string): this {
    this.s.decisions.set(round, decision(round, choice, extendBy, note));
    return this;
  }
  outcome(status: Outcome["status"], finalRound: number, over: Partial<Outcome> = {}): this {
    this.s.outcome = outcome(status, finalRound, over);
    return this;
  }
}

export const gate = (req?: Request | null) => new Gate(req);

/** Reads of a gate with no files but an artifact holding `text` (sha SHA_A): nothing read from a disk. */
export const artifactOnly = (text = ""): GateReads => ({
  artifact: () => ({ ok: true, text, sha: SHA_A, rawSha: RAW_SHA }),
  artifactNow: () => ({ ok: true, text, sha: SHA_A, rawSha: RAW_SHA }),
  result: () => null,
  resultBytes: () => ({ ok: false, reason: "no files here" }),
  text: () => "",
  decisions: () => new Map(),
  rejected: () => [],
});

/** The reads an outcome's attribution draws on: no result file here, so identity is "foreign result (unverified)". */
const NO_FILES = artifactOnly();

/**
 * Write an action's record into the snapshot with the broker's own builders (core/broker-plan.ts). Only selection is
 * stubbed: a fresh one picks `fresh` (selection has its own tests), and a finalizer, never selected from copilot, the default.
 */
export function apply(s: GateSnapshot, action: Action, pol: ResolvedPolicy, fresh: Partial<PacketFrontMatter> = {}): void {
  const input = { settings: {}, policy: pol, now: AT, reads: NO_FILES, trailPath: `.guild/runs/${RUN}/review/${GATE}/trail.md` };
  if (action.type === "packet") {
    const reviewer = reviewerFields(action.inherit ?? packet(action.round, action.restart_reason === "finalizer" ? {} : fresh));
    s.packets.set(action.round, packetFront(s, action, reviewer, { sha: SHA_A, rawSha: RAW_SHA }, input));
  } else if (action.type === "escalation") s.escalations.set(action.round, escalationRecord(s, action, AT));
  else s.outcome = outcomeRecord(s, action, NO_FILES.artifactNow(), input);
}

/** Run decide/apply until the gate waits; returns the waiting decision and every action taken. */
export function settle(
  s: GateSnapshot,
  ctx: DecideContext,
  fresh: Partial<PacketFrontMatter> = {},
): { decision: GateDecision; actions: Action[] } {
  const actions: Action[] = [];
  for (let guard = 0; guard < 50; guard++) {
    const d = decide(s, ctx);
    if (!d.action) return { decision: d, actions };
    actions.push(d.action);
    apply(s, d.action, ctx.policy, fresh);
  }
  throw new Error("gate did not settle in 50 actions");
}

export const openRound = (s: GateSnapshot) => Math.max(0, ...s.packets.keys());

export type { Family };

/** A packet file as the broker writes it: its body embeds the artifact its front matter names (the reader checks). */
export function packetFile(front: PacketFrontMatter, text = "# Spec\n"): string {
  const sha = sha256Hex(text);
  return renderPacket(
    { ...front, artifact_sha256: sha },
    `## Artifact \`${front.artifact_path}\` (sha256 of these scrubbed bytes: ${sha})\n\n\`\`\`\n${text}\`\`\`\n`,
  );
}
