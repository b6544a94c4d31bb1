// The author's and the human's answers to a waiting gate — resubmit, rebut, decide, respond — as the one command
// layer: the CLI and any other face call these and only print what they return (answers: src/commands/answer.ts).
import { busJson } from "../core/bus-json.js";
import { type BusContext, contextForCommand } from "../bus/context.js";
import { wholeOrFault } from "../bus/gate-reader.js";
import { deliver } from "../bus/deliver.js";
import { gatePolicy, offers, openRound, validDecision } from "../core/gate-queries.js";
import { artifactUnusable, authorRevises, rebutRefusal, secondRebuttal } from "../core/next-step.js";
import { decisionNoteProblem, EMPTY_REBUTTAL, rebuttalTextProblem } from "../core/person-text.js";
import { hostKey } from "../core/host-name.js";
import { acceptManualResponse } from "../core/manual-answer.js";
import { familyOfHost } from "../core/family.js";
import { resultRefusal } from "../core/result-slot.js";
import { scrub, scrubOptions } from "../core/scrub.js";
import { sha256Hex } from "../core/sha.js";
import { wholeNumberText } from "../core/whole-number.js";
import { readBounded, readTextBounded } from "../bus/read-bounded.js";
import { rethrowSystemFault } from "../bus/system-fault.js";
import { MAX_EXTEND_BY, MAX_FILE_BYTES } from "../spec/constants.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { Decision, type DecisionChoice, type EscalationReason, Resubmit, type Settings } from "../spec/schemas.js";
import { deliverResult, resultAsDelivered } from "../workers/deliver-result.js";
import { type Answer, refuse, refusing } from "./answer.js";
import { assertGateExists } from "./gate-exists.js";
import { type GateView, stateWords, viewGate } from "./gate-view.js";

async function write(ctx: BusContext, view: GateView, name: string, text: string): Promise<string | null> {
  const { layout } = ctx;
  const { status } = await deliver(layout.gateFile(view.snapshot.runId, view.snapshot.gate, name), text, { guildDir: layout.guild });
  return status === "conflict" ? `${name} already exists with other content; nothing changed` : null;
}

/**
 * A retried action that landed before (a face that timed out and asked again, a form sent twice): the file it writes
 * is there for the round the caller names, or for the last round issued, saying what this action says. It has happened, so
 * the answer says so (`already`) instead of refusing a gate that moved on, or a slot taken by the same request.
 * `author`: a resubmit or rebuttal, which does not lead on from a gate that stopped at its round for a person or ended
 * there (the next round could not be issued, a stall): that refusal says what the gate needs, `already` would hide it.
 */
function landedBefore(view: GateView, seen: number | undefined, same: (round: number) => boolean, author = false): number | null {
  const round = seen ?? openRound(view.snapshot);
  const { state, round: at } = view.decision;
  if (author && at === round && (state === "awaiting_decision" || state === "done")) return null;
  return same(round) ? round : null;
}

/** What every face adds to an answer that found its action landed before (landedBefore). */
export const landedNote = (a: { already?: true }): string => (a.already ? " (already: it landed before; nothing written again)" : "");

/** Whether the gate file `name` holds exactly `text` (a file that cannot be read is not this action's). */
function holds(ctx: BusContext, view: GateView, name: string, text: string): boolean {
  try {
    const max = Buffer.byteLength(text, "utf8");
    return readTextBounded(ctx.layout.gateFile(view.snapshot.runId, view.snapshot.gate, name), { max }) === text;
  } catch (error) {
    rethrowSystemFault(error);
    return false;
  }
}

/**
 * The round the person acting saw, when the face knows it (a console form carries the round its page showed): an
 * action answers that round or none. Without it a page rendered before the gate moved on would decide, resubmit or
 * answer a later round nobody looked at (a force-pass of a round whose findings were never shown).
 */
function movedOn(view: GateView, round: number, seen: number | undefined): string | null {
  if (seen === undefined || seen === round) return null;
  const { runId, gate } = view.snapshot;
  return (
    `this answers round ${seen}, but ${runId} ${gate} is at round ${round} now (${stateWords(view)}): ` +
    `look at round ${round} and act again; nothing was written`
  );
}

/**
 * A round-bound action that names no round binds to whatever is open when it lands: safe only while no earlier round
 * could have been the one read (a force-pass would otherwise answer an escalation, or an answer land in a packet, nobody saw).
 */
function namesNoRound(view: GateView, round: number, seen: number | undefined, what: string): string | null {
  if (seen !== undefined || round <= 1) return null;
  const { runId, gate } = view.snapshot;
  return (
    `${runId} ${gate} is at round ${round}: name the round ${what} (\`--round ${round}\` on the command line, \`round\` ` +
    `over MCP), so it never lands in a round you did not see; nothing was written`
  );
}

function waitingFor(view: GateView, state: "awaiting_author" | "awaiting_decision"): string | null {
  const { runId, gate } = view.snapshot;
  if (view.decision.state !== state) {
    const whom = state === "awaiting_author" ? "the author" : "a decision";
    return `${runId} ${gate} is not waiting for ${whom} (state: ${stateWords(view)})`;
  }
  // the author's turn with something to do first (restore the artifact for a retried round, say): the next step's words
  if (state === "awaiting_author" && !authorRevises(view.snapshot, view.decision, view.artifact))
    return `${runId} ${gate} waits for ${view.next.waiting_on}; nothing was written`;
  return null;
}

/** The gate an author command writes into, as a worker would see it: never on settings with problems or a partial read. */
function viewOf(ctx: BusContext, run: string, gate: string): GateView {
  assertGateExists(ctx.layout, run, gate);
  const view = viewGate(contextForCommand(ctx), assertRunId(run), assertGate(gate));
  wholeOrFault(view.snapshot);
  return view;
}

/** The artifact was revised after the findings: the broker issues the next round. */
async function resubmitNow(ctx: BusContext, run: string, gate: string, seen?: number): Promise<Answer<{ round: number; already?: true }>> {
  const view = viewOf(ctx, run, gate);
  const landed = landedBefore(view, seen, (r) => view.snapshot.resubmits.has(r), true);
  if (landed !== null) return { ok: true, round: landed, already: true };
  const stale = movedOn(view, view.decision.round, seen);
  if (stale) return refuse(stale);
  const notWaiting = waitingFor(view, "awaiting_author");
  if (notWaiting) return refuse(notWaiting);
  const unusable = artifactUnusable(view.snapshot, view.artifact);
  if (unusable) return refuse(`${unusable}: restore or fix it, then resubmit; nothing was written`);
  const round = view.decision.round;
  const record = Resubmit.parse({
    schema_version: "guild_bus.resubmit.v1",
    run_id: run,
    gate,
    after_round: round,
    at: new Date().toISOString(),
  });
  const conflict = await write(ctx, view, `resubmit-${round}.json`, busJson(record));
  return conflict ? refuse(conflict) : { ok: true, round };
}

/**
 * Why the author may not contest the waiting round's findings now, or null when it may: the rule `rebut` and the
 * console's rebut form follow (core/next-step.ts), with the gate's turn as this command says it. A second rebuttal of
 * the round is told so first: the first may have moved the gate on from the author's turn.
 */
export function rebutRefusalNow(settings: Settings, view: GateView): string | null {
  const s = view.snapshot;
  return (
    secondRebuttal(s) ?? waitingFor(view, "awaiting_author") ?? rebutRefusal(s, view.decision.round, gatePolicy(s, settings), view.artifact)
  );
}

/** Contest the waiting round's findings, once (hard and nightmare): the reviewer rules on each next. */
async function rebutNow(
  ctx: BusContext,
  run: string,
  gate: string,
  text: string,
  seen?: number,
): Promise<Answer<{ round: number; already?: true }>> {
  const long = rebuttalTextProblem(text);
  if (long) return refuse(long === EMPTY_REBUTTAL ? long : `${long}; nothing was written`);
  const view = viewOf(ctx, run, gate);
  const written = scrub(text, scrubOptions(ctx.settings)).replace(/\n*$/, "\n");
  const landed = landedBefore(view, seen, (r) => view.snapshot.rebuttals.has(r) && holds(ctx, view, `rebuttal-${r}.md`, written), true);
  if (landed !== null) return { ok: true, round: landed, already: true };
  const stale = movedOn(view, view.decision.round, seen);
  if (stale) return refuse(stale);
  const refused = rebutRefusalNow(ctx.settings, view);
  if (refused) return refuse(refused);
  const round = view.decision.round;
  // judged again as the broker reads the file: redaction labels and the closing newline can take it over the limit
  const grown = rebuttalTextProblem(written);
  if (grown) return refuse(`${grown} (as written: secrets redacted, a closing newline); nothing was written`);
  const conflict = await write(ctx, view, `rebuttal-${round}.md`, written);
  return conflict ? refuse(conflict) : { ok: true, round };
}

export interface DecisionInput {
  choice: DecisionChoice;
  /** Rounds to add, with extend-cap (1-5), and only with it: a number, or the text a form field held as typed. */
  extendBy?: number | string;
  note?: string;
  decidedBy: string;
  /** The AI host deciding through its MCP client, when it is one: it may steer a gate; a person force-passes. */
  via?: string;
  /** The round whose escalation the decider saw (a console form's): another round's is refused. */
  round?: number;
}

/**
 * Why a client may not make this decision, or null. A convention the client is told, not a boundary: an agent with a
 * shell could run the CLI itself. A human checkpoint exists for a person to see the round (and a continue note reaches
 * the reviewer as theirs).
 */
function clientRefusal(run: string, gate: string, d: DecisionInput, reason: EscalationReason, round: number): string | null {
  if (d.via === undefined) return null;
  const forPerson =
    d.choice === "force-pass"
      ? "force-pass ends the gate without a passing review"
      : reason === "human_checkpoint"
        ? "a human checkpoint is answered by the person who asked for it"
        : null;
  if (!forPerson) return null;
  return (
    `${forPerson}, so a person decides it, not ${d.via}: ask the user to run ` +
    `\`guild-bus decide ${run} ${gate} ${d.choice} --round ${round}\` in a terminal (or to use the review console); ` +
    "do not run it yourself"
  );
}

/** Answer the waiting escalation with one of the options it offers. */
async function decideEscalationNow(
  ctx: BusContext,
  run: string,
  gate: string,
  d: DecisionInput,
): Promise<Answer<{ round: number; reason: string; already?: true }>> {
  if ((d.choice === "extend-cap") !== (d.extendBy !== undefined))
    return refuse(`a number of rounds (1-${MAX_EXTEND_BY}) goes with extend-cap, and only with it`);
  // every face passes what it was given (a console form field is any text): it is read and its range checked here, once
  const extendBy = typeof d.extendBy === "string" ? wholeNumberText(d.extendBy, 1, MAX_EXTEND_BY) : d.extendBy;
  if (extendBy === null || (extendBy !== undefined && !(Number.isInteger(extendBy) && extendBy >= 1 && extendBy <= MAX_EXTEND_BY))) {
    const given = typeof d.extendBy === "string" ? JSON.stringify(d.extendBy) : d.extendBy;
    return refuse(`extend-cap takes a whole number of rounds from 1 to ${MAX_EXTEND_BY}, not ${given}`);
  }
  const long = decisionNoteProblem(d.note);
  if (long) return refuse(`${long}; nothing was decided`);
  const view = viewOf(ctx, run, gate);
  // the note as it was written (scrubbed): a retry's own note compares with it
  const note = d.note ? scrub(d.note, scrubOptions(ctx.settings)) : undefined;
  const landed = landedBefore(view, d.round, (r) => {
    const prior = validDecision(view.snapshot, r);
    return prior !== null && prior.choice === d.choice && prior.extend_by === extendBy && prior.note === note;
  });
  if (landed !== null) {
    const reason = view.snapshot.escalations.get(landed)!.reason;
    // a client retrying what a person decided must not read as if it had decided it
    const refusal = clientRefusal(run, gate, d, reason, landed);
    return refusal ? refuse(refusal) : { ok: true, round: landed, reason, already: true };
  }
  const stale = movedOn(view, view.decision.round, d.round);
  if (stale) return refuse(stale);
  const notWaiting = waitingFor(view, "awaiting_decision");
  if (notWaiting) return refuse(notWaiting);
  // asked only of a gate that waits for a decision: one that ended or waits for another is told that instead
  const unnamed = namesNoRound(view, view.decision.round, d.round, "whose escalation you read");
  if (unnamed) return refuse(unnamed);
  const round = view.decision.round;
  const escalation = view.snapshot.escalations.get(round)!;
  if (!offers(escalation, d.choice)) {
    return refuse(`${d.choice} is not an option for ${escalation.reason}; choose one of: ${escalation.options.join(", ")}`);
  }
  const refusal = clientRefusal(run, gate, d, escalation.reason, round);
  if (refusal) return refuse(refusal);
  // the bytes of the escalation this answers: what binds the decision to it (a file dropped ahead cannot know them)
  let answered: string;
  try {
    answered = sha256Hex(readBounded(ctx.layout.gateFile(run, gate, `escalation-${round}.json`), { max: MAX_FILE_BYTES }));
  } catch (error) {
    return refuse(`escalation-${round}.json cannot be read now (${(error as Error).message}); nothing was decided — try again`);
  }
  // the note reaches trail.md, status, the console and the next packet: scrubbed as any text the bus passes on (above),
  // and judged again as the broker reads the file (redaction labels can take it over the limit)
  const grown = decisionNoteProblem(note);
  if (grown) return refuse(`${grown} (as written: secrets redacted); nothing was decided`);
  const record = Decision.parse({
    schema_version: "guild_bus.decision.v1",
    run_id: run,
    gate,
    round,
    choice: d.choice,
    ...(extendBy !== undefined ? { extend_by: extendBy } : {}),
    ...(note ? { note } : {}),
    decided_by: d.decidedBy,
    escalation_sha256: answered,
    at: new Date().toISOString(),
  });
  const conflict = await write(ctx, view, `decision-${round}.json`, busJson(record));
  return conflict ? refuse(conflict) : { ok: true, round, reason: escalation.reason };
}

/**
 * A human's review of the packet addressed to the manual reviewer, acknowledged only once in a round that can use it.
 * The answer is read only after the gate is known to take one (a person is not asked to type into a refusal).
 */
async function respondNow(
  ctx: BusContext,
  run: string,
  gate: string,
  answer: {
    read: () => Promise<string>;
    reviewerModel: string;
    /** The host sending the answer when it is known (an MCP client's handshake name): never one of the author's family. */
    via?: string;
    /** The round whose packet the reviewer read: an answer to it never lands in a later round. Needed past round 1. */
    round?: number;
    /** A person types the answer as it is read (a terminal): it is never read to check for a retry. */
    typed?: boolean;
  },
): Promise<Answer<{ round: number; verdict: string; model: string; already?: true }>> {
  const view = viewOf(ctx, run, gate);
  const round = openRound(view.snapshot);
  const { read } = answer;
  let text: Promise<string> | undefined;
  answer = { ...answer, read: () => (text ??= read()) }; // read once, whichever check asks first
  const landed = await respondedBefore(ctx, view, answer);
  if (landed) return landed;
  const stale = movedOn(view, round, answer.round);
  if (stale) return refuse(stale);
  const packet = view.snapshot.packets.get(round);
  if (!packet || packet.reviewer_adapter !== "manual") return refuse(`${run} ${gate} has no open packet addressed to the manual reviewer`);
  if (view.snapshot.results.has(round)) return refuse(`round ${round} already has a result`);
  const closed = resultRefusal(view.snapshot, round);
  if (closed) return refuse(`round ${round} cannot take an answer: ${closed}`);
  // asked only of a round that can take an answer: one answered or ended is told that instead
  const unnamed = namesNoRound(view, round, answer.round, "whose packet you reviewed");
  if (unnamed) return refuse(unnamed);
  if (answer.via !== undefined) {
    const family = familyOfHost(answer.via, ctx.settings);
    const own = hostKey(answer.via) === hostKey(packet.author_host) || (family !== "unknown" && family === packet.author_family);
    if (own) return refuse(`${answer.via} is of this gate's author's family (${packet.author_family}): it cannot review its own artifact`);
  }
  const accepted = acceptManualResponse(await answer.read(), packet, ctx.settings, answer.reviewerModel);
  if (!accepted.ok) return refuse(`rejected: ${accepted.reason}; nothing was written, answer again`);
  const delivery = await deliverResult(ctx, packet, accepted.result);
  if (!delivery.ok) return refuse(`not accepted: ${delivery.reason}`);
  if (delivery.status === "conflict") return refuse(`result-${round}.json already exists with other content; nothing changed`);
  return { ok: true, round, verdict: accepted.result.verdict, model: accepted.model };
}

/**
 * A retried answer whose first try landed (landedBefore): the named round's (else the open round's) manual result holds
 * exactly what this answer makes. Only asked of a round that has a result, and never of an answer a person would type
 * for it: a person is not asked to type into a refusal.
 */
async function respondedBefore(
  ctx: BusContext,
  view: GateView,
  answer: Parameters<typeof respondNow>[3],
): Promise<{ ok: true; round: number; verdict: string; model: string; already: true } | null> {
  const round = answer.round ?? openRound(view.snapshot);
  const packet = view.snapshot.packets.get(round);
  if (answer.typed || !view.snapshot.results.has(round) || packet?.reviewer_adapter !== "manual") return null;
  const accepted = acceptManualResponse(await answer.read(), packet, ctx.settings, answer.reviewerModel);
  if (!accepted.ok) return null;
  // compared, never delivered: an answer that is not the one there goes through every refusal of a new answer
  if (!holds(ctx, view, `result-${round}.json`, resultAsDelivered(ctx, accepted.result).text)) return null;
  return { ok: true, round, verdict: accepted.result.verdict, model: accepted.model, already: true };
}

// A refusal is an answer (a bad id, a read the system failed): the four author commands as every face calls them.
export const resubmit = (...a: Parameters<typeof resubmitNow>) => refusing(() => resubmitNow(...a));
export const rebut = (...a: Parameters<typeof rebutNow>) => refusing(() => rebutNow(...a));
export const decideEscalation = (...a: Parameters<typeof decideEscalationNow>) => refusing(() => decideEscalationNow(...a));
export const respond = (...a: Parameters<typeof respondNow>) => refusing(() => respondNow(...a));
