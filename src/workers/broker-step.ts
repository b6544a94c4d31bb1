// The broker's imperative shell for one gate: snapshot → decide → execute the action → repeat until it waits.
import { parseReviewResult } from "../core/result-wire.js";
import { scrub } from "../core/scrub.js";
import { scrubResult } from "../core/scrub-result.js";
import { type ArtifactState, readArtifact } from "../bus/artifact.js";
import { passProblems } from "../core/reverify.js";
import { Event, Escalation, type Family, Outcome, type PacketFrontMatter } from "../spec/schemas.js";
import { deliver, type DeliverResult } from "../bus/deliver.js";
import { appendJsonl } from "../bus/jsonl.js";
import { ageMs } from "../bus/age.js";
import { replace } from "../bus/replace.js";
import { rejectFile } from "../bus/reject.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { FOREIGN_GRACE_MS, MAX_FILE_BYTES } from "../bus/gate-reader.js";
import type { BusContext } from "../bus/context.js";
import { type Action, ARTIFACT_OPTIONS, decide, type EscalationAction, type GateDecision, RETRY_OPTIONS } from "../core/decide.js";
import { packetId, renderPacket } from "../core/packet.js";
import { type PacketExtras, renderPacketBody } from "../core/packet-body.js";
import { NO_REQUEST_POLICY, resolvePolicy } from "../core/policy.js";
import { authorIdentity, configuredProviders, type Provider, selectReviewer } from "../core/selection.js";
import { type GateSnapshot, readGate } from "../bus/gate-reader.js";
import { renderTrail, trailEntries, type ResultLookup } from "../core/trail.js";

const now = () => new Date().toISOString();

export function resultLookup(ctx: BusContext, s: GateSnapshot): ResultLookup {
  return (round) => {
    try {
      // results may come from foreign writers: their text is scrubbed before it reaches a packet or the trail
      const result = parseReviewResult(readTextBounded(ctx.layout.gateFile(s.runId, s.gate, `result-${round}.json`), { max: MAX_FILE_BYTES })).result;
      return result && (scrubResult(result as never, ctx.settings.secrets_policy?.redaction_patterns) as unknown as typeof result);
    } catch {
      return null;
    }
  };
}

/** The artifact of the gate's request as it is now (SPEC §10); a gate without a request has none. */
export function gateArtifact(ctx: BusContext, s: GateSnapshot): ArtifactState {
  if (!s.request) return { ok: false, problem: "artifact_missing", detail: "no request.json" };
  return readArtifact(ctx.layout, s.request.artifact_path, ctx.settings.secrets_policy?.redaction_patterns);
}

/** The gate's artifact, read (bounded, scrubbed, hashed) at most once, and only if something asks for it. */
export function lazyArtifact(ctx: BusContext, s: GateSnapshot): () => ArtifactState {
  let read: ArtifactState | undefined;
  return () => (read ??= gateArtifact(ctx, s));
}

export function decideGate(ctx: BusContext, s: GateSnapshot, artifact: () => ArtifactState = lazyArtifact(ctx, s)): GateDecision {
  const policy = s.request ? resolvePolicy(s.request, ctx.settings) : NO_REQUEST_POLICY;
  return decide(s, { policy, codexSkip: ctx.codexSkip, artifact });
}

function appendEvent(ctx: BusContext, s: GateSnapshot, event: Omit<Event, "ts" | "run_id" | "gate">): void {
  appendJsonl(ctx.layout.events(s.runId), { ts: now(), run_id: s.runId, gate: s.gate, ...event } as Event, Event);
}

/** One codex_review_round event per ended round, written by whichever broker ended it. */
function roundEvent(ctx: BusContext, s: GateSnapshot, round: number, satisfied: boolean): void {
  const p = s.packets.get(round);
  if (!p) return;
  appendEvent(ctx, s, {
    event: "codex_review_round", round_number: round, terminated_by_satisfied: satisfied,
    reviewer_host: p.reviewer_provider, independence: p.independence,
  });
}

/** Every text the broker puts in a packet passes the one scrubber with the settings' own patterns. */
function scrubbed(ctx: BusContext, text: string): string {
  return scrub(text, { customPatterns: ctx.settings.secrets_policy?.redaction_patterns });
}

/** A text file of the gate (memory, rebuttal), scrubbed again: a foreign writer may have dropped it unscrubbed. */
function readScrubbedGateText(ctx: BusContext, s: GateSnapshot, name: string): string {
  return scrubbed(ctx, readTextBounded(ctx.layout.gateFile(s.runId, s.gate, name), { max: MAX_FILE_BYTES }));
}

/** What the modes add to a packet: the paths, the reviewer's own memory, the human's note, a rebuttal to rule on. */
function packetExtras(ctx: BusContext, s: GateSnapshot, action: Extract<Action, { type: "packet" }>, hard: boolean): PacketExtras {
  const clean = (text: string) => scrubbed(ctx, text);
  const before = action.round - 1;
  const esc = s.escalations.get(before);
  const dec = s.decisions.get(before);
  const note = esc?.options.includes("continue") && dec?.choice === "continue" && dec.note?.trim() ? { round: before, text: clean(dec.note) } : null;
  let ruling: PacketExtras["ruling"] = null;
  if (action.restart_reason === "ruling" && action.restart_of !== null) {
    const contested = resultLookup(ctx, s)(action.restart_of)?.blocking_findings ?? [];
    ruling = {
      round: action.restart_of,
      // bounded like the trail's lists: a result's findings must not swell the next packet past the file limit
      findings: contested.slice(0, 50).map((f) => {
        const o = (f && typeof f === "object" ? f : { title: String(f) }) as Record<string, unknown>;
        const text = (k: string) => (typeof o[k] === "string" ? clean((o[k] as string).slice(0, 4000)) : undefined);
        return { title: text("title") ?? text("finding") ?? "(untitled)", severity: text("severity"), detail: text("detail"), evidence: text("evidence") };
      }),
      rebuttal: readScrubbedGateText(ctx, s, `rebuttal-${action.restart_of}.md`),
    };
  }
  return {
    paths: (s.request!.paths ?? []).map(clean),
    memory: hard ? [...s.memories].filter((k) => k < action.round).sort((a, b) => a - b).map((k) => ({ round: k, text: readScrubbedGateText(ctx, s, `memory-${k}.md`) })) : [],
    humanNote: note,
    ruling,
  };
}

/** Detected reviewers, asked for only when a first packet needs a selection (detection probes binaries). */
export type ProviderSource = () => Promise<Provider[]>;

/** The packet text, or why no reviewer can serve it (nightmare without a file-reading reviewer). */
async function buildPacket(ctx: BusContext, s: GateSnapshot, action: Extract<Action, { type: "packet" }>, read: Extract<ArtifactState, { ok: true }>, providers: ProviderSource): Promise<string | { unavailable: string }> {
  const request = s.request!;
  const policy = resolvePolicy(request, ctx.settings);
  const author = authorIdentity(request, ctx.settings);
  let reviewer: Pick<PacketFrontMatter, "reviewer_provider" | "reviewer_adapter" | "reviewer_model" | "reviewer_family" | "independence" | "selection_status" | "selection_reason">;
  if (action.inherit) {
    const p = action.inherit;
    reviewer = {
      reviewer_provider: p.reviewer_provider, reviewer_adapter: p.reviewer_adapter, reviewer_model: p.reviewer_model,
      reviewer_family: p.reviewer_family, independence: p.independence, selection_status: p.selection_status, selection_reason: p.selection_reason,
    };
  } else {
    const excluded = new Set(action.exclude ?? []);
    // A finalizer confirms a copilot pass: auto-selected (no pin), never copilot, and only a strong selection will do.
    const finalizer = action.restart_reason === "finalizer";
    const candidates = (await providers()).map((p) => (excluded.has(p.id) || (finalizer && p.adapter === "copilot") ? { ...p, available: false, note: "unavailable in this gate" } : p));
    const sel = finalizer
      ? selectReviewer(policy, { reviewer: "auto" }, author, candidates, { ...ctx.settings, reviewer: "auto" })
      : selectReviewer(policy, request, author, candidates, ctx.settings);
    const provider = sel.provider;
    if (!provider) return { unavailable: sel.reason };
    if (finalizer && sel.status !== "selected") return { unavailable: `no finalizer for the copilot pass of round ${action.restart_of}: a non-copilot reviewer of a known family other than ${author.family} is needed (${sel.reason})` };
    reviewer = {
      reviewer_provider: provider.id,
      reviewer_adapter: provider.adapter,
      reviewer_model: provider.model,
      reviewer_family: provider.family,
      independence: sel.independence,
      selection_status: sel.status,
      selection_reason: sel.reason,
    };
  }
  const front: PacketFrontMatter = {
    schema_version: "guild_bus.packet.v1",
    packet_id: packetId(s.runId, s.gate, action.round),
    run_id: s.runId,
    gate: s.gate,
    round: action.round,
    counted_round: action.counted_round,
    cap: action.cap,
    restart_of: action.restart_of,
    restart_reason: action.restart_reason,
    author_host: request.author_host,
    author_model: author.model,
    author_family: author.family,
    author_family_source: author.source,
    ...reviewer,
    artifact_path: request.artifact_path,
    artifact_sha256: read.sha,
    artifact_raw_sha256: read.rawSha,
    difficulty: policy.difficulty,
    stop: policy.stop,
    issued_at: now(),
  };
  const { entries, findings } = trailEntries(s, resultLookup(ctx, s), policy.stop);
  const extras = packetExtras(ctx, s, action, policy.difficulty !== "medium");
  // A finalizer reviews afresh: copilot's rounds and memory are not its own, and would anchor it.
  if (action.restart_reason === "finalizer") return renderPacket(front, renderPacketBody(front, read.text, [], new Map(), { ...extras, memory: [] }));
  return renderPacket(front, renderPacketBody(front, read.text, entries, findings, extras));
}

/** Why a rendered packet cannot be delivered: readers refuse any gate file over MAX_FILE_BYTES unread (SPEC §5). */
function tooLargeToDeliver(round: number, packet: string): string | null {
  const bytes = Buffer.byteLength(packet, "utf8");
  if (bytes <= MAX_FILE_BYTES) return null;
  return `packet-${round}.md would be ${bytes} bytes, over the ${MAX_FILE_BYTES}-byte limit for a gate file: the artifact with this gate's paths, memory, rebuttal and prior findings is too large; shorten them, then retry`;
}

/** Selection found no reviewer for the packet: a human decides instead (never a packet nobody may serve). */
function noReviewer(action: Extract<Action, { type: "packet" }>, why: string): EscalationAction {
  const round = action.round - 1;
  // Before round 1 there is no reviewer to retry and nothing to force-pass: the request ends as rework.
  return { type: "escalation", round, reason: "unavailable", detail: why, options: round === 0 ? ["rework"] : RETRY_OPTIONS };
}

function buildOutcome(ctx: BusContext, s: GateSnapshot, action: Extract<Action, { type: "outcome" }>, artifact: ArtifactState): Outcome {
  const request = s.request!;
  const author = authorIdentity(request, ctx.settings);
  const v = s.verdicts.get(action.round);
  // Without a verdict no review was applied (e.g. force-pass after no_verdict): name no reviewer.
  const p = v ? s.packets.get(action.round) : undefined;
  // An unreadable artifact is recorded as null: the outcome still says what happened
  const current = artifact.ok ? artifact.sha : null;
  const counted = [...s.packets.values()].reduce((n, x) => Math.max(n, x.counted_round), 0);
  const reviewerFamily = v?.reviewer_family ?? p?.reviewer_family ?? null;
  return Outcome.parse({
    schema_version: "guild_bus.outcome.v1",
    run_id: s.runId,
    gate: s.gate,
    status: action.status,
    author_host: request.author_host,
    author_family: author.family,
    reviewer_host: p?.reviewer_provider ?? null,
    reviewer_model: v?.reviewer_model ?? p?.reviewer_model ?? null,
    reviewer_family: reviewerFamily,
    family_relation: familyRelation(author.family, reviewerFamily),
    author_family_source: author.source,
    identity_assurance: v ? (resultLookup(ctx, s)(action.round)?.reviewer_model_source as string | undefined) ?? "foreign result (unverified)" : null,
    independence: action.independence ?? p?.independence ?? null,
    rounds: counted,
    ...(action.status === "satisfied" ? { satisfied_at_round: action.round } : {}),
    final_round: action.round,
    artifact_sha256: current,
    reason: action.reason,
    trail_path: ctx.layout.rel(ctx.layout.gateFile(s.runId, s.gate, "trail.md")),
    at: now(),
  });
}

/** Independence in one word: strong requires both families known and different. */
function familyRelation(author: Family, reviewer: Family | null): "different" | "same" | "unknown" | null {
  if (reviewer === null) return null;
  if (author === "unknown" || reviewer === "unknown") return "unknown";
  return author === reviewer ? "same" : "different";
}

export interface StepReport {
  decision: GateDecision;
  snapshot: GateSnapshot;
  delivered: Array<{ action: Action; result: DeliverResult }>;
  error?: string;
}

const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";

/** Advance one gate as far as it can go now. Safe to run concurrently with other brokers: delivery fences it. */
export async function stepGate(ctx: BusContext, runId: string, gate: string, providers: ProviderSource = async () => configuredProviders(ctx.settings)): Promise<StepReport> {
  const delivered: StepReport["delivered"] = [];
  const file = (name: string) => ctx.layout.gateFile(runId, gate, name);
  const opts = { guildDir: ctx.layout.guild };
  for (let guard = 0; guard < 20; guard++) {
    let s = readGate(ctx.layout, runId, gate);
    if (quarantineProblems(ctx, s)) s = readGate(ctx.layout, runId, gate);
    const artifactNow = lazyArtifact(ctx, s);
    const d = decideGate(ctx, s, artifactNow);
    let action = d.action;
    if (!action) {
      await writeTrail(ctx, s, d);
      return { decision: d, snapshot: s, delivered };
    }
    let result: DeliverResult;
    const deliverEscalation = (a: EscalationAction): DeliverResult => {
      const esc = Escalation.parse({
        schema_version: "guild_bus.escalation.v1", run_id: runId, gate, round: a.round,
        reason: a.reason, detail: a.detail, options: a.options, at: now(),
      });
      return deliver(file(`escalation-${a.round}.json`), json(esc), opts);
    };
    try {
      if (action.type === "packet") {
        const artifact = artifactNow();
        if (!artifact.ok) throw new Error(artifact.detail); // decide() issues packets only for a readable artifact
        const built = await buildPacket(ctx, s, action, artifact, providers);
        const oversize = typeof built === "string" ? tooLargeToDeliver(action.round, built) : null;
        if (oversize && s.escalations.has(action.round - 1)) {
          // a retry that still cannot fit: wait for the author, writing nothing (never a packet we would refuse)
          const waiting: GateDecision = { state: "awaiting_author", round: action.round - 1, action: null, detail: oversize };
          await writeTrail(ctx, s, waiting);
          return { decision: waiting, snapshot: s, delivered };
        }
        if (oversize) {
          action = { type: "escalation", round: action.round - 1, reason: "artifact_too_large", detail: oversize, options: ARTIFACT_OPTIONS };
          result = deliverEscalation(action);
        } else if (typeof built === "string") result = deliver(file(`packet-${action.round}.md`), built, opts);
        else {
          action = noReviewer(action, built.unavailable);
          result = deliverEscalation(action);
        }
      } else if (action.type === "escalation") {
        result = deliverEscalation(action);
      } else {
        // The artifact is read once more as the outcome is written: a pass must hold for the bytes on disk now.
        const now = gateArtifact(ctx, s);
        const decided = artifactNow();
        if (action.status === "satisfied" && (!now.ok || !decided.ok || now.sha !== decided.sha)) continue;
        // ...and must re-derive from the sealed result: a stray verdict that contradicts its result ends nothing.
        const unproven = action.status === "satisfied" ? passProblems(ctx, s, action.round, now, action.independence) : [];
        if (unproven.length) {
          action = { type: "escalation", round: action.round, reason: "no_verdict", detail: `verdict-${action.round}.json does not re-derive from its result: ${unproven.join("; ")}`, options: RETRY_OPTIONS };
          result = deliverEscalation(action);
          delivered.push({ action, result });
          if (result.status === "delivered") recordEvents(ctx, s, action);
          continue;
        }
        const outcome = buildOutcome(ctx, s, action, now);
        // The trail shows the final disposition before anyone can see the outcome (SPEC §16).
        await writeTrail(ctx, { ...s, outcome }, { state: "done", round: action.round, action: null, detail: `outcome ${outcome.status}` });
        result = deliver(file("outcome.json"), json(outcome), opts);
      }
    } catch (error) {
      const message = `cannot ${action.type} for round ${action.round}: ${(error as Error).message}`;
      await writeTrail(ctx, s, { ...d, detail: message });
      return { decision: d, snapshot: s, delivered, error: message };
    }
    delivered.push({ action, result });
    if (result.status === "delivered") recordEvents(ctx, s, action);
    // Another writer holds the slot: its file is handled on the next pass (a racing broker's, or quarantined).
    if (result.status === "conflict") return { decision: d, snapshot: s, delivered };
  }
  throw new Error(`gate ${runId}/${gate} did not settle`);
}

/** Files the broker answers for; results and responses belong to the verifier and the manual worker. */
const BROKER_QUARANTINES = /^(?:request|outcome|(?:packet|attempt|failure|verdict|resubmit|escalation|decision|memory|rebuttal)-\d+)\.(?:json|md)$/;

/**
 * Invalid drops are moved to rejected/ with their reason once a foreign writer has had its grace period to
 * finish writing in place; nothing is deleted, and the slot is free again for a valid file.
 */
function quarantineProblems(ctx: BusContext, s: GateSnapshot): boolean {
  const grace = ctx.settings.foreign_grace_ms ?? FOREIGN_GRACE_MS;
  let moved = false;
  for (const p of s.problems) {
    if (!BROKER_QUARANTINES.test(p.file) || ageMs(`${s.dir}/${p.file}`, p.mtimeMs) < grace) continue;
    if (rejectFile(s.dir, p.file, p.reason, ctx.layout.guild)) moved = true;
  }
  return moved;
}

function recordEvents(ctx: BusContext, s: GateSnapshot, action: Action): void {
  const ended = action.type === "packet" ? action.round - 1 : action.round;
  // A round ends once: at its escalation when it has one, else at the packet or outcome that follows it.
  const endsHere = action.type === "escalation" || !s.escalations.has(ended);
  if (ended >= 1 && endsHere) roundEvent(ctx, s, ended, action.type === "outcome" && action.status === "satisfied");
  if (action.type === "escalation") appendEvent(ctx, s, { event: "review_escalation", round_number: action.round, reason: action.reason });
  if (action.type === "outcome") appendEvent(ctx, s, { event: "review_outcome", round_number: action.round, status: action.status, reason: action.reason });
}

const lastTrail = new Map<string, string>();

async function writeTrail(ctx: BusContext, s: GateSnapshot, d: GateDecision): Promise<void> {
  const key = `${s.runId}\u0000${s.gate}`;
  const stamp = `${s.fingerprint}#${d.state}#${d.detail}`;
  if (lastTrail.get(key) === stamp || !s.request) return;
  const { entries, findings } = trailEntries(s, resultLookup(ctx, s), resolvePolicy(s.request, ctx.settings).stop);
  await replace(ctx.layout.gateFile(s.runId, s.gate, "trail.md"), renderTrail(s, entries, findings, d), { guildDir: ctx.layout.guild, durable: false });
  // A gate with its outcome is rarely handled again: forget it, so a long-lived broker keeps no entry per gate ever seen.
  if (s.outcome) lastTrail.delete(key);
  else lastTrail.set(key, stamp);
}
