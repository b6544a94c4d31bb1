// A human reviewer's answer: first line `Reviewer-Model: <exact-model-id>`, then the review (a review_result.v1
// block, a whole JSON object, or prose ending in a valid `## SATISFIED`). The family must be known and differ
// from the author's; otherwise the answer is refused with the reason and the human can answer again.
import { classifyModel } from "./family.js";
import { familyRelation } from "./independence.js";
import { normalizeOutput } from "./normalize.js";
import type { PacketFrontMatter, ReviewResultStrict, Settings } from "../spec/schemas.js";

const MODEL_LINE_RE = /^\s*Reviewer-Model:\s*(\S(?:.*\S)?)\s*$/i;

export type ManualVerdict = { ok: true; result: ReviewResultStrict; model: string } | { ok: false; reason: string };

export function acceptManualResponse(text: string, packet: PacketFrontMatter, settings: Settings, modelOverride?: string): ManualVerdict {
  // an editor's "UTF-8 with BOM" save: the mark is no part of the answer, with a model line or without
  const answer = text.replace(/^\uFEFF/, "");
  const lines = answer.split(/\r?\n/);
  const declared = MODEL_LINE_RE.exec(lines[0] ?? "");
  const model = modelOverride?.trim() || declared?.[1];
  const body = declared ? lines.slice(1).join("\n") : answer;
  if (!model) return { ok: false, reason: noModel(lines, modelOverride !== undefined) };
  const refusal = identityRefusal(model, packet, settings);
  if (refusal) return { ok: false, reason: refusal };
  const normalized = normalizeOutput(body, {
    packetId: packet.packet_id,
    artifactSha256: packet.artifact_sha256,
    round: packet.round,
    reviewerHost: "manual",
    reviewerModel: model,
    reviewerModelSource: "declared",
  });
  if (!normalized.ok) return { ok: false, reason: `the review could not be read: ${normalized.reasons.join("; ")}` };
  // a model the answer itself names wins over the declared one (§8.2), and must pass the same check
  const reported = normalized.result.reviewer_model;
  const reportedRefusal = reported === model ? null : identityRefusal(reported, packet, settings);
  if (reportedRefusal) return { ok: false, reason: `the answer names its model: ${reportedRefusal}` };
  return {
    ok: true,
    result: { ...normalized.result, normalized_from: "manual", reviewer_family: classifyModel(reported, settings.family_aliases) },
    model: reported,
  };
}

/**
 * Why no model was named, in words the sender can act on: a dropped file has only its first line (no command-line
 * flag); `respond` on every face also has its reviewer model field. A model line further down is pointed at.
 */
function noModel(lines: readonly string[], hasField: boolean): string {
  const at = lines.findIndex((l) => MODEL_LINE_RE.test(l));
  const fix = lines.slice(0, at).every((l) => !l.trim()) ? "remove the blank lines above it" : "move it to the top";
  const found = at > 0 ? ` (the one on line ${at + 1} is not read: ${fix})` : "";
  return hasField
    ? `no reviewer model: name the exact model id that produced this review (the reviewer model field), or make the ` +
        `review's first line \`Reviewer-Model: <exact-model-id>\`${found}`
    : `the first line must be \`Reviewer-Model: <exact-model-id>\`${found}`;
}

function identityRefusal(model: string, packet: PacketFrontMatter, settings: Settings): string | null {
  const family = classifyModel(model, settings.family_aliases);
  const relation = familyRelation(packet.author_family, family);
  if (family === "unknown") {
    return (
      `reviewer model ${JSON.stringify(model)} has no known family; ` +
      "give the exact model id (e.g. gpt-5, claude-opus-4, gemini-2.5-pro)"
    );
  }
  if (relation === "same") {
    return (
      `reviewer model ${model} is ${family}, the author's family: ` +
      "a same-family review cannot sign off; answer with a model of another family"
    );
  }
  return null;
}

export function manualInstructions(root: string, packet: PacketFrontMatter, packetPath: string): string {
  return [
    `[manual] ${packet.run_id} ${packet.gate} round ${packet.round}: a review is waiting for a human.`,
    `  read:   ${packetPath}`,
    `  answer: guild-bus respond ${packet.run_id} ${packet.gate} --round ${packet.round} ` +
      "--reviewer-model <exact-model-id> --file <answer.md>",
    `  or drop .guild/runs/${packet.run_id}/review/${packet.gate}/response-${packet.round}.md whose first line is`,
    `          Reviewer-Model: <exact-model-id>   (a family other than ${packet.author_family}; write elsewhere, then move it into place)`,
    `  (project: ${root})`,
  ].join("\n");
}
