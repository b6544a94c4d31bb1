// Whether a result for a round can still be used: the one rule the verifier applies to a result it finds, and that
// `respond` and the manual worker check before they say an answer was accepted (SPEC §15).
import type { GateSnapshot, ReviewSlots } from "./snapshot.js";
import { openRound } from "./gate-queries.js";
import { slotFile } from "./slot-file.js";
import { sha256Hex } from "./sha.js";
import { dispatchedByBus } from "./adapter-kinds.js";
import type { DecisionChoice, Failure, PacketFrontMatter } from "../spec/schemas.js";

/**
 * A round a reviewer worker dispatched takes only that worker's answer (SPEC §15): the result must carry the key whose
 * sha256 the worker recorded in attempt-<n>.json before dispatching, which only it knows. A round the bus dispatches
 * with no attempt recorded had no dispatch yet. Manual and external rounds are answered from outside the bus.
 */
export function deliveryRefusal(s: GateSnapshot, packet: PacketFrontMatter, result: Record<string, unknown>): string | null {
  if (!dispatchedByBus(packet.reviewer_adapter)) return null;
  const round = packet.round;
  const attempt = s.attempts.get(round);
  const to = `round ${round} went to ${packet.reviewer_provider} (adapter ${packet.reviewer_adapter}), which the bus dispatches`;
  if (!attempt) return `${to}, and no dispatch was recorded: only its reviewer worker's answer counts`;
  const attemptName = slotFile("attempt", round, s.member);
  // every reviewer worker records its key: an attempt without one, or for another reviewer or packet, is no dispatch.
  // A keyless one is also what every pass recorded before keys has: after an upgrade, the person is told so.
  if (attempt.delivery_key_sha256 === undefined)
    return (
      `${to}, but ${attemptName} records no delivery key, so no answer can be proved its reviewer worker's ` +
      "(guild-bus before 2026-12-04 recorded none: only a new review can pass)"
    );
  if (attempt.provider !== packet.reviewer_provider || attempt.packet_id !== packet.packet_id)
    return `${to}, but ${attemptName} is not a dispatch of it by its reviewer worker (another reviewer or packet)`;
  const key = result.delivery_key;
  // the schema allows hex in either case; sha256Hex writes it lower-case
  if (typeof key === "string" && sha256Hex(key) === attempt.delivery_key_sha256.toLowerCase()) return null;
  return `${to}: this result is not the answer of the worker that recorded ${attemptName} (its delivery key is missing or wrong)`;
}

/**
 * A round a reviewer worker dispatched ends without a result only by that worker's word: a failure that would end it
 * so (malformed, unavailable: a quorum goes on without the member) must carry the end key whose sha256 the attempt
 * recorded, and that attempt must be a dispatch of this packet by its reviewer (as for a result). A failure without it
 * is nobody's: anyone can drop one to silence a reviewer about to block, and an attempt without an end key (dropped
 * with it, or recorded by a bus from before end keys) proves no dispatch. `no_verdict` needs no key: it hands the
 * round to a person (a worker that found a dispatch it did not make writes it).
 */
export function failureRefusal(s: ReviewSlots, packet: PacketFrontMatter, failure: Failure): string | null {
  if (!dispatchedByBus(packet.reviewer_adapter) || failure.kind === "no_verdict") return null;
  const attempt = s.attempts.get(packet.round);
  const name = slotFile("attempt", packet.round, packet.quorum ? packet.reviewer_provider : null);
  if (!attempt) return `round ${packet.round} went to a reviewer the bus dispatches, and no dispatch was recorded (${name})`;
  if (attempt.end_key_sha256 === undefined || attempt.provider !== packet.reviewer_provider || attempt.packet_id !== packet.packet_id)
    return `${name} is not a dispatch of this packet by its reviewer worker (no end key, or another reviewer or packet)`;
  if (failure.end_key !== undefined && sha256Hex(failure.end_key) === attempt.end_key_sha256.toLowerCase()) return null;
  return `not written by the worker that recorded ${name} (its end key is missing or wrong)`;
}

/**
 * A no_verdict failure of a round the bus dispatched that does not carry its worker's end key: a worker that found a
 * dispatch it did not make wrote it, or anyone did. It hands the round to a person, who is offered no force-pass:
 * nothing shows a review ran (`UNPROVEN_END_OPTIONS`).
 */
export function unprovenEnd(packet: PacketFrontMatter, failure: Failure): boolean {
  return dispatchedByBus(packet.reviewer_adapter) && failure.end_key === undefined;
}
export const UNPROVEN_END_OPTIONS: DecisionChoice[] = ["retry", "rework"];

/** null when a result for `round` would be verified now; otherwise why it cannot count. */
export function resultRefusal(s: GateSnapshot, round: number): string | null {
  const R = openRound(s);
  if (s.outcome) return "the gate already has its outcome";
  if (!s.packets.has(round)) {
    // the plain name in a quorum round: each member answers under its own name (SPEC §26)
    const members = s.member === null ? [...s.members].filter(([, m]) => m.packets.has(round)).map(([id]) => id) : [];
    if (members.length)
      return (
        `no ${slotFile("packet", round, null)} was issued: round ${round} is a quorum round, whose members answer as ` +
        members.map((id) => slotFile("result", round, id)).join(", ")
      );
    return `no ${slotFile("packet", round, s.member)} was issued`;
  }
  if (round !== R) return `late: round ${round} is closed, the open round is ${R}`;
  const unbound = s.brokenSeals.get(round);
  if (unbound !== undefined) return `round ${round} was verified already and can take no other result (${unbound})`;
  // a failure the broker has not acted on yet (no escalation, no next round) is proven wrong by a result (SPEC §15)
  if (s.escalations.has(round)) return `late: round ${round} already waits for a human decision (${s.escalations.get(round)!.reason})`;
  return null;
}
