// Questions every layer asks of a gate snapshot, each answered here once: the open round, the rounds counted, the
// policy in force, whether a decision counts, whether the author may contest, how long a foreign writer may write.
import type { Decision, DecisionChoice, Difficulty, Escalation, PacketFrontMatter, Settings, VerdictFile } from "../spec/schemas.js";
import { NO_REQUEST_POLICY, resolvePolicy, type ResolvedPolicy } from "./policy.js";
import { FOREIGN_GRACE_MS, type GateSnapshot } from "./snapshot.js";
import { MAX_LISTED_FINDINGS } from "./findings.js";
import { largest } from "./extremes.js";

/** Every packet of the gate: its own and, in a quorum gate, every member's (a member view sees the same). */
function allPackets(s: GateSnapshot): PacketFrontMatter[] {
  const own = s.member === null ? [...s.packets.values()] : [];
  return [...own, ...[...s.members.values()].flatMap((m) => [...m.packets.values()])];
}

/** The newest round with a packet (0 before the first packet). */
export function openRound(s: GateSnapshot): number {
  return allPackets(s).reduce((n, p) => Math.max(n, p.round), 0);
}

/** Counted rounds so far: restarts, retries and rulings reuse their round's count (SPEC §8). */
export function countedRounds(s: GateSnapshot): number {
  return allPackets(s).reduce((n, p) => Math.max(n, p.counted_round), 0);
}

/** Round `round`'s quorum members and their packets, by provider id (empty for a gate with one reviewer). */
export function roundMembers(s: GateSnapshot, round: number): Array<[string, PacketFrontMatter]> {
  return [...s.members]
    .flatMap(([id, slots]): Array<[string, PacketFrontMatter]> => {
      const p = slots.packets.get(round);
      return p ? [[id, p]] : [];
    })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Round `round`'s packets: its own, or every quorum member's. */
export function roundPackets(s: GateSnapshot, round: number): PacketFrontMatter[] {
  const own = s.packets.get(round);
  return own ? [own] : roundMembers(s, round).map(([, p]) => p);
}

/** The newest round with a verdict (0 when none has one): the gate's own or any quorum member's. */
export function lastVerdictRound(s: GateSnapshot): number {
  return largest([...s.verdicts.keys(), ...[...s.members.values()].flatMap((m) => [...m.verdicts.keys()])], 0);
}

/** Round `round`'s verdicts: its own, or every quorum member's that has one. */
export function roundVerdicts(s: GateSnapshot, round: number): VerdictFile[] {
  const own = s.verdicts.get(round);
  if (own) return [own];
  return roundMembers(s, round).flatMap(([id]) => {
    const v = s.members.get(id)!.verdicts.get(round);
    return v ? [v] : [];
  });
}

/**
 * Who reviews round `round`, as every face names them: each reviewer's model and family as its verdict reports them,
 * else as its packet asked; " + " between a quorum's members; null before the round has a packet (or names no model).
 */
export function roundReviewerIdentity(s: GateSnapshot, round: number): { model: string | null; family: string | null } {
  const who = roundPackets(s, round).map((p) => {
    const member = p.quorum ? s.members.get(p.reviewer_provider) : s;
    const v = member?.verdicts.get(round);
    return { model: v?.reviewer_model ?? p.reviewer_model, family: v?.reviewer_family ?? p.reviewer_family };
  });
  const joined = (values: Array<string | null>) => values.filter((v) => v !== null).join(" + ") || null;
  return { model: joined(who.map((w) => w.model)), family: joined(who.map((w) => w.family)) };
}

/**
 * The packet that speaks for round `round`: its own, or its first quorum member's — the fields a round shares
 * (counted round, cap, restart, stop, difficulty, quorum rule) are the same in every member's packet.
 */
export function roundPacket(s: GateSnapshot, round: number): PacketFrontMatter | undefined {
  return s.packets.get(round) ?? roundMembers(s, round)[0]?.[1];
}

/** The policy the gate's request resolves to under the settings; a gate without a request has none to resolve. */
export function gatePolicy(s: GateSnapshot, settings: Settings): ResolvedPolicy {
  return s.request ? resolvePolicy(s.request, settings) : NO_REQUEST_POLICY;
}

/** Round `round`'s decision, only when it answers that round's escalation with one of the options it offered. */
export function validDecision(s: GateSnapshot, round: number): Decision | null {
  const esc = s.escalations.get(round);
  const dec = s.decisions.get(round);
  return esc && dec && offers(esc, dec.choice) ? dec : null;
}

/** Whether an escalation offers this choice: a decision counts only when it does. */
export function offers(esc: Pick<Escalation, "options">, choice: DecisionChoice): boolean {
  return esc.options.includes(choice);
}

/**
 * Why the author may not contest round `round`'s findings, or null when it may: hard and nightmare only (the
 * round's own difficulty when its packet records one), blocking findings to contest, and never a ruling (final).
 */
export function contestRefusal(s: GateSnapshot, round: number, policy: Pick<ResolvedPolicy, "difficulty">): string | null {
  return (
    rebuttalRefusal(s, round, policy.difficulty) ?? (s.verdicts.has(round) ? null : `round ${round} has no blocking findings to contest`)
  );
}

/**
 * Why round `round`'s findings can never be contested (SPEC §21), or null when they may be, or when its files do not
 * say yet (no packet, or no verdict). `difficulty`: the policy's, for a round whose packet records none; the reader
 * has none to give. A `rebuttal-<n>.md` of such a round is invalid: the reader reports it, and the broker moves it
 * aside with this reason, rather than ignoring it without a word.
 */
export function rebuttalRefusal(s: GateSnapshot, round: number, difficulty?: Difficulty): string | null {
  const packet = roundPacket(s, round);
  if ((packet?.difficulty ?? difficulty) === "medium") return "rebuttals need difficulty hard or nightmare; this gate runs at medium";
  if (!packet) return null;
  if (packet.quorum) return "a quorum round's findings are not contested: revise the artifact and resubmit";
  if (packet.restart_reason === "ruling")
    return `round ${round} is the ruling on a rebuttal, and a ruling is final: revise the artifact and resubmit`;
  const verdict = s.verdicts.get(round);
  if (!verdict) return null;
  const count = verdict.blocking_count ?? 0;
  if (!(count > 0)) return `round ${round} has no blocking findings to contest`;
  // a ruling packet lists each contested finding, and lists at most this many: the rest could never be ruled on
  if (count > MAX_LISTED_FINDINGS)
    return (
      `round ${round} has ${count} blocking findings, more than a ruling round lists (${MAX_LISTED_FINDINGS}): ` +
      "revise the artifact and resubmit"
    );
  return null;
}

/** How long a foreign writer that writes in place has to finish before its file is judged (SPEC §5). */
export function foreignGraceMs(settings: Settings): number {
  return settings.foreign_grace_ms ?? FOREIGN_GRACE_MS;
}

/** Cap in force: the resolved cap plus every human extension so far (what decide() ends a gate at). */
export function effectiveCap(snapshot: GateSnapshot, policy: ResolvedPolicy): number {
  let cap = policy.cap;
  for (const [round, d] of snapshot.decisions) {
    // Only an extension that answers an escalation offering it counts; an ignored decision must change nothing.
    if (d.choice === "extend-cap" && validDecision(snapshot, round)) cap += d.extend_by ?? 1;
  }
  return cap;
}

/** The cap a gate's round counts against, as every face shows it: extensions count at once, not from the next packet. */
export function capInForce(s: GateSnapshot, settings: Settings): number {
  return effectiveCap(s, gatePolicy(s, settings));
}
