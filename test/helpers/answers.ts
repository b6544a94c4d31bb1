// A reviewer's answer as an adapter returns it: one fenced review_result.v1 block for the packet it was sent.
import type { PacketFrontMatter } from "../../src/spec/schemas.js";

/** A satisfied review of `front`'s packet by `model` (the packet's own reviewer model unless said). */
export function passingAnswer(front: PacketFrontMatter, model = front.reviewer_model): { kind: "output"; text: string } {
  const result = {
    schema_version: "review_result.v1",
    packet_id: front.packet_id,
    artifact_sha256_reviewed: front.artifact_sha256,
    verdict: "satisfied",
    summary: "ok",
    reviewer_model: model,
    findings: [],
    blocking_findings: [],
  };
  return { kind: "output", text: "```review_result.v1\n" + JSON.stringify(result) + "\n```\n" };
}
