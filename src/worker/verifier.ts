// The verifier: for each new result-<n>.json, run the gate-pass against the artifact as it is now (scrubbed), judge
// the score condition and any rulings, and deliver verdict-<n>.json. Deterministic code only; results that cannot
// belong to the open round are rejected.
import { readFileSync } from "node:fs";
import { classifyModel } from "../family.js";
import { evaluateGatePass } from "../gate-pass.js";
import { parseReviewResult } from "../result-reader.js";
import { evaluateScoreGate } from "../score-gate.js";
import { scrub } from "../scrub.js";
import { VerdictFile } from "../spec/schemas.js";
import { sha256Hex } from "../sha.js";
import { FOREIGN_GRACE_MS, readGate } from "../broker/snapshot.js";
import { deliver } from "../store/deliver.js";
import { rejectFile } from "../store/reject.js";
import type { BusContext } from "./context.js";

export function verifyGate(ctx: BusContext, runId: string, gate: string, log: (m: string) => void, nowMs = Date.now()): "active" | "finished" {
  const { layout } = ctx;
  const s = readGate(layout, runId, gate);
  const R = Math.max(0, ...s.packets.keys());
  const rejectName = (name: string, reason: string) => {
    if (rejectFile(s.dir, name, reason, layout.guild)) log(`${runId}/${gate}: rejected ${name}: ${reason}`);
  };
  const reject = (round: number, reason: string) => rejectName(`result-${round}.json`, reason);
  for (const p of s.problems) {
    if (/^result-\d+\.json$/.test(p.file)) rejectName(p.file, p.reason); // symlinked, oversized or misnamed
  }
  const unbound = new Set(s.problems.filter((p) => /^verdict-\d+\.json$/.test(p.file)).map((p) => Number(p.file.slice(8, -5))));
  const grace = ctx.settings.foreign_grace_ms ?? FOREIGN_GRACE_MS;
  for (const round of s.results.keys()) {
    if (s.verdicts.has(round)) continue;
    if (unbound.has(round)) {
      reject(round, `result-${round}.json changed after verification; verdict-${round}.json records the sha of the bytes that were verified`);
      continue;
    }
    if (s.outcome) reject(round, "result arrived after the gate's outcome");
    else if (!s.packets.has(round)) reject(round, `no packet-${round}.md was issued`);
    else if (round !== R) reject(round, `late: round ${round} is closed, the open round is ${R}`);
    else if (s.failures.has(round)) reject(round, `late: round ${round} already ended without a result (${s.failures.get(round)!.kind})`);
    else verifyRound(ctx, runId, gate, round, s.packets.get(round)!, nowMs - s.results.get(round)!.mtimeMs < grace, reject);
  }
  return s.outcome ? "finished" : "active";
}

function verifyRound(
  ctx: BusContext, runId: string, gate: string, round: number,
  packet: import("../spec/schemas.js").PacketFrontMatter, mayStillBeWriting: boolean,
  reject: (round: number, reason: string) => void,
): void {
  const { layout } = ctx;
  const resultPath = layout.gateFile(runId, gate, `result-${round}.json`);
  let raw: string;
  try {
    raw = readFileSync(resultPath, "utf8");
  } catch {
    return; // moved meanwhile
  }
  const parsed = parseReviewResult(raw);
  if (!parsed.result) {
    if (mayStillBeWriting) return; // a foreign writer may still be writing it in place
    return reject(round, `not a review_result.v1: ${parsed.reasons.join("; ")}`);
  }
  if (parsed.result.packet_id !== packet.packet_id) {
    return reject(round, `names packet ${JSON.stringify(parsed.result.packet_id)}; the open round's packet is ${packet.packet_id}`);
  }
  const reasons: string[] = [];
  let artifactBytes: Buffer;
  try {
    const text = readFileSync(layout.readableArtifact(packet.artifact_path), "utf8");
    artifactBytes = Buffer.from(scrub(text, { customPatterns: ctx.settings.secrets_policy?.redaction_patterns }), "utf8");
  } catch (error) {
    artifactBytes = Buffer.alloc(0);
    reasons.push(`artifact unreadable now: ${(error as Error).message}`);
  }
  const report = evaluateGatePass({ resultRaw: raw, artifactBytes, packetId: packet.packet_id });
  report.reasons.push(...reasons);
  const r = parsed.result;
  const reportedModel = typeof r.reviewer_model === "string" && r.reviewer_model.trim() ? r.reviewer_model : null;
  const reviewerModel = reportedModel ?? packet.reviewer_model;
  const reviewerFamily = classifyModel(reviewerModel, ctx.settings.family_aliases);
  const violation = packet.independence === "strong" && (reviewerFamily === "unknown" || reviewerFamily === packet.author_family);
  const rulings = Array.isArray(r.rulings) ? r.rulings.map((x) => (x && typeof x === "object" ? (x as { ruling?: unknown }).ruling : undefined)) : null;
  const verdict = VerdictFile.parse({
    schema_version: "guild_bus.verdict.v1",
    run_id: runId,
    gate,
    round,
    packet_id: packet.packet_id,
    result_sha256: sha256Hex(Buffer.from(raw, "utf8")),
    artifact_sha256_reviewed: r.artifact_sha256_reviewed,
    result_verdict: r.verdict,
    blocking_count: r.blocking_findings.length,
    reviewer_model: reviewerModel,
    reviewer_family: reviewerFamily,
    independence_violation: violation,
    gate_pass: report,
    score_gate: evaluateScoreGate(r),
    // anything but an explicit withdrawal keeps a contested finding standing
    ...(rulings ? { rulings: { upheld: rulings.filter((x) => x !== "withdrawn").length, withdrawn: rulings.filter((x) => x === "withdrawn").length } } : {}),
    verified_at: new Date().toISOString(),
  });
  deliver(layout.gateFile(runId, gate, `verdict-${round}.json`), JSON.stringify(verdict, null, 2) + "\n", { guildDir: layout.guild });
}
