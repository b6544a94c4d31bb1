// Whether a verdict passes under the stop policy in force, and why not: one rule for a single reviewer's round and
// for each member of a quorum round.
import type { StopPolicy, VerdictFile } from "../spec/schemas.js";

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
