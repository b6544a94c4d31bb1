// A packet is the broker's only if it is the file the broker writes for its own front matter (SPEC §13): the reader
// binds the front matter, and this binds the rest, which is what a reviewer acts on, and the reviewer a person named
// for a round answered from outside the bus (`issueProblem`). Checked for the open round
// before a worker acts (the broker plans, a reviewer is paid, the verifier seals), with the settings now; a packet
// that is not the broker's is left out of that view and reported, and the broker moves it aside. So is an escalation
// of the open round that the gate's files do not lead to (`foreignEscalationProblem`).
import { lstatSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import type { BusContext } from "../bus/context.js";
import { inGate, readGateToAct } from "../bus/gate-reader.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { rethrowSystemFault } from "../bus/system-fault.js";
import { unissuedPacketProblem } from "../core/broker-plan.js";
import { gatePolicy, openRound } from "../core/gate-queries.js";
import { foreignEscalationProblem } from "../core/decide.js";
import { sentPassRederives } from "../core/reverify.js";
import { lazyArtifact } from "../bus/artifact.js";
import { parsePacket } from "../core/packet.js";
import { issueProblem, lostFamilyMaps } from "../core/packet-chain.js";
import { ReadFault } from "../core/read-fault.js";
import { textOf } from "../core/text-of.js";
import type { GateSnapshot, Problem, ReviewSlots } from "../core/snapshot.js";
import { slotFile } from "../core/slot-file.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import type { PacketFrontMatter } from "../spec/schemas.js";
import { gateReads } from "./gate-reads.js";

/** Each packet version (its parsed front matter is the reader's, one object per version) is built again once. */
const judged = new WeakMap<PacketFrontMatter, { patterns: string; why: string | null }>();
/** The text each packet version was proven the broker's by (packetTextProblem), under those redaction patterns. */
const provenTexts = new WeakMap<PacketFrontMatter, { patterns: string; text: string }>();

/** The redaction settings a packet's text is proven under: another text is built for other ones. */
const patternsOf = (ctx: BusContext): string => JSON.stringify(ctx.settings.secrets_policy?.redaction_patterns ?? []);

/** The texts of the packets this process wrote as the broker, with the redaction settings they were built under. */
const issuedTexts = new Map<string, string>();
const ISSUED_KEPT = 64;

/**
 * A packet this process has just written as the broker: that text is the one the broker builds for its front matter,
 * so the broker's next read of it does not build it again to prove it (a scrub of the whole artifact). Only that very
 * text: the reviewer and the verifier still prove the file they act on themselves, in their own processes.
 */
export function issuedNow(ctx: BusContext, text: string): void {
  issuedTexts.delete(text);
  issuedTexts.set(text, patternsOf(ctx));
  if (issuedTexts.size > ISSUED_KEPT) issuedTexts.delete(issuedTexts.keys().next().value!);
}

/** The gate for a worker about to act: readGateToAct, less the open round's packets the broker did not issue. */
export function readGateLive(ctx: BusContext, runId: string, gate: string): GateSnapshot {
  return withoutUnissued(ctx, readGateToAct(ctx.layout, runId, gate));
}

export function withoutUnissued(ctx: BusContext, s: GateSnapshot): GateSnapshot {
  const R = openRound(s);
  const patterns = patternsOf(ctx);
  let out = s;
  const slots: Array<[string | null, ReviewSlots]> = [[null, s], ...s.members];
  for (const [member, slot] of slots) {
    const front = slot.packets.get(R);
    // a verdict binds the packet the verifier found the broker's when it sealed it: a later edit breaks that seal
    if (!front || slot.verdicts.has(R) || slot.brokenSeals.has(R)) continue;
    const name = slotFile("packet", R, member);
    let verdict = judged.get(front);
    const unnamed = reviewerProblem(ctx, s, front);
    if (unnamed === null && verdict?.patterns !== patterns) {
      const why = problemOf(ctx, s, front, name);
      if (why === undefined) continue; // the file changed since the read: the next read judges its new version
      verdict = { patterns, why };
      judged.set(front, verdict);
    }
    const why = unnamed ?? verdict!.why;
    if (why === null) continue;
    const mtimeMs = lstatSync(inGate(s.dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    // a round a reviewer may already have been paid for is a person's to settle: its packet and answer stay where they
    // are, and the round can no longer pass (as a broken seal: the broker escalates it, and the escalation stays when
    // the packet is put back, so an answer edited meanwhile is never verified)
    const paid = slot.attempts.has(R) || slot.results.has(R);
    out = paid
      ? unsettled(out, member, R, {
          file: name,
          reason: `${why}; a review may have been paid for it, so a person decides the round`,
          mtimeMs,
          unissued: true,
          kept: true,
        })
      : without(out, member, R, { file: name, reason: why, mtimeMs, unissued: true });
  }
  return withoutForeignEscalation(ctx, withLostMaps(ctx, out));
}

/**
 * The open round unable to pass while its packet binds family maps the gate does not hold and the broker cannot write
 * again (the settings give other maps now, SPEC §7): no reviewer is sent it, and a person decides the round (the
 * broker escalates no_verdict; a retry issues it under the maps in force). One the broker can write again waits for it
 * (broker.ts). A round already dispatched, or answered before the broker escalated, is verified as before: its verdict
 * seals the violation.
 */
function withLostMaps(ctx: BusContext, s: GateSnapshot): GateSnapshot {
  if (s.outcome) return s; // an ended gate's rounds are judged on their own (reverify)
  let out = s;
  for (const { member, packet, why, restore } of lostFamilyMaps(s, ctx.settings)) {
    const R = packet.round;
    const slot = member === null ? s : s.members.get(member)!;
    const answered = slot.results.has(R) && !s.escalations.has(R);
    if (restore || slot.verdicts.has(R) || slot.brokenSeals.has(R) || slot.attempts.has(R) || answered) continue;
    const name = slotFile("packet", R, member);
    const mtimeMs = lstatSync(inGate(s.dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    const reason = `${why}; the settings give its author other maps now, so the broker cannot write it again and no reviewer is sent it`;
    out = unsettled(out, member, R, { file: name, reason, mtimeMs, kept: true });
  }
  return out;
}

/** Why the packet the read found is not the broker's, null when it is, undefined when the file is no longer that packet. */
function problemOf(ctx: BusContext, s: GateSnapshot, front: PacketFrontMatter, name: string): string | null | undefined {
  let text: string;
  try {
    text = readTextBounded(inGate(s.dir, name), { max: MAX_FILE_BYTES });
  } catch (error) {
    rethrowSystemFault(error);
    return undefined; // gone since the read: the next read does without it
  }
  return packetTextProblem(ctx, s, front, text);
}

/**
 * Why `text`, read as packet `front`, is not the packet the broker issues for it in gate `s`, or null; undefined when
 * the text holds another front matter (the file changed since the read). Each worker asks it of the exact text it acts
 * on: the text it sends to a reviewer, the bytes a verdict binds.
 */
export function packetTextProblem(ctx: BusContext, s: GateSnapshot, front: PacketFrontMatter, text: string): string | null | undefined {
  const unnamed = reviewerProblem(ctx, s, front);
  if (unnamed !== null) return unnamed;
  const patterns = patternsOf(ctx);
  // the verifier asks twice of one packet (its look, then the bytes it seals): the text proven once is not rebuilt
  const proven = provenTexts.get(front);
  if ((proven?.patterns === patterns && proven.text === text) || issuedTexts.get(text) === patterns) return null;
  let why: string | null;
  try {
    why = unissuedPacketProblem(s, front, text, { settings: ctx.settings, reads: gateReads(ctx, s) });
  } catch (error) {
    if (error instanceof ReadFault) throw error; // the disk's failure: the step is tried again
    why = `it cannot be built again to compare (${error instanceof Error ? error.message : textOf(error)}): no worker acts on it`;
  }
  // the broker's text for `front` holds `front` (its rendering parses back to it: test/core/packet.test.ts), so only a
  // text that is not is parsed, to tell a file edited since the read (undefined) from a packet not the broker's
  if (why === null) provenTexts.set(front, { patterns, text });
  else if (!isDeepStrictEqual(parsePacket(text).front, front)) return undefined;
  return why;
}

/**
 * Why the packet's round goes to a reviewer nobody named under the settings now (`issueProblem`), or null: asked while
 * the round is open, so the verdict the verifier seals attests it, and a providers edit after the seal re-judges
 * nothing (reverify judges a packet of this build by its request alone). Not cached: the settings may change between
 * looks at one packet version.
 */
function reviewerProblem(ctx: BusContext, s: GateSnapshot, front: PacketFrontMatter): string | null {
  return (s.request && issueProblem(front, s.request, ctx.settings)) || null;
}

/** The round's packet kept in view, and the round unable to pass: a person settles it. */
function unsettled(s: GateSnapshot, member: string | null, round: number, problem: Problem): GateSnapshot {
  const problems = [...s.problems, problem];
  const why = `${problem.file}: ${problem.reason}`;
  if (member === null) return { ...s, brokenSeals: new Map(s.brokenSeals).set(round, why), problems };
  const slots = s.members.get(member)!;
  return { ...s, members: new Map(s.members).set(member, { ...slots, brokenSeals: new Map(slots.brokenSeals).set(round, why) }), problems };
}

function without(s: GateSnapshot, member: string | null, round: number, problem: Problem): GateSnapshot {
  const problems = [...s.problems, problem];
  if (member === null) {
    const packets = new Map(s.packets);
    packets.delete(round);
    return { ...s, packets, problems };
  }
  const slots = s.members.get(member)!;
  const packets = new Map(slots.packets);
  packets.delete(round);
  return { ...s, members: new Map(s.members).set(member, { ...slots, packets }), problems };
}

/** The open round's escalation is left out (and moved aside by the broker) when it is not the broker's. */
export function withoutForeignEscalation(ctx: BusContext, s: GateSnapshot): GateSnapshot {
  const R = openRound(s);
  if (s.outcome || !s.escalations.has(R)) return s;
  const policy = gatePolicy(s, ctx.settings);
  const reads = { settings: ctx.settings, resultBytes: gateReads(ctx, s).resultBytes };
  const why = foreignEscalationProblem(s, { policy, codexSkip: ctx.codexSkip, artifact: lazyArtifact(ctx.layout, ctx.settings, s) }, (n) =>
    sentPassRederives(s, n, reads, policy.stop),
  );
  if (why === null) return s;
  const file = `escalation-${R}.json`;
  const escalations = new Map(s.escalations);
  escalations.delete(R);
  const mtimeMs = lstatSync(inGate(s.dir, file), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return { ...s, escalations, problems: [...s.problems, { file, reason: why, mtimeMs }] };
}
