// `status --verify` (SPEC §17): an ended gate's outcome is re-derived from the files it rests on — packet, result,
// verdict, seal, decisions and the artifact as it is now — instead of being believed. Files forged consistently by a
// local writer stay out of the threat model; this turns "trust the files" into "trust, and check on demand".
import type { ArtifactState } from "./artifact-view.js";
import { evaluateGatePass } from "./gate-pass.js";
import { parseReviewResult } from "./result-wire.js";
import { evaluateScoreGate } from "./score-gate.js";
import { sha256Hex } from "./sha.js";
import type { ResolvedPolicy } from "./policy.js";
import type { Settings } from "../spec/schemas.js";
import { type GateSnapshot } from "./snapshot.js";
import { isIndependent, reviewerOf } from "./independence.js";
import { validDecision } from "./gate-queries.js";

/** Round n's result as read from disk (bounded): its bytes, or why they could not be read. */
export type ResultBytes = { ok: true; bytes: Buffer; text: string } | { ok: false; reason: string };

export interface ReverifyInput {
  settings: Settings;
  policy: ResolvedPolicy;
  artifact: ArtifactState;
  resultBytes: (round: number) => ResultBytes;
}

export interface Reverification {
  ok: boolean;
  problems: string[];
}

/** What does not re-derive in an ended gate's outcome; an open gate has nothing to verify. */
export function reverifyOutcome(s: GateSnapshot, input: ReverifyInput): Reverification | null {
  const o = s.outcome;
  if (!o || !s.request) return null;
  const problems: string[] = [];
  const n = o.final_round;
  const { policy, artifact } = input;
  if (o.status === "skipped" && policy.required) problems.push(`skipped, but review is required (${policy.requiredBecause})`);
  if (o.status === "force_passed") {
    if (validDecision(s, n)?.choice !== "force-pass")
      problems.push(`force_passed, but no force-pass decision answers an escalation of round ${n}`);
  }
  if (o.status === "satisfied") {
    if (o.satisfied_at_round !== n) problems.push(`satisfied_at_round ${String(o.satisfied_at_round)} is not the final round ${n}`);
    else problems.push(...passProblems(s, n, input, o.independence));
  }
  if ((o.status === "satisfied" || o.status === "force_passed") && o.artifact_sha256 !== null) {
    if (!artifact.ok) problems.push(`the artifact is unreadable now: ${artifact.detail}`);
    else if (artifact.sha !== o.artifact_sha256)
      problems.push(`the artifact changed since the outcome (outcome ${o.artifact_sha256}, now ${artifact.sha})`);
  }
  return { ok: problems.length === 0, problems };
}

/**
 * Why round n's pass does not re-derive from its files: the packet, the result bytes (the sealed ones), a verdict
 * bound to them, the gate-pass on the artifact as it is now under the round's own stop policy, and, for a strong
 * stamp, the reviewer family. The broker asks before it writes `satisfied`; `status --verify` after.
 */
export function passProblems(
  s: GateSnapshot,
  n: number,
  input: Omit<ReverifyInput, "policy">,
  independence: "strong" | "weak" | null | undefined,
): string[] {
  const { artifact, settings } = input;
  const packet = s.packets.get(n);
  if (!packet) return [`no valid packet-${n}.md`];
  const stop = packet.stop ?? "verdict";
  const read = input.resultBytes(n);
  if (!read.ok) return [`result-${n}.json: ${read.reason}`];
  const { bytes, text: raw } = read;
  const problems: string[] = [];
  const verdict = s.verdicts.get(n);
  if (!verdict) problems.push(s.brokenSeals.get(n) ?? `no verdict-${n}.json bound to result-${n}.json`);
  else if (verdict.result_sha256 !== sha256Hex(bytes)) problems.push(`verdict-${n}.json binds other result bytes`);
  // The gate-pass again, on the artifact bytes the outcome names when they are still on disk.
  const artifactBytes = artifact.ok ? Buffer.from(artifact.text, "utf8") : Buffer.alloc(0);
  const report = evaluateGatePass({ resultRaw: raw, artifactBytes, packetId: packet.packet_id });
  const c = report.conditions;
  if (!c.parses || !c.packet_id_match || !c.no_blockers) problems.push(`gate-pass fails: ${report.reasons.join("; ")}`);
  else if (!c.sha256_match && artifact.ok) problems.push(`the result reviewed other bytes: ${report.reasons.join("; ")}`);
  const result = parseReviewResult(raw).result;
  if (stop === "verdict" && result?.verdict !== "satisfied")
    problems.push(`the result's verdict is ${JSON.stringify(result?.verdict)}, not "satisfied"`);
  if (stop === "score" && result && !evaluateScoreGate(result).positive) problems.push("the result's score does not pass the score gate");
  if (independence === "strong") {
    const { model, family } = reviewerOf(result ?? {}, packet, settings.family_aliases);
    if (!isIndependent(packet.author_family, family))
      problems.push(
        `independence strong, but the reviewer model ${JSON.stringify(model)} is of family ${family} (author ${packet.author_family})`,
      );
  }
  return problems;
}
