// Which (model, effort) pair a dispatch requests, and the capability fallback: a weaker pair is tried only after the
// previous dispatch proved that nothing ran because its effort or model was refused (ARIS: capability fallback for new
// sessions only), along the provider's configured chain, never below its effort floor.
import { ADAPTER_KIND_INFO, isCliKind, isNightmare, readsFiles } from "./adapter-kinds.js";
import type { DispatchOutcome } from "./dispatch-outcome.js";
import { classifyModel } from "./family.js";
import {
  Attempt,
  type CapabilityError,
  type DispatchAttempt,
  Failure,
  type Effort,
  EFFORTS,
  type EffortTier,
  type PacketFrontMatter,
  type ProviderConfig,
  type Settings,
} from "../spec/schemas.js";
import { reviewerRefusal } from "./independence.js";
import { perGate } from "./policy.js";
import { scrubLine, type ScrubOptions } from "./scrub.js";
import { sha256Hex } from "./sha.js";

/** A reason in a failure or attempt record: one line, scrubbed, this long at most. */
const REASON_MAX = 8000;

export interface Pair {
  model: string | null;
  effort: Effort | null;
  /** Why the effort configured is not what is sent (a CLI without effort control). */
  note?: string;
}

const rank = (e: Effort) => EFFORTS.indexOf(e);

/** The gate's tier: settings.gate_tiers[gate], G-lane for every lane gate, else regular. */
export function gateTier(settings: Settings, gate: string): EffortTier {
  return perGate(settings.gate_tiers, gate) ?? "regular";
}

/**
 * The pair the tier asks for, or why the provider cannot run it at all (nothing is dispatched then). With `packet`: a
 * model other than the one its reviewer was selected with (a tier's, a fallback provider's) must keep the packet's
 * reviewer as selected (keepsReviewer), as a model_chain step must.
 */
export function initialPair(
  config: ProviderConfig,
  tier: EffortTier,
  packet?: { packet: PacketFrontMatter; aliases: Settings["family_aliases"] },
): { ok: true; pair: Pair } | { ok: false; why: string } {
  const none = (why: string) => ({ ok: false as const, why });
  const run = (pair: Pair) => ({ ok: true as const, pair });
  const wanted = config.effort_tiers?.[tier];
  const model = wanted?.model ?? config.model ?? null;
  const effort = wanted?.effort ?? config.effort ?? null;
  const floor = config.effort_floor;
  // a model other than the packet's (a tier's, or the provider's edited since the packet; none: the CLI's default, of
  // no known family) is held to what the packet promised; copilot runs its agent profile's model, whatever it is given
  if (packet && model !== packet.packet.reviewer_model && config.adapter !== "copilot") {
    const refused = reviewerRefusal(packet.packet, classifyModel(model, packet.aliases));
    const [named, sent] = [model, packet.packet.reviewer_model].map((m) => m ?? "the default model");
    if (refused && wanted?.model) return none(`the ${tier} tier's model ${named} is refused: ${refused}`);
    if (refused) return none(`the packet was issued for ${sent}, and the provider's model is now ${named}: ${refused}`);
  }
  if (!ADAPTER_KIND_INFO[config.adapter].setsEffort) {
    const unsupported =
      config.adapter === "gemini" ? "effort not supported by this CLI" : `effort not supported by the ${config.adapter} adapter`;
    if (floor) return none(`effort_floor ${floor} cannot be guaranteed: ${unsupported}`);
    return run(effort ? { model, effort: null, note: `${unsupported}; ${effort} not sent` } : { model, effort: null });
  }
  if (floor && !effort) return none(`effort_floor ${floor} is set but no effort is configured for the ${tier} tier`);
  if (floor && effort && rank(effort) < rank(floor)) return none(`the ${tier} tier's effort ${effort} is below effort_floor ${floor}`);
  return run({ model, effort });
}

/**
 * The next pair after a capability refusal, or why there is none. An effort step goes to the next strictly weaker
 * entry of effort_chain (never below effort_floor); a model step to the next untried entry of model_chain whose
 * family keeps the packet's independence. copilot runs its profile's model, so it has no model step.
 */
export function nextPair(
  config: ProviderConfig,
  current: Pair,
  capability: CapabilityError,
  tried: { packet: PacketFrontMatter; aliases: Settings["family_aliases"]; models: ReadonlySet<string | null> },
): { ok: true; pair: Pair } | { ok: false; why: string } {
  const none = (why: string) => ({ ok: false as const, why });
  const P = tried.packet;
  if (capability === "effort_unsupported") {
    if (!current.effort) return none("no effort was sent");
    const now = current.effort;
    const chain = config.effort_chain ?? [];
    const at = chain.indexOf(now);
    const next = (at >= 0 ? chain.slice(at + 1) : chain).find((e) => rank(e) < rank(now));
    if (!next) return none(`effort_chain has no effort below ${now}`);
    if (config.effort_floor && rank(next) < rank(config.effort_floor))
      return none(`the next effort ${next} is below effort_floor ${config.effort_floor}`);
    return { ok: true, pair: { model: current.model, effort: next } };
  }
  if (config.adapter === "copilot") return none("copilot runs its agent profile's model: no model fallback");
  const chain = config.model_chain ?? [];
  const at = current.model === null ? -1 : chain.indexOf(current.model);
  const skipped: string[] = [];
  for (const model of at >= 0 ? chain.slice(at + 1) : chain) {
    if (tried.models.has(model)) continue;
    const refused = reviewerRefusal(P, classifyModel(model, tried.aliases));
    if (refused) {
      skipped.push(`${model} (${refused})`);
      continue;
    }
    return { ok: true, pair: { model, effort: current.effort } };
  }
  return none(`model_chain has no further model${skipped.length ? `; refused: ${skipped.join(", ")}` : ""}`);
}

/** The record of one dispatch (or of a pair refused before dispatch, with outcome not-run). */
export function attemptRecord(a: {
  provider: string;
  config: ProviderConfig;
  pair: Pair;
  tier: EffortTier;
  outcome: DispatchOutcome | { kind: "not-run"; reason: string };
  repair?: boolean;
  /** What the reason must not carry: the project's patterns and the providers' keys (`scrubOptions`). */
  scrub: ScrubOptions;
}): DispatchAttempt {
  const { provider, config, pair, tier, outcome, repair = false } = a;
  const declared = "declared" in outcome ? outcome.declared : undefined;
  const capability = outcome.kind === "not-run" && "capability" in outcome ? outcome.capability : undefined;
  return {
    // an oversized answer is still an answer (it ran); its reason says why it was not read
    provider,
    adapter: config.adapter,
    model: declared?.model ?? pair.model,
    effort: pair.effort,
    tier,
    outcome: outcome.kind === "oversized" ? "output" : outcome.kind,
    ...(capability ? { capability } : {}),
    ...(outcome.kind !== "output" ? { reason: scrubLine(outcome.reason, REASON_MAX, "start", a.scrub) } : {}),
    ...(pair.note ? { note: pair.note } : {}),
    ...(repair ? { repair: true } : {}),
  };
}

/** One line per attempt, for failure reasons and the trail. */
export function describeAttempt(a: DispatchAttempt): string {
  const pair = `${a.model ?? "default model"}, effort ${a.effort ?? "not sent"}`;
  const what =
    a.outcome === "output"
      ? "answered"
      : a.outcome === "not-run"
        ? `did not run${a.capability ? ` [${a.capability}]` : ""}`
        : "may have run";
  const why = `${a.reason ? ` (${a.reason})` : ""}${a.note ? `; ${a.note}` : ""}`;
  return `${a.provider} (${pair})${a.repair ? " schema repair" : ""} ${what}${why}`;
}

export interface ChainLink {
  id: string;
  config: ProviderConfig;
}

/**
 * The addressed provider, then its configured fallbacks. A fallback is only ever used after the previous link
 * proved that no review ran, and a fallback may not break the packet's independence (its family must be known
 * and differ from the author's when the packet promises strong independence).
 */
export function dispatchChain(
  P: PacketFrontMatter,
  settings: Settings,
  hasAdapter: (kind: string) => boolean,
): ({ ok: true; links: ChainLink[] } | { ok: false; why: string }) & { skipped: string[] } {
  const providers = settings.providers ?? {};
  // A CLI found on PATH without settings runs with its adapter's defaults.
  const configOf = (id: string): ProviderConfig | undefined =>
    providers[id] ?? (isCliKind(id) ? { adapter: id, input: "stdin", selectable: true } : undefined);
  const first = configOf(P.reviewer_provider);
  if (!first) return { ok: false, why: `provider ${P.reviewer_provider} is not configured in .guild/settings.json`, skipped: [] };
  const chain: ChainLink[] = [];
  const skipped: string[] = [];
  for (const id of [P.reviewer_provider, ...(first.fallback ?? [])]) {
    const config = configOf(id);
    if (!config || !hasAdapter(config.adapter)) {
      skipped.push(`${id}: ${config ? `no ${config.adapter} adapter in this worker` : "not configured"}`);
      continue;
    }
    if (isNightmare(P) && !readsFiles(config.adapter)) {
      skipped.push(`${id}: difficulty nightmare needs a reviewer that reads the repository; adapter ${config.adapter} cannot`);
      continue;
    }
    if (id !== P.reviewer_provider && config.adapter === "copilot") {
      // the broker asks for a finalizer only when the packet names copilot: a copilot fallback would bypass it
      skipped.push(`${id}: a copilot provider is never a fallback`);
      continue;
    }
    const refused = id === P.reviewer_provider ? null : reviewerRefusal(P, classifyModel(config.model, settings.family_aliases));
    if (refused) {
      skipped.push(`${id}: fallback refused, family ${refused}`);
      continue;
    }
    chain.push({ id, config });
  }
  return chain.length ? { ok: true, links: chain, skipped } : { ok: false, why: `no runnable provider: ${skipped.join("; ")}`, skipped };
}

/** attempt-<n>.json: this worker is dispatching the round's packet (SPEC §15); a second dispatch is never automatic. */
export function attemptFile(P: PacketFrontMatter, worker: Attempt["worker"], at: string, keys: DispatchKeys): Attempt {
  return Attempt.parse({
    schema_version: "guild_bus.attempt.v1",
    run_id: P.run_id,
    gate: P.gate,
    round: P.round,
    packet_id: P.packet_id,
    provider: P.reviewer_provider,
    worker,
    started_at: at,
    delivery_key_sha256: sha256Hex(keys.delivery),
    end_key_sha256: sha256Hex(keys.end),
  });
}

/** The two secrets a dispatching worker keeps in memory: one goes into its result, the other into its failure. */
export interface DispatchKeys {
  delivery: string;
  end: string;
}

/** failure-<n>.json: why the round has no result, with every dispatch it made. */
export function failureRecord(
  P: PacketFrontMatter,
  f: { kind: Failure["kind"]; reason: string; attempts: DispatchAttempt[]; at: string; endKey?: string },
  scrub: ScrubOptions,
): Failure {
  return Failure.parse({
    schema_version: "guild_bus.failure.v1",
    run_id: P.run_id,
    gate: P.gate,
    round: P.round,
    packet_id: P.packet_id,
    kind: f.kind,
    reason: scrubLine(f.reason, REASON_MAX, "start", scrub),
    reviewer_provider: P.reviewer_provider,
    reviewer_model: P.reviewer_model,
    ...(f.attempts.length ? { dispatch_attempts: f.attempts } : {}),
    ...(f.endKey === undefined ? {} : { end_key: f.endKey }),
    at: f.at,
  });
}
