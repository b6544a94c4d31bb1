// The malformed rule over a whole round (SPEC §14, §26 rule 6): whether round R ended malformed, and whether that was
// the second malformed termination in a row. decide() escalates by it and `unreachedEscalation` checks the evidence
// by it, so the two cannot drift apart.
import type { PacketFrontMatter, StopPolicy } from "../spec/schemas.js";
import { roundMembers } from "./gate-queries.js";
import { judgeQuorumRound } from "./quorum-round.js";
import type { GateSnapshot } from "./snapshot.js";
import { malformedEnd } from "./verdict-pass.js";

/**
 * The reviewers whose part of round R (packet P) ended malformed, or null when the round did not end malformed: a
 * single reviewer's (`malformedEnd`; none named), or a quorum round's members when it restarts for them — never one
 * that fails on a blocker or that is still being issued. Read from files that stay, never the artifact.
 */
function malformedMembers(s: GateSnapshot, R: number, P: PacketFrontMatter, stop: StopPolicy): string[] | null {
  if (!P.quorum) return malformedEnd(s, R) === null ? null : [];
  if (roundMembers(s, R).length < P.quorum.of) return null;
  const q = judgeQuorumRound(s, R, P, stop);
  return q.type === "restart" && q.reason === "malformed" ? q.members : null;
}

/** Round R ended malformed: what `extend-cap` starts afresh after (§14 6d) and `cap_hit` may be raised on (§6). */
export function endedMalformed(s: GateSnapshot, R: number, P: PacketFrontMatter, stop: StopPolicy): boolean {
  return malformedMembers(s, R, P, stop) !== null;
}

/**
 * Two malformed terminations in a row (`malformed_termination_x2`): round R ended malformed and P re-ran a round that
 * ended malformed too — in a quorum round the same member both times. The members malformed twice (none named for a
 * single reviewer), or null.
 */
export function malformedTwice(s: GateSnapshot, R: number, P: PacketFrontMatter, stop: StopPolicy): string[] | null {
  const before = P.restart_of;
  if (P.restart_reason !== "malformed" || before === null) return null;
  const now = malformedMembers(s, R, P, stop);
  if (now === null) return null;
  if (!P.quorum) return malformedEnd(s, before) === null ? null : [];
  const again = now.filter((m) => {
    const slots = s.members.get(m);
    return slots !== undefined && malformedEnd(slots, before, { member: true }) !== null;
  });
  return again.length ? again : null;
}
