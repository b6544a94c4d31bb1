// Whether a verdict passes under the stop policy in force, and why not: one rule for a single reviewer's round and
// for each member of a quorum round.
import type { PacketFrontMatter, StopPolicy, VerdictFile } from "../spec/schemas.js";
import type { GateSnapshot } from "./snapshot.js";

/**
 * The gate under the stop policy in force: the checksum-bound conditions (parses, packet id, sha, no blockers)
 * always, then the verdict condition (stop=verdict) or the score condition in its place (stop=score). A contested
 * finding the reviewer upheld keeps the gate closed whatever the result's blocking_findings say.
 */
export function verdictPasses(v: VerdictFile, stop: StopPolicy): boolean {
  const c = v.gate_pass.conditions;
  const bound = c.parses && c.packet_id_match && c.sha256_match && c.no_blockers && !v.rulings?.upheld;
  return bound && (stop === "score" ? v.score_gate?.positive === true : c.satisfied);
}

/** Why a verdict that parsed and matched its packet and sha does not pass, under the stop policy in force. */
export function failReasons(v: VerdictFile, stop: StopPolicy): string[] {
  const out =
    stop === "score"
      ? [
          ...(v.gate_pass.conditions.no_blockers ? [] : [`${v.blocking_count ?? "some"} blocking finding(s) remain`]),
          ...(v.score_gate?.positive ? [] : (v.score_gate?.reasons ?? ["the verdict has no score evaluation"])),
        ]
      : [...v.gate_pass.reasons];
  if (v.rulings?.upheld) out.push(`${v.rulings.upheld} contested finding(s) upheld`);
  return out;
}

/**
 * How many findings a ruling round contests (SPEC §21.2): round restart_of's blocking findings; null for any other
 * round. A ruling packet whose contested round has no verdict here counts one, so it can never pass unruled.
 */
export function contestedCount(view: Pick<GateSnapshot, "verdicts">, packet: PacketFrontMatter): number | null {
  if (packet.restart_reason !== "ruling" || packet.restart_of === null) return null;
  return Math.max(1, view.verdicts.get(packet.restart_of)?.blocking_count ?? 1);
}

/**
 * A ruling round's rulings: a contested finding stands unless the result withdraws it explicitly, so a ruling other
 * than `withdrawn` upholds it, and a contested finding the result does not rule on (fewer rulings, or none) stands.
 */
export function rulingCounts(rulings: unknown, contested: number): { upheld: number; withdrawn: number } {
  const list = Array.isArray(rulings)
    ? rulings.map((x: unknown) => (x && typeof x === "object" ? (x as { ruling?: unknown }).ruling : undefined))
    : [];
  const withdrawn = list.filter((x) => x === "withdrawn").length;
  return { upheld: list.length - withdrawn + Math.max(0, contested - list.length), withdrawn };
}
