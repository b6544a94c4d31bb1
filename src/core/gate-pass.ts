// The checksum-bound five-condition gate-pass: a pure function of the result text and the artifact bytes.
import { type LenientResult, parseReviewResult, type ReadOutcome } from "./result-wire.js";
import { sha256Hex } from "./sha.js";
import { hasBlockingSeverity } from "./findings.js";
import type { GatePassReport } from "../spec/schemas.js";

export type GatePassInput = {
  /** Raw result text, or null when the result file is missing or unreadable. */
  resultRaw: string | null;
  /** parseReviewResult(resultRaw), when the caller read it already (the verifier), so it is not parsed twice. */
  parsed?: ReadOutcome<LenientResult>;
  /** The packet id issued for the round; when omitted the packet condition holds vacuously (Guild-compatible). */
  packetId?: string;
  /** A human force-pass: relaxes only the verdict condition. */
  forcePass?: boolean;
} & (
  | { artifactBytes: Uint8Array }
  /** Only the sha256 of the artifact's bytes, where the bytes themselves are not at hand (those a round sent). */
  | { artifactSha256: string }
);

/** `findings` items of severity blocking (any case); the lenient reader does not check their shape, so nor does this. */
function blockingSeverity(result: LenientResult): number {
  return (Array.isArray(result.findings) ? result.findings : []).filter(hasBlockingSeverity).length;
}

export function evaluateGatePass(input: GatePassInput): GatePassReport {
  const recomputed = "artifactSha256" in input ? input.artifactSha256 : sha256Hex(input.artifactBytes);
  const forcePass = input.forcePass === true;
  const failed = (reasons: string[]): GatePassReport => ({
    pass: false,
    conditions: { parses: false, packet_id_match: false, sha256_match: false, satisfied: forcePass, no_blockers: false },
    recomputed_sha256: recomputed,
    reasons,
  });
  if (input.resultRaw === null) return failed(["result file unreadable"]);
  const { result, reasons: parseReasons } = input.parsed ?? parseReviewResult(input.resultRaw);
  if (!result) return failed(parseReasons.map((r) => `parse: ${r}`));

  const reasons: string[] = [];
  const packetIdMatch = input.packetId === undefined || result.packet_id === input.packetId;
  if (!packetIdMatch) {
    reasons.push(`packet_id mismatch: result names ${JSON.stringify(result.packet_id)}, issued ${JSON.stringify(input.packetId)}`);
  }
  const sha256Match = result.artifact_sha256_reviewed.toLowerCase() === recomputed;
  if (!sha256Match) {
    reasons.push(
      `sha256 mismatch: reviewed ${result.artifact_sha256_reviewed}, current ${recomputed} — ` +
        // which of the two it is only the packet tells: the broker restarts the round or re-runs it as malformed
        "the artifact changed since its packet, or the result did not copy the packet's artifact_sha256",
    );
  }
  const satisfied = result.verdict === "satisfied" || forcePass;
  if (!satisfied) reasons.push(`verdict is ${JSON.stringify(result.verdict)}, not "satisfied"`);
  // Condition 5 also fails on a findings item of severity blocking: a deliberate extension of Guild's gate (§11)
  const severe = blockingSeverity(result);
  const noBlockers = result.blocking_findings.length === 0 && severe === 0;
  if (result.blocking_findings.length) reasons.push(`${result.blocking_findings.length} blocking finding(s) remain`);
  else if (severe) reasons.push(`findings holds ${severe} item(s) of severity blocking, though blocking_findings is empty`);

  const conditions = { parses: true, packet_id_match: packetIdMatch, sha256_match: sha256Match, satisfied, no_blockers: noBlockers };
  return { pass: Object.values(conditions).every(Boolean), conditions, recomputed_sha256: recomputed, reasons };
}
