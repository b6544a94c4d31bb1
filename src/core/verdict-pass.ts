// Whether a verdict passes under the stop policy in force, and why not: one rule for a single reviewer's round and
// for each member of a quorum round.
import type { GatePassReport, PacketFrontMatter, StopPolicy, VerdictFile } from "../spec/schemas.js";
import type { ReviewSlots } from "./snapshot.js";
import { type FindingView, listedFindings, namesFinding } from "./findings.js";
import { evaluateGatePass, type GatePassInput } from "./gate-pass.js";
import { parseReviewResult } from "./result-wire.js";
import { evaluateScoreGate } from "./score-gate.js";

/**
 * The gate under the stop policy in force: the checksum-bound conditions (parses, packet id, sha, no blockers)
 * always, then the verdict condition (stop=verdict) or the score condition in its place (stop=score). A contested
 * finding the reviewer upheld keeps the gate closed whatever the result's blocking_findings say.
 */
/** What of a verdict its pass rests on: also what `verify-gate-pass` works out from one result alone. */
export type PassEvidence = Pick<VerdictFile, "gate_pass" | "score_gate" | "rulings" | "blocking_count">;

export function verdictPasses(v: PassEvidence, stop: StopPolicy): boolean {
  const c = v.gate_pass.conditions;
  const bound = c.parses && c.packet_id_match && c.sha256_match && c.no_blockers && !v.rulings?.upheld;
  return bound && (stop === "score" ? v.score_gate?.positive === true : c.satisfied);
}

/**
 * Whether a verdict blocks: a blocking finding, or a contested one the reviewer upheld. A quorum member's block closes
 * its round whatever the others did (SPEC §26), and so the round is judged by it.
 */
export function verdictBlocks(v: Pick<PassEvidence, "gate_pass" | "rulings">): boolean {
  return !v.gate_pass.conditions.no_blockers || !!v.rulings?.upheld;
}

/** Why a verdict that parsed and matched its packet and sha does not pass, under the stop policy in force. */
export function failReasons(v: PassEvidence, stop: StopPolicy): string[] {
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
 * `verify-gate-pass`'s judgement of one result alone (SPEC §11): the five conditions, then the bus's own rule over what
 * the result shows — its rulings, and under a score gate the score in place of the verdict.
 */
export function oneResultPass(input: GatePassInput, stop: StopPolicy): GatePassReport {
  const gate = evaluateGatePass(input);
  const result = input.resultRaw === null ? null : parseReviewResult(input.resultRaw).result;
  const score = result ? evaluateScoreGate(result) : undefined;
  const evidence: PassEvidence = {
    gate_pass: gate,
    // a force-pass relaxes only the condition the stop policy judges by: the verdict's, or the score's in its place
    score_gate: score && input.forcePass ? { ...score, positive: true } : score,
    rulings: result?.rulings === undefined ? undefined : rulingCounts(result.rulings, null),
    blocking_count: null,
  };
  const pass = verdictPasses(evidence, stop);
  const own = stop === "score" ? gate.reasons.filter((r) => !r.startsWith("verdict is ")) : gate.reasons;
  return {
    ...gate,
    pass,
    reasons: pass ? [] : [...new Set([...own, ...(gate.conditions.parses ? failReasons(evidence, stop) : [])])],
  };
}

/** How long a contested finding's text may be in a ruling packet: the broker cuts it there, and so its title is named. */
const CONTESTED_TEXT_CHARS = 4000;

/**
 * A contested finding's text as a ruling packet shows it: scrubbed (`scrubbed`, under the redaction settings in force),
 * then cut — one rule for the packet the broker writes and for the titles its rulings are counted against.
 */
export function contestedText(text: string, scrubbed: (text: string) => string): string {
  return scrubbed(text).slice(0, CONTESTED_TEXT_CHARS);
}

/**
 * The findings a ruling round contests (SPEC §21.2), as its packet listed them: round restart_of's blocking findings,
 * read with `blockingOf`, each title as the reviewer was shown it — the packet's `contested_titles`, proven the
 * broker's while the round was open, so a redaction-settings edit since changes no count; a packet of an earlier build
 * recorded none, and its titles are shown as they would be now (`contestedText`, by `scrubbed`) — ; null for any other
 * round. An unreadable contested result contests one finding no ruling can name, so the round can never pass unruled.
 */
export function contestedFindings(
  packet: PacketFrontMatter,
  blockingOf: (round: number) => unknown,
  scrubbed: (text: string) => string,
): FindingView[] | null {
  if (packet.restart_reason !== "ruling" || packet.restart_of === null) return null;
  const listed = listedFindings(blockingOf(packet.restart_of)).findings;
  if (!listed.length) return [{ title: "", fields: {} }];
  const recorded = packet.contested_titles;
  // a title the packet did not record (the contested result changed since) is one no ruling can name
  return listed.map((f, i) => ({ ...f, title: recorded ? (recorded[i] ?? "") : contestedText(f.title, scrubbed) }));
}

/**
 * The rulings a result counts. In a ruling round each contested finding, in the packet's order, takes the first ruling
 * not yet taken that names it (its title or id), and is withdrawn only if that ruling withdraws it: a ruling of another
 * kind, one on no contested finding, one ruling for two findings of the same title, or none at all leave it standing.
 * Outside a ruling round, every ruling but a withdrawal counts as upheld.
 */
export function rulingCounts(rulings: unknown, contested: FindingView[] | null): { upheld: number; withdrawn: number } {
  // rulings in another shape than a list are no withdrawal: one that counts as upheld (fail closed)
  const list = (Array.isArray(rulings) ? rulings : rulings === undefined || rulings === null ? [] : [{}]).map((x: unknown) =>
    x && typeof x === "object" ? (x as { finding?: unknown; ruling?: unknown }) : {},
  );
  if (contested === null) {
    const withdrawn = list.filter((x) => x.ruling === "withdrawn").length;
    return { upheld: list.length - withdrawn, withdrawn };
  }
  const taken = new Set<number>();
  let withdrawn = 0;
  for (const f of contested) {
    const at = list.findIndex((x, i) => !taken.has(i) && namesFinding(x.finding, f));
    if (at < 0) continue;
    taken.add(at);
    if (list[at]!.ruling === "withdrawn") withdrawn++;
  }
  return { upheld: contested.length - withdrawn, withdrawn };
}

/** Whether a verdict's result names other artifact bytes than its packet sent: its reviewer's mistake (a raw file's sha,
 * say), where a stale verdict names the packet's bytes and the artifact changed under it. */
export function boundElsewhere(verdict: VerdictFile, packet: PacketFrontMatter): boolean {
  return verdict.artifact_sha256_reviewed?.toLowerCase() !== packet.artifact_sha256;
}

/** Whether a verdict's result parsed and named its packet: one that did not answered nothing, a malformed end. */
export function namesItsPacket(verdict: Pick<VerdictFile, "gate_pass">): boolean {
  return verdict.gate_pass.conditions.parses && verdict.gate_pass.conditions.packet_id_match;
}

/**
 * Whether a verdict names artifact bytes that are neither the artifact's now nor any its packet sent (`boundElsewhere`):
 * a malformed end too, unless the artifact changed since the packet (decide() then restarts on the new bytes).
 */
export function namesUnsentBytes(verdict: VerdictFile, packet: PacketFrontMatter): boolean {
  return !verdict.gate_pass.conditions.sha256_match && boundElsewhere(verdict, packet);
}

/**
 * Why one reviewer's part of round `round` ended malformed (SPEC §14 rules 7, 13, 13a), or null: a `malformed` failure,
 * or (without a failure) a verdict that does not parse, names another packet, or names bytes its packet never sent —
 * unless the artifact has `moved` since the packet (decide() then restarts on the new bytes) or, for a quorum `member`,
 * it blocks (its findings are of the bytes it was sent, §26 rule 2). The one rule for a single reviewer's round, a
 * quorum member's part and the escalation evidence; a seal broken since is the caller's to ask (it stays malformed).
 */
export function malformedEnd(slots: ReviewSlots, round: number, how: { member?: true; moved?: () => boolean } = {}): string | null {
  const failure = slots.failures.get(round);
  if (failure) return failure.kind === "malformed" ? failure.reason : null;
  const verdict = slots.verdicts.get(round);
  if (!verdict) return null;
  if (!namesItsPacket(verdict)) return verdict.gate_pass.reasons.join("; ");
  const packet = slots.packets.get(round);
  // the artifact is read last, only for a verdict that names unsent bytes
  if (!packet || !namesUnsentBytes(verdict, packet) || (how.member && verdictBlocks(verdict)) || how.moved?.()) return null;
  return (
    `the result names artifact_sha256_reviewed ${verdict.artifact_sha256_reviewed}, not its packet's ${packet.artifact_sha256} ` +
    "(copy it from the packet; it is the sha of the scrubbed bytes the packet embeds)"
  );
}
