// Whether a result for a round can still be used: the one rule the verifier applies to a result it finds, and that
// `respond` and the manual worker check before they say an answer was accepted (SPEC §15).
import type { GateSnapshot } from "./snapshot.js";
import { openRound } from "./gate-queries.js";
import { slotFile } from "./slot-file.js";

/** null when a result for `round` would be verified now; otherwise why it cannot count. */
export function resultRefusal(s: GateSnapshot, round: number): string | null {
  const R = openRound(s);
  if (s.outcome) return "the gate already has its outcome";
  if (!s.packets.has(round)) return `no ${slotFile("packet", round, s.member)} was issued`;
  if (round !== R) return `late: round ${round} is closed, the open round is ${R}`;
  const unbound = s.brokenSeals.get(round);
  if (unbound !== undefined) return `round ${round} was verified already and can take no other result (${unbound})`;
  if (s.failures.has(round)) return `late: round ${round} already ended without a result (${s.failures.get(round)!.kind})`;
  if (s.escalations.has(round)) return `late: round ${round} already waits for a human decision (${s.escalations.get(round)!.reason})`;
  return null;
}
