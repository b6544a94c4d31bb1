// A reviewer worker: for packets addressed to a provider it serves, claim the round, record the attempt, dispatch
// once (a weaker pair or a fallback provider only after a dispatch proved that nothing ran), normalize the output
// (one schema repair), and deliver result-<n>.json — or failure-<n>.json saying why not; every dispatch is recorded.
import { busJson } from "../core/bus-json.js";
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { dispatchProject, type ReviewerAdapter } from "../adapters/types.js";
import { packetTextProblem, readGateLive } from "./issued-packets.js";
import { isSystemFault, rethrowSystemFault, retryOnSystemFault } from "../bus/system-fault.js";
import { isRefusedWrite } from "../bus/refused-write.js";
import { ReadFault } from "../core/read-fault.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { normalizeWithRepair, runChain, type Walk } from "./reviewer-dispatch.js";
import type { DispatchAttempt, Failure, PacketFrontMatter } from "../spec/schemas.js";
import { type Claim, tryClaim } from "../bus/claim.js";
import { deliver } from "../bus/deliver.js";
import type { BusContext } from "../bus/context.js";
import { attemptFile, type ChainLink, dispatchChain, failureRecord, gateTier, type Pair } from "../core/dispatch-plan.js";
import { deliverResult, type ResultDelivery } from "./deliver-result.js";
import { keepRejected, rejectFile, rejectPlace } from "../bus/reject.js";
import { parseReviewResult } from "../core/result-wire.js";
import { type WorkerOptions, workerRuntime } from "../runtime/worker-options.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import { openRound } from "../core/gate-queries.js";
import { resultRefusal } from "../core/result-slot.js";
import { type GateSnapshot, memberView, reviewerViews } from "../core/snapshot.js";
import { packetMember, slotFile } from "../core/slot-file.js";
import { familyMapsProblem } from "../core/family.js";
import { receivedScrubOptions, scrub, scrubOptions } from "../core/scrub.js";
import { isNightmare } from "../core/adapter-kinds.js";
import { quotedArtifact } from "../core/packet-body.js";
import { readArtifact } from "../bus/artifact.js";
import { decodeUtf8, readBounded } from "../bus/read-bounded.js";
import { MAX_ARTIFACT_BYTES } from "../spec/constants.js";
import { type Advert, advertText, leaveToPeers, servedByWords } from "../core/advertised.js";
import { ProviderCache } from "../adapters/provider-cache.js";
import { type detectProviders, detectWithoutRunning } from "../adapters/probe.js";
import { Layout } from "../bus/layout.js";
import { liveAdverts, SELF_PEER } from "../runtime/peers.js";
import type { Settings } from "../spec/schemas.js";

export interface ReviewerOptions {
  /** Adapter kinds whose packets this worker takes (e.g. ["command"]). */
  serves: string[];
  /** Every adapter this worker may run: the served ones, and fallbacks of other kinds. */
  adapters: Record<string, ReviewerAdapter>;
  /** Restrict to these provider ids (all providers of the served adapters when empty). */
  providers?: string[];
  claimStaleMs?: number;
  log(message: string): void;
  /**
   * This worker's ends it could not write (the system refused the write): by slot, the delivery of its answer (or of its
   * dispatch's failure), tried again on the next passes, never a new dispatch. Only in memory: a worker that dies
   * with one leaves its attempt without a result, which a person decides (no_verdict).
   */
  held?: Map<string, Held>;
  /**
   * The live workers of this kind elsewhere to leave a packet for `provider` to: those that say they run it when this
   * machine cannot (SPEC §15); empty (or absent): this worker claims it. Asked only for packets it would claim.
   */
  elsewhere?: (provider: { id: string; adapter: string }, settings: Settings) => Promise<Advert[]>;
  /** Slots already said to be left to another worker, or not dispatched for want of their family maps (logged once). */
  left?: Set<string>;
}

/** An end of a dispatch kept in hand: the packet it answers, and its delivery (the same call as the first try). */
export interface Held {
  packetId: string;
  deliver: (claim: Claim) => Promise<"active">;
  /** A dispatch the system could not start (nothing was sent): `deliver` dispatches the round, under this pass's claim. */
  nothingSent?: true;
  /**
   * A paid answer (its round, and quorum member): delivered even once its round no longer takes it (a takeover's
   * no_verdict put to a person, the gate ended), which keeps it in rejected/ with why — never dropped.
   */
  answer?: { round: number; member: string | null; deliver: () => Promise<"active"> };
}

const now = () => new Date().toISOString();
/** The most of an answer to repair kept in rejected/: a bus file holds at most MAX_FILE_BYTES, and scrub labels grow text. */
const KEPT_ANSWER_CHARS = 500_000;
export async function reviewGate(
  ctx: BusContext,
  runId: string,
  gate: string,
  opts: ReviewerOptions,
  signal: AbortSignal,
): Promise<"active" | "finished"> {
  const first = readGateLive(ctx, runId, gate);
  await keepClosedAnswers(first, opts);
  if (first.outcome) return "finished";
  // the gate's own packet, or each quorum member's this worker serves: each its own dispatch. The pass ends with the last
  // of them, even when one failed early: a worker draining waits for its passes, and a member's paid review runs on
  const ends = await Promise.allSettled(reviewerViews(first).map((view) => reviewSlot(ctx, view, opts, signal)));
  const failed = ends.find((end) => end.status === "rejected");
  if (failed) throw failed.reason;
  return "active";
}

/**
 * This worker's paid answers in hand for rounds of this gate that take no result now (closed, put to a person, the gate
 * ended: no pass of their slot delivers them any more) or whose slot holds a result: delivered as on the first try, which
 * keeps an answer its round no longer takes in rejected/ with why. A fault again leaves it in hand, tried on a later pass.
 */
async function keepClosedAnswers(s: GateSnapshot, opts: ReviewerOptions): Promise<void> {
  for (const [key, kept] of opts.held ?? []) {
    if (!kept.answer || !key.startsWith(`${s.runId}/${s.gate}/`)) continue;
    const { round, member } = kept.answer;
    const view = member === null ? s : memberView(s, member);
    if (resultRefusal(view, round) === null && !view.results.has(round)) continue; // its slot's pass delivers it
    await kept.answer.deliver();
    opts.held!.delete(key);
  }
}

async function reviewSlot(ctx: BusContext, first: GateSnapshot, opts: ReviewerOptions, signal: AbortSignal): Promise<"active"> {
  const { layout } = ctx;
  const { runId, gate, member } = first;
  const R = openRound(first);
  const P = first.packets.get(R);
  if (!P || !opts.serves.includes(P.reviewer_adapter)) return "active";
  if (opts.providers?.length && !opts.providers.includes(P.reviewer_provider)) return "active";
  if (first.results.has(R)) return "active";
  // a packet whose family maps the gate does not hold can never pass strong: nobody is paid for it (SPEC §7)
  const mapsKey = `${runId}/${gate}/${member ?? ""}/${P.packet_id}/maps`;
  const mapsLost = (view: GateSnapshot) => {
    const why = familyMapsProblem(P, view.familyMaps);
    if (why === null) opts.left?.delete(mapsKey);
    else if (!opts.left?.has(mapsKey)) {
      opts.left?.add(mapsKey);
      opts.log(
        `${runId}/${gate} round ${R}${member === null ? "" : ` (${member})`}: not dispatched: ${why}; the broker writes it ` +
          `again if the settings still give those maps, else a person decides the round (guild-bus status ${runId} ${gate})`,
      );
    }
    return why !== null;
  };
  // a round already dispatched still ends as before: an answer in hand is delivered, a dispatch that died goes to a person
  if ((!first.attempts.has(R) && mapsLost(first)) || resultRefusal(first, R)) return "active";

  const claimName = member === null ? `review-${R}` : `review-${R}.${member}`;
  // a provider this machine cannot run, while a live worker of this kind elsewhere runs it: that one's to claim; with
  // none, this worker claims as before and fails the round unavailable with its reason (nothing waits for nobody)
  const others = (await opts.elsewhere?.({ id: P.reviewer_provider, adapter: P.reviewer_adapter }, ctx.settings)) ?? [];
  const leftKey = `${runId}/${gate}/${claimName}/${P.packet_id}`;
  if (others.length) {
    if (!opts.left?.has(leftKey))
      opts.log(
        `${runId}/${gate} round ${R}${member === null ? "" : ` (${member})`}: provider ${P.reviewer_provider} cannot run on this ` +
          `machine; left to ${servedByWords(P.reviewer_adapter, others)}`,
      );
    opts.left?.add(leftKey);
    return "active";
  }
  opts.left?.delete(leftKey);
  const claim = await tryClaim(layout.claimsDir(runId, gate), claimName, { staleMs: opts.claimStaleMs, log: opts.log });
  if (!claim) return "active";
  const slotKey = `${runId}/${gate}/${claimName}`;
  const held = opts.held ?? new Map<string, Held>();
  // the end of this worker's dispatch: kept in hand while the system refuses its write, fails it for longer than the
  // quick retries (EIO, a network filesystem away) or fails a read on the way (ReadFault), so a later pass delivers it
  // rather than a no_verdict naming it
  const end = async (deliver: () => Promise<"active">, answer = false): Promise<"active"> => {
    try {
      const done = await deliver();
      held.delete(slotKey);
      return done;
    } catch (error) {
      if (!isRefusedWrite(error) && !isSystemFault(error) && !(error instanceof ReadFault)) throw error;
      held.set(slotKey, { packetId: P.packet_id, deliver, ...(answer ? { answer: { round: R, member, deliver } } : {}) });
      throw error; // the reconciler logs it and tries the gate again with backoff
    }
  };
  try {
    const again = readGateLive(ctx, runId, gate);
    const s = member === null ? again : memberView(again, member);
    const kept = held.get(slotKey);
    if (s.outcome || s.results.has(R) || s.failures.has(R)) {
      // a paid answer in hand is never dropped: its delivery keeps it in rejected/ when the round no longer takes it
      if (kept?.packetId === P.packet_id && kept.answer) return await end(() => kept.deliver(claim), true);
      held.delete(slotKey);
      return "active";
    }
    if (kept?.packetId === P.packet_id)
      return kept.nothingSent ? await kept.deliver(claim) : await end(() => kept.deliver(claim), kept.answer !== undefined);
    held.delete(slotKey); // another packet holds the round now
    const file = (name: string) => layout.gateFile(runId, gate, name);
    // `endKey`: the failure of this worker's own dispatch carries its attempt's end key; one before it has none
    const fail = (kind: Failure["kind"], reason: string, attempts: DispatchAttempt[] = [], endKey?: string) =>
      end(() => failWith(kind, reason, attempts, endKey));
    const failWith = async (kind: Failure["kind"], reason: string, attempts: DispatchAttempt[], endKey?: string): Promise<"active"> => {
      const failure = failureRecord(P, { kind, reason, attempts, at: now(), endKey }, receivedScrubOptions(ctx.settings));
      const text = busJson(failure);
      const failureFile = file(slotFile("failure", R, member));
      const send = () => deliver(failureFile, text, { guildDir: layout.guild });
      // this dispatch's failure gives way to none dropped in its slot (keyless, the broker moves it aside)
      await (endKey === undefined
        ? retryOnSystemFault(send)
        : deliverOverPlanted(
            ctx,
            failureFile,
            { what: "failure", ours: () => readFailureKey(failureFile) === endKey, conflict: (d) => d.status === "conflict" },
            send,
          ));
      opts.log(`${runId}/${gate} round ${R}${member === null ? "" : ` (${member})`}: ${kind}: ${failure.reason}`);
      return "active";
    };
    const previous = s.attempts.get(R);
    if (previous) {
      return await fail(
        "no_verdict",
        `a previous dispatch (${slotFile("attempt", R, member)}, pid ${previous.worker.pid} on ${previous.worker.host}, ` +
          `${previous.started_at}) ` +
          "ended without a result; not dispatching a paid review twice — a person decides the round",
      );
    }
    // read before the attempt is recorded: a read that fails now must leave nothing that says a review was dispatched
    const packetPath = file(slotFile("packet", R, member));
    const packetText = readPacket(packetPath);
    // what is sent is the broker's packet to the byte (the look checked the file then; this is the text sent now)
    if (packetTextProblem(ctx, again, P, packetText) !== null || mapsLost(again)) return "active";
    // only this process knows the keys (the attempt records their hashes): the round takes no result but the one it
    // delivers, and ends without one only by its failure
    const keys = { delivery: randomBytes(32).toString("hex"), end: randomBytes(32).toString("hex") };
    const deliveryKey = keys.delivery;
    const attempt = JSON.stringify(attemptFile(P, { host: hostname(), pid: process.pid }, now(), keys), null, 2) + "\n";
    // a delivery the system failed is tried again; "identical" is this worker's own (it names its pid and time), linked
    // by a try whose directory fsync failed
    const recorded = await retryOnSystemFault(() => deliver(file(slotFile("attempt", R, member)), attempt, { guildDir: layout.guild }));
    if (recorded.status === "conflict") {
      // another file holds the name (a planted one the broker moves aside after its grace, or a peer's): nothing is sent
      const takenKey = `${runId}/${gate}/${claimName}/${P.packet_id}/attempt`;
      if (!opts.left?.has(takenKey))
        opts.log(
          `${runId}/${gate} round ${R}${member === null ? "" : ` (${member})`}: not dispatched: ${slotFile("attempt", R, member)} ` +
            `is another file already; the round is dispatched once the name is free (guild-bus status ${runId} ${gate})`,
        );
      opts.left?.add(takenKey);
      return "active";
    }

    const dispatchRound = async (roundClaim: Claim): Promise<"active"> => {
      const project = dispatchProject(layout.root, ctx.settings);
      const dispatchBase = (link: ChainLink, pair: Pair) => ({
        project,
        providerId: link.id,
        config: { ...link.config, model: pair.model ?? undefined, effort: pair.effort ?? undefined },
        front: P,
        packetPath,
        signal: AbortSignal.any([signal, roundClaim.signal]),
      });
      const planned = dispatchChain(P, ctx.settings, (kind) => kind in opts.adapters);
      if (planned.skipped.length) opts.log(`${runId}/${gate} round ${R}: ${planned.skipped.join("; ")}`);
      if (!planned.ok) return fail("unavailable", planned.why, [], keys.end);
      const chain = planned.links.map((link) => ({ ...link, adapter: opts.adapters[link.config.adapter]! }));
      const tier = gateTier(ctx.settings, gate);
      const walk: Walk = {
        packet: P,
        tier,
        aliases: ctx.settings.family_aliases,
        scrub: receivedScrubOptions(ctx.settings),
        fenced: () => roundClaim.signal.aborted,
        dispatch: (link, pair, prompt) => link.adapter.dispatch({ ...dispatchBase(link, pair), prompt }),
        keepForRepair: async (answer, why) => {
          const kept = await keepRejected(
            s.dir,
            slotFile("result", R, member),
            scrub(answer.slice(0, KEPT_ANSWER_CHARS), receivedScrubOptions(ctx.settings)),
            answer.length > KEPT_ANSWER_CHARS ? `${why} (its first ${KEPT_ANSWER_CHARS} characters)` : why,
            rejectPlace(ctx),
          );
          opts.log(`${runId}/${gate} round ${R}: the answer to repair is kept as rejected/${kept}`);
        },
      };
      held.delete(slotKey); // from here a review may be sent: nothing in hand may dispatch it again
      const ran = await runChain(chain, packetText, walk);
      if (ran.kind === "fenced") return "active"; // fenced out: deliver nothing
      if (ran.kind === "short") {
        // nothing ran: the system could not start the reviewer (EMFILE, EAGAIN…) past the quick retries. Not a failure
        // of the round a person must decide: this worker keeps it in hand and dispatches it once it can (its attempt
        // is on file, so a worker that dies meanwhile leaves it to a person, no_verdict)
        held.set(slotKey, { packetId: P.packet_id, deliver: dispatchRound, nothingSent: true });
        throw Object.assign(new Error(`the reviewer could not be started (${ran.reason}); the round is dispatched once it can`), {
          code: ran.code,
          syscall: "spawn",
        });
      }
      // a fallback refused (its family) is why nothing else ran: the failure says so, not only the worker's log
      const refused =
        ran.kind === "failed" && ran.failure === "unavailable" && planned.skipped.length ? `; ${planned.skipped.join("; ")}` : "";
      if (ran.kind === "failed") return fail(ran.failure, `${ran.reason}${refused}`, ran.attempts, keys.end);
      const given = isNightmare(P) ? withArtifactRead(ctx, P, packetText) : packetText;
      const log = (m: string) => opts.log(`${runId}/${gate} round ${R}: ${m}`);
      const normalized = await normalizeWithRepair(ran, packetText, walk, log, given);
      if ("kind" in normalized) {
        if (normalized.kind === "fenced") return "active";
        return fail(normalized.failure, normalized.reason, ran.attempts, keys.end);
      }
      const { result } = normalized;
      const { link, pair, attempts, requested, declared } = ran;
      return end(async () => {
        // the answer is paid for: a delivery the system failed is tried again rather than lost, and a result planted in
        // its slot meanwhile (the verifier refuses it: no delivery key) gives way to it
        const delivery = await deliverOverForeign(ctx, P, deliveryKey, () =>
          deliverResult(
            ctx,
            P,
            {
              ...result,
              dispatch_attempts: attempts,
              // the model the reviewer reported when it says (a reroute), else the one requested
              ran: {
                provider: link.id,
                model: result.reviewer_model_source === "reported" ? result.reviewer_model : requested,
                effort: pair.effort,
                tier,
              },
              // copilot: nothing reports the model; the profile declares it, so a finalizer must confirm a pass
              ...(declared ? { identity_assurance: "caller-declared-unverified" as const, copilot_profile: declared.profile } : {}),
              delivery_key: deliveryKey,
            },
            { keepRefused: true },
          ),
        );
        if (!delivery.ok && delivery.tooLarge) return failWith("malformed", delivery.reason, attempts, keys.end);
        const outcome = !delivery.ok
          ? `result not delivered: ${delivery.reason}${delivery.keptAs ? ` (kept as rejected/${delivery.keptAs})` : ""}`
          : delivery.status !== "conflict" // identical: this worker's own try, whose directory fsync had failed
            ? `result delivered (${delivery.result.verdict}, ${delivery.result.blocking_findings.length} blocking)`
            : `result not delivered: ${slotFile("result", R, member)} already exists (${delivery.status})`;
        opts.log(`${runId}/${gate} round ${R}: ${outcome}`);
        return "active";
      }, true);
    };
    return await dispatchRound(claim);
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
  const held = new Map<string, Held>();
  const left = new Set<string>();
  const { here, elsewhere } = servedElsewhere(new Layout(options.root), kind, options.providers);
  return workerRuntime(
    kind,
    options,
    (ctx, { runId, gate }, signal, log) =>
      reviewGate(
        ctx,
        runId,
        gate,
        { serves: [kind], adapters, providers: options.providers, claimStaleMs: options.claimStaleMs, log, held, elsewhere, left },
        signal,
      ),
    // its presence file says which providers of its kind it runs on this machine (SPEC §18): brokers select them
    { concurrency: options.concurrency ?? 4, presence: (ctx) => here.advert(ctx.settings) },
  );
}

/**
 * A reviewer worker's view of its kind on the tree: what this machine runs (`here`, its advertisement), and the live
 * workers elsewhere to leave a packet to (SPEC §15). `detect`: the detection (tests stand one in).
 */
export function servedElsewhere(layout: Layout, kind: string, only?: string[], detect?: typeof detectProviders) {
  const here = new RunsHere(layout, kind, only, detect);
  const elsewhere = async (provider: { id: string; adapter: string }, settings: Settings): Promise<Advert[]> => {
    const adverts = liveAdverts(layout, [kind]);
    // detection (it may probe a binary) only when another live worker says it runs this provider
    if (!leaveToPeers(provider, new Set(), adverts, SELF_PEER).length) return [];
    return leaveToPeers(provider, await here.ids(settings), adverts, SELF_PEER);
  };
  return { here, elsewhere };
}

/**
 * The providers of a reviewer kind this machine can run, by this worker's own detection (its PATH, environment and
 * login files, without running the CLIs; re-detected each minute and when the providers configured change), restricted
 * to `--provider` ids.
 */
export class RunsHere {
  private readonly cache: ProviderCache;
  private known: Set<string> | null = null;
  constructor(
    layout: Layout,
    private readonly kind: string,
    private readonly only: string[] | undefined,
    detect?: typeof detectProviders,
  ) {
    this.cache = new ProviderCache(layout, undefined, detect ?? detectWithoutRunning);
  }

  /** The ids detected runnable here; none when detection fails (a peer that runs one is then left it). */
  async ids(settings: Settings): Promise<Set<string>> {
    try {
      const found = await this.cache.get(settings);
      const runs = found.filter((p) => p.adapter === this.kind && p.available && (!this.only?.length || this.only.includes(p.id)));
      this.known = new Set(runs.map((p) => p.id));
    } catch {
      this.known = new Set();
    }
    return this.known;
  }

  /** The presence file's body: what the last detection found (a new one is started when due); null before any. */
  advert(settings: Settings): string | null {
    void this.ids(settings);
    return this.known ? advertText(hostname(), [...this.known]) : null;
  }
}

/** How long a worker waits for the verifier (or broker) to move a file planted in its slot before it moves it itself. */
const FOREIGN_RESULT_WAIT_MS = 30_000;
/** How many times it moves a planted file itself before it leaves the slot as it is. */
const MOVES_TRIED = 3;

/**
 * Deliver this worker's answer; when its slot holds a result that is not (no delivery key of this dispatch), wait for
 * the verifier to move it aside, else move it aside itself, and deliver again: a planted result must not cost the
 * round its paid answer.
 */
async function deliverOverForeign(
  ctx: BusContext,
  P: PacketFrontMatter,
  key: string,
  send: () => Promise<ResultDelivery>,
): Promise<ResultDelivery> {
  const file = ctx.layout.gateFile(P.run_id, P.gate, slotFile("result", P.round, packetMember(P)));
  const ours = () => {
    try {
      return parseReviewResult(readTextBounded(file, { max: MAX_FILE_BYTES })).result?.delivery_key === key;
    } catch {
      return false; // gone meanwhile, or no result of ours: deliver again
    }
  };
  return deliverOverPlanted(ctx, file, { what: "answer", ours, conflict: (d) => d.ok && d.status === "conflict" }, send);
}

/** The end key of the failure in `file`, if it is one (and readable). */
function readFailureKey(file: string): unknown {
  try {
    return (JSON.parse(readTextBounded(file, { max: MAX_FILE_BYTES })) as { end_key?: unknown }).end_key;
  } catch {
    return undefined;
  }
}

/**
 * Deliver with `send`; while the slot holds another file than this dispatch's (`ours` is false), wait for the worker
 * that moves such files aside, else move it aside itself, and deliver again: a planted file must not cost the round
 * its paid end (its answer, or its failure that lets the broker select again).
 */
async function deliverOverPlanted<T>(
  ctx: BusContext,
  file: string,
  o: { what: string; ours: () => boolean; conflict: (delivery: T) => boolean },
  send: () => Promise<T>,
): Promise<T> {
  const until = performance.now() + FOREIGN_RESULT_WAIT_MS;
  for (let moves = 0; ;) {
    const delivery = await retryOnSystemFault(send);
    if (!o.conflict(delivery) || o.ours()) return delivery;
    if (performance.now() < until) await sleep(200);
    // a slot that cannot be freed (the move fails each time) is left as it is: the worker's log says it was not delivered
    else if (moves++ === MOVES_TRIED) return delivery;
    else {
      const reason = `planted in the slot of the dispatched reviewer's ${o.what}, which has no other place (no key of its dispatch)`;
      await rejectFile(path.dirname(file), path.basename(file), reason, rejectPlace(ctx));
    }
  }
}

/** The packet to dispatch; a read the system failed is a ReadFault (tried again later), not a bug's stack. */
function readPacket(file: string): string {
  try {
    return readTextBounded(file, { max: MAX_FILE_BYTES });
  } catch (error) {
    rethrowSystemFault(error);
    throw error;
  }
}

/**
 * A nightmare packet names the artifact instead of quoting it, and the reviewer reads the file: the normalizer is given
 * the file as read now too, so a verdict planted in it and quoted in the answer is told from the reviewer's own. Both as
 * scrubbed and as the reviewer read it: a planted object holding a secret-shaped string (a summary with an AWS key id)
 * differs from its scrubbed form, and the reviewer quotes the raw bytes. Only compared against, never written or sent.
 */
function withArtifactRead(ctx: BusContext, P: PacketFrontMatter, packetText: string): string {
  const artifact = readArtifact(ctx.layout, P.artifact_path, scrubOptions(ctx.settings));
  const texts = [packetText];
  if (artifact.ok) texts.push("", ...quotedArtifact(P, artifact.text));
  const raw = rawArtifactText(ctx.layout, P.artifact_path);
  if (raw !== null && !(artifact.ok && raw === artifact.text)) texts.push("", ...quotedArtifact(P, raw));
  return texts.join("\n");
}

/** The artifact's text as a file-reading reviewer reads it (unscrubbed); null when it cannot be read. */
function rawArtifactText(layout: Layout, relPath: string): string | null {
  try {
    return decodeUtf8(readBounded(layout.readableArtifact(relPath), { max: MAX_ARTIFACT_BYTES, followSymlink: true }), relPath);
  } catch {
    return null;
  }
}
