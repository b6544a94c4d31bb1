// A reviewer worker: for packets addressed to a provider it serves, claim the round, record the attempt, dispatch
// once (a weaker pair or a fallback provider only after a dispatch proved that nothing ran), normalize the output
// (one schema repair), and deliver result-<n>.json — or failure-<n>.json saying why not; every dispatch is recorded.
import { hostname } from "node:os";
import { dispatchProject, type ReviewerAdapter } from "../adapters/types.js";
import { type DispatchOutcome } from "../core/dispatch-outcome.js";
import { readGate } from "../bus/gate-reader.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { envelopeFor, normalizeBound, repairPrompt, withReported } from "../core/normalize.js";
import type { DispatchAttempt, Failure } from "../spec/schemas.js";
import { tryClaim } from "../bus/claim.js";
import { deliver } from "../bus/deliver.js";
import type { BusContext } from "../bus/context.js";
import {
  attemptFile,
  attemptRecord,
  type ChainLink,
  describeAttempt,
  dispatchChain,
  failureRecord,
  gateTier,
  initialPair,
  nextPair,
  type Pair,
} from "../core/dispatch-plan.js";
import { deliverResult } from "./deliver-result.js";
import { type WorkerOptions, workerRuntime } from "../runtime/worker-options.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import { openRound } from "../core/gate-queries.js";
import { resultRefusal } from "../core/result-slot.js";

export interface ReviewerOptions {
  /** Adapter kinds whose packets this worker takes (e.g. ["command"]). */
  serves: string[];
  /** Every adapter this worker may run: the served ones, and fallbacks of other kinds. */
  adapters: Record<string, ReviewerAdapter>;
  /** Restrict to these provider ids (all providers of the served adapters when empty). */
  providers?: string[];
  claimStaleMs?: number;
  log(message: string): void;
}

const now = () => new Date().toISOString();
export async function reviewGate(
  ctx: BusContext,
  runId: string,
  gate: string,
  opts: ReviewerOptions,
  signal: AbortSignal,
): Promise<"active" | "finished"> {
  const { layout } = ctx;
  const first = readGate(layout, runId, gate);
  if (first.outcome) return "finished";
  const R = openRound(first);
  const P = first.packets.get(R);
  if (!P || !opts.serves.includes(P.reviewer_adapter)) return "active";
  if (opts.providers?.length && !opts.providers.includes(P.reviewer_provider)) return "active";
  if (first.results.has(R) || resultRefusal(first, R)) return "active";

  const claim = await tryClaim(layout.claimsDir(runId, gate), `review-${R}`, { staleMs: opts.claimStaleMs, log: opts.log });
  if (!claim) return "active";
  try {
    const s = readGate(layout, runId, gate);
    if (s.outcome || s.results.has(R) || s.failures.has(R)) return "active";
    const file = (name: string) => layout.gateFile(runId, gate, name);
    const fail = (kind: Failure["kind"], reason: string, attempts: DispatchAttempt[] = []): "active" => {
      const failure = failureRecord(P, { kind, reason, attempts, at: now() });
      deliver(file(`failure-${R}.json`), JSON.stringify(failure, null, 2) + "\n", { guildDir: layout.guild });
      opts.log(`${runId}/${gate} round ${R}: ${kind}: ${reason}`);
      return "active";
    };
    const previous = s.attempts.get(R);
    if (previous) {
      return fail(
        "no_verdict",
        `a previous dispatch (attempt-${R}.json, pid ${previous.worker.pid} on ${previous.worker.host}, ${previous.started_at}) ended without a result; not dispatching a paid review twice — decide retry, force-pass or rework`,
      );
    }
    const attempt = attemptFile(P, { host: hostname(), pid: process.pid }, now());
    if (deliver(file(`attempt-${R}.json`), JSON.stringify(attempt, null, 2) + "\n", { guildDir: layout.guild }).status !== "delivered")
      return "active";

    const packetPath = file(`packet-${R}.md`);
    const packetText = readTextBounded(packetPath, { max: MAX_FILE_BYTES });
    const project = dispatchProject(layout.root, ctx.settings);
    const dispatchBase = (link: ChainLink, pair: Pair) => ({
      project,
      providerId: link.id,
      config: { ...link.config, model: pair.model ?? undefined, effort: pair.effort ?? undefined },
      front: P,
      packetPath,
      signal: AbortSignal.any([signal, claim.signal]),
    });
    const planned = dispatchChain(P, ctx.settings, (kind) => kind in opts.adapters);
    if (planned.skipped.length) opts.log(`${runId}/${gate} round ${R}: ${planned.skipped.join("; ")}`);
    if (!planned.ok) return fail("unavailable", planned.why);
    const chain = planned.links.map((link) => ({ ...link, adapter: opts.adapters[link.config.adapter]! }));
    const tier = gateTier(ctx.settings, gate);
    const attempts: DispatchAttempt[] = [];
    const tried = () => attempts.map(describeAttempt).join("; ");
    let ran: { link: (typeof chain)[number]; pair: Pair } | null = null;
    let answer: Extract<DispatchOutcome, { kind: "output" }> | null = null;
    for (const link of chain) {
      // Each step is a separate dispatch, allowed only because the previous one proved that nothing ran.
      const first = initialPair(link.config, tier);
      if (!first.ok) {
        attempts.push(
          attemptRecord({
            provider: link.id,
            config: link.config,
            pair: { model: link.config.model ?? null, effort: null },
            tier,
            outcome: { kind: "not-run", reason: first.why },
          }),
        );
        continue;
      }
      let pair = first.pair;
      const triedModels = new Set<string | null>();
      while (!answer) {
        triedModels.add(pair.model);
        const outcome = await link.adapter.dispatch({ ...dispatchBase(link, pair), prompt: packetText });
        if (claim.signal.aborted) return "active"; // fenced out: deliver nothing
        attempts.push(attemptRecord({ provider: link.id, config: link.config, pair, tier, outcome }));
        if (outcome.kind === "ambiguous") return fail("no_verdict", tried(), attempts);
        if (outcome.kind === "oversized") return fail("malformed", outcome.reason, attempts); // never normalized, so never repaired
        if (outcome.kind === "output") {
          ran = { link, pair };
          answer = outcome;
          break;
        }
        if (!outcome.capability) break; // not about the pair: the next provider in the chain may go
        const next = nextPair(link.config, pair, outcome.capability, {
          packet: P,
          aliases: ctx.settings.family_aliases,
          models: triedModels,
        });
        if (!next.ok) {
          attempts[attempts.length - 1]!.note = `no capability fallback: ${next.why}`;
          break;
        }
        pair = next.pair;
      }
      if (answer) break;
    }
    if (!ran || !answer) return fail("unavailable", tried(), attempts);
    const declared = answer.declared;
    const requested = declared?.model ?? ran.pair.model;
    const envelopeCtx = envelopeFor(P, ran.link.id, { requested, declared: declared !== undefined });
    const input = dispatchBase(ran.link, ran.pair);
    const adapter = ran.link.adapter;
    const identity = withReported(envelopeCtx, answer.reportedModel);
    let normalized = normalizeBound(answer.text, identity);
    if (!normalized.ok) {
      opts.log(`${runId}/${gate} round ${R}: malformed output (${normalized.reasons.join("; ")}); one schema repair`);
      const repair = await adapter.dispatch({
        ...input,
        prompt: `${packetText}\n\n## Schema repair\n\n${repairPrompt(normalized.reasons, envelopeCtx)}\n\nYour previous answer:\n\n${answer.text.slice(0, 20_000)}\n`,
      });
      if (claim.signal.aborted) return "active";
      attempts.push(attemptRecord({ provider: ran.link.id, config: ran.link.config, pair: ran.pair, tier, outcome: repair, repair: true }));
      if (repair.kind === "oversized")
        return fail("malformed", `${normalized.reasons.join("; ")}; after repair: ${repair.reason}`, attempts);
      if (repair.kind !== "output")
        return fail("malformed", `${normalized.reasons.join("; ")}; repair call failed: ${repair.reason}`, attempts);
      const repaired = normalizeBound(repair.text, withReported(envelopeCtx, repair.reportedModel));
      if (!repaired.ok)
        return fail("malformed", `${normalized.reasons.join("; ")}; after repair: ${repaired.reasons.join("; ")}`, attempts);
      normalized = { ...repaired, result: { ...repaired.result, repaired: true } };
    }
    const delivery = deliverResult(ctx, P, {
      ...normalized.result,
      dispatch_attempts: attempts,
      // the model the reviewer reported when it says (a reroute), else the one requested
      ran: {
        provider: ran.link.id,
        model: normalized.result.reviewer_model_source === "reported" ? normalized.result.reviewer_model : requested,
        effort: ran.pair.effort,
        tier,
      },
      // copilot: nothing reports the model; the profile declares it, so a finalizer must confirm a pass
      ...(declared ? { identity_assurance: "caller-declared-unverified" as const, copilot_profile: declared.profile } : {}),
    });
    if (!delivery.ok && delivery.tooLarge) return fail("malformed", delivery.reason, attempts);
    opts.log(
      `${runId}/${gate} round ${R}: ${!delivery.ok ? `result not delivered: ${delivery.reason}` : delivery.status === "delivered" ? `result delivered (${delivery.result.verdict}, ${delivery.result.blocking_findings.length} blocking)` : `result not delivered: result-${R}.json already exists (${delivery.status})`}`,
    );
    return "active";
  } finally {
    await claim.release();
  }
}

/** `others` are adapters of other kinds this worker may run as configured fallbacks. */
export function createReviewer(
  kind: string,
  adapter: ReviewerAdapter,
  options: WorkerOptions,
  others: Record<string, ReviewerAdapter> = {},
): WorkerRuntime {
  const adapters = { ...others, [kind]: adapter };
  return workerRuntime(
    kind,
    options,
    (ctx, { runId, gate }, signal, log) =>
      reviewGate(
        ctx,
        runId,
        gate,
        { serves: [kind], adapters, providers: options.providers, claimStaleMs: options.claimStaleMs, log },
        signal,
      ),
    { concurrency: options.concurrency ?? 4 },
  );
}
