// The reviewer worker's dispatches for one claimed round (SPEC §15, §22): walk the provider chain — a weaker pair or
// the next provider only after a dispatch proved that nothing ran — then normalize the answer, with one schema repair.
import type { ReviewerAdapter } from "../adapters/types.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";
import { attemptRecord, type ChainLink, describeAttempt, initialPair, nextPair, type Pair } from "../core/dispatch-plan.js";
import { envelopeFor, type Normalized, normalizeBound, repairPrompt, withReported } from "../core/normalize.js";
import { fencedLines } from "../core/packet-body.js";
import type { ScrubOptions } from "../core/scrub.js";
import { wholeChars } from "../core/text-of.js";
import type { DispatchAttempt, EffortTier, Failure, PacketFrontMatter, Settings } from "../spec/schemas.js";

export type RunnableLink = ChainLink & { adapter: ReviewerAdapter };

export interface Walk {
  packet: PacketFrontMatter;
  tier: EffortTier;
  aliases: Settings["family_aliases"];
  /** What no recorded reason may carry (`scrubOptions` of the settings). */
  scrub: ScrubOptions;
  /** The claim was lost: another worker owns the round now, so nothing more is dispatched or delivered. */
  fenced: () => boolean;
  dispatch: (link: RunnableLink, pair: Pair, prompt: string) => Promise<DispatchOutcome>;
  /**
   * Records the answer that needs the schema repair, and why, before the repair call: a worker killed during that second
   * paid call must leave both calls on file (the attempt records only the first), and the paid answer it had in hand.
   */
  keepForRepair: (answer: string, why: string) => Promise<void>;
}

type Stopped =
  | { kind: "fenced" }
  | { kind: "failed"; failure: Failure["kind"]; reason: string; attempts: DispatchAttempt[] }
  /** The system could not start the reviewer (`code`): nothing ran, and nothing else is tried meanwhile. */
  | { kind: "short"; reason: string; code: string };

export type Answered = {
  kind: "answered";
  link: RunnableLink;
  pair: Pair;
  answer: Extract<DispatchOutcome, { kind: "output" }>;
  attempts: DispatchAttempt[];
  /** The model asked for (or the one the adapter declared), before the answer says which ran. */
  requested: string | null;
  declared: Extract<DispatchOutcome, { kind: "output" }>["declared"];
};

/** Dispatch along the chain until a reviewer answers; every dispatch is recorded in `attempts`. */
export async function runChain(chain: RunnableLink[], packetText: string, walk: Walk): Promise<Answered | Stopped> {
  const attempts: DispatchAttempt[] = [];
  const failed = (failure: Failure["kind"], reason: string): Stopped => ({ kind: "failed", failure, reason, attempts });
  const tried = () => attempts.map(describeAttempt).join("; ");
  for (const link of chain) {
    const record = (pair: Pair, outcome: Parameters<typeof attemptRecord>[0]["outcome"]) =>
      attempts.push(attemptRecord({ provider: link.id, config: link.config, pair, tier: walk.tier, outcome, scrub: walk.scrub }));
    const first = initialPair(link.config, walk.tier, { packet: walk.packet, aliases: walk.aliases });
    if (!first.ok) {
      record({ model: link.config.model ?? null, effort: null }, { kind: "not-run", reason: first.why });
      continue;
    }
    const triedModels = new Set<string | null>();
    // Each step is a separate dispatch, allowed only because the previous one proved that nothing ran.
    for (let pair: Pair | null = first.pair; pair;) {
      triedModels.add(pair.model);
      const outcome = await walk.dispatch(link, pair, packetText);
      // an answer that arrived whole was paid for: losing the claim after it does not lose it (the files settle a
      // failure a takeover wrote meanwhile, SPEC §15); anything else of a fenced dispatch is nothing to go on
      if (walk.fenced() && outcome.kind !== "output") return { kind: "fenced" };
      if (outcome.kind === "not-run" && outcome.shortage) return { kind: "short", reason: outcome.reason, code: outcome.shortage };
      record(pair, outcome);
      if (outcome.kind === "ambiguous") return failed("no_verdict", tried());
      if (outcome.kind === "oversized") return failed("malformed", outcome.reason); // never normalized, so never repaired
      if (outcome.kind === "output") {
        const requested = outcome.declared?.model ?? pair.model;
        return { kind: "answered", link, pair, answer: outcome, attempts, requested, declared: outcome.declared };
      }
      if (!outcome.capability) break; // not about the pair: the next provider in the chain may go
      const next = nextPair(link.config, pair, outcome.capability, { packet: walk.packet, aliases: walk.aliases, models: triedModels });
      if (!next.ok) attempts[attempts.length - 1]!.note = `no capability fallback: ${next.why}`;
      pair = next.ok ? next.pair : null;
    }
  }
  return failed("unavailable", tried());
}

/**
 * The answer as a review_result.v1 bound to the packet, after at most one schema-repair dispatch. `given`: the text the
 * reviewer was given, where an answer quoting the author's words is looked for (the packet, and for a nightmare packet
 * the artifact it read from the repository).
 */
export async function normalizeWithRepair(
  ran: Answered,
  packetText: string,
  walk: Walk,
  log: (message: string) => void,
  given = packetText,
): Promise<Extract<Normalized, { ok: true }> | Exclude<Stopped, { kind: "short" }>> {
  const envelope = envelopeFor(walk.packet, ran.link.id, { requested: ran.requested, declared: ran.declared !== undefined }, given);
  const normalized = normalizeBound(ran.answer.text, withReported(envelope, ran.answer.reportedModel));
  if (normalized.ok) return normalized;
  const failed = (reason: string, failure: Failure["kind"] = "malformed"): Exclude<Stopped, { kind: "short" }> => ({
    kind: "failed",
    failure,
    reason: `${normalized.reasons.join("; ")}; ${reason}`,
    attempts: ran.attempts,
  });
  if (walk.fenced()) return { kind: "fenced" }; // no new paid dispatch without the claim
  try {
    await walk.keepForRepair(
      ran.answer.text,
      `the answer to ${walk.packet.packet_id} could not be normalized (${normalized.reasons.join("; ")}); ` +
        "kept before the one schema-repair call, a second paid call to the same reviewer",
    );
  } catch (error) {
    // fail closed: a second paid call is made only once the files say why
    return failed(`the answer could not be kept before a schema-repair call (${(error as Error).message}); no repair call made`);
  }
  log(`malformed output (${normalized.reasons.join("; ")}); one schema repair`);
  const repairSection = `## Schema repair\n\n${repairPrompt(normalized.reasons, envelope)}`;
  // fenced as the packet fences the artifact: the answer may quote it, and nothing quoted may pose as the bus's words
  const previous = fencedLines(wholeChars(ran.answer.text, 20_000)).join("\n");
  const prompt = `${packetText}\n\n${repairSection}\n\nYour previous answer (quoted):\n\n${previous}\n`;
  const repair = await walk.dispatch(ran.link, ran.pair, prompt);
  if (walk.fenced() && repair.kind !== "output") return { kind: "fenced" }; // an answer in hand was paid for
  ran.attempts.push(
    attemptRecord({
      provider: ran.link.id,
      config: ran.link.config,
      pair: ran.pair,
      tier: walk.tier,
      outcome: repair,
      repair: true,
      scrub: walk.scrub,
    }),
  );
  // a repair call that may have run was perhaps paid for: as after any ambiguous dispatch, a person decides (never the
  // automatic new round a malformed answer gets)
  if (repair.kind === "ambiguous") return failed(`the repair call may have run: ${repair.reason}`, "no_verdict");
  if (repair.kind === "oversized") return failed(`after repair: ${repair.reason}`);
  if (repair.kind !== "output") return failed(`repair call failed: ${repair.reason}`);
  const repaired = normalizeBound(repair.text, withReported(envelope, repair.reportedModel));
  if (!repaired.ok) return failed(`after repair: ${repaired.reasons.join("; ")}`);
  return { ...repaired, result: { ...repaired.result, repaired: true } };
}
