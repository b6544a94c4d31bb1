// The open round's slots whose named worker will not act until the broker does: `status` names the broker, what it
// must do and why, never the worker that waits on it (whose log alone would say so). Derived from the snapshot.
import { dispatchedByBus } from "./adapter-kinds.js";
import { openRound } from "./gate-queries.js";
import { familyMapsName, familyMapsProblem } from "./family.js";
import { slotFile } from "./slot-file.js";
import type { GateSnapshot } from "./snapshot.js";

/** An open-round slot whose worker waits for the broker to act first: what the broker must do, and what waits on it. */
export interface HeldSlot {
  member: string | null;
  /** "the broker to write family-maps-<sha>.json again (it is missing)" */
  broker: string;
  /** "reviewer X is not sent the round without it" */
  waits: string;
}

/** Held slots in words, after "waiting for": each thing the broker must do once, with what waits on it. */
export function heldWords(held: readonly HeldSlot[]): string {
  const todo = [...new Set(held.map((h) => h.broker))];
  return todo
    .map(
      (b) =>
        `${b}: ${held
          .filter((h) => h.broker === b)
          .map((h) => h.waits)
          .join(", ")}`,
    )
    .join("; ");
}

const GRACE = "moved to rejected/ once foreign_grace_ms has passed";

/**
 * The open round's slots whose worker waits for the broker (workers/reviewer.ts, verifier.ts):
 * - the family-maps file the packet binds is missing or other bytes (SPEC §7): no reviewer is sent the packet without
 *   it (one already dispatched ends as before), and the verifier leaves an answer unsealed while the broker can write
 *   it again — `mapsNow`, the sha of the maps the broker issues the gate's packets under now, is the one the packet
 *   binds (unknown: the verifier is taken to verify);
 * - an invalid file holds the attempt's name: a reviewer worker dispatches only once it has recorded its attempt
 *   there, so only after the broker has moved that file aside, at the end of its grace period (SPEC §5).
 */
export function heldSlots(s: GateSnapshot, mapsNow: string | undefined): HeldSlot[] {
  const R = openRound(s);
  const invalid = (name: string) => s.problems.some((p) => p.file === name && !p.fault);
  return [[null, s] as const, ...s.members].flatMap(([member, slot]): HeldSlot[] => {
    const packet = slot.packets.get(R);
    if (!packet || slot.verdicts.has(R) || slot.failures.has(R) || slot.brokenSeals.has(R)) return [];
    const answered = slot.results.has(R);
    const reviewer = `reviewer ${packet.reviewer_provider}`;
    if (familyMapsProblem(packet, s.familyMaps) !== null && (answered ? packet.family_maps_sha256 === mapsNow : !slot.attempts.has(R))) {
      const name = familyMapsName(packet.family_maps_sha256!);
      return [
        {
          member,
          broker: `the broker to write ${name} again (${invalid(name) ? `it holds other bytes: ${GRACE}` : "it is missing"})`,
          waits: answered
            ? `the verifier seals no answer to ${slotFile("packet", R, member)} without it`
            : `${reviewer} is not sent the round without it`,
        },
      ];
    }
    const attempt = slotFile("attempt", R, member);
    if (!answered && !slot.attempts.has(R) && dispatchedByBus(packet.reviewer_adapter) && invalid(attempt))
      return [
        {
          member,
          broker: `the broker to move the invalid ${attempt} aside (${GRACE})`,
          waits: `${reviewer} is not sent the round until then`,
        },
      ];
    return [];
  });
}
