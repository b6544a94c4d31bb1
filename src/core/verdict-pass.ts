// Whether a verdict passes under the stop policy in force, and why not: one rule for a single reviewer's round and
// for each member of a quorum round.
import type { PacketFrontMatter, StopPolicy, VerdictFile } from "../spec/schemas.js";
import { type FindingView, listedFindings, namesFinding } from "./findings.js";

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
 * The findings a ruling round contests (SPEC §21.2): those its packet listed, round restart_of's blocking findings,
 * read with `blockingOf`; null for any other round. An unreadable contested result contests one finding no ruling
 * can name, so the round can never pass unruled.
 */
export function contestedFindings(packet: PacketFrontMatter, blockingOf: (round: number) => unknown): FindingView[] | null {
  if (packet.restart_reason !== "ruling" || packet.restart_of === null) return null;
  const listed = listedFindings(blockingOf(packet.restart_of)).findings;
  return listed.length ? listed : [{ title: "", fields: {} }];
}

/**
 * The rulings a result counts. In a ruling round a contested finding stands unless some ruling names it (its title or
 * id) and withdraws it: a ruling of another kind, one on no contested finding, a second withdrawal of the same one, or
 * none at all leave it standing. Outside a ruling round, every ruling but a withdrawal counts as upheld.
 */
export function rulingCounts(rulings: unknown, contested: FindingView[] | null): { upheld: number; withdrawn: number } {
  const list = (Array.isArray(rulings) ? rulings : []).map((x: unknown) =>
    x && typeof x === "object" ? (x as { finding?: unknown; ruling?: unknown }) : {},
  );
  if (contested === null) {
    const withdrawn = list.filter((x) => x.ruling === "withdrawn").length;
    return { upheld: list.length - withdrawn, withdrawn };
  }
  const withdrawn = contested.filter((f) => list.some((x) => x.ruling === "withdrawn" && namesFinding(x.finding, f))).length;
  return { upheld: contested.length - withdrawn, withdrawn };
}
