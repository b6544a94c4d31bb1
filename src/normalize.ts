// Turns a reviewer's raw output into a review_result.v1 envelope, the same way for every adapter:
// a fenced review_result.v1/json block, or a whole-output JSON object, or a valid `## SATISFIED` sentinel.
import { lenientProblems, RESULT_WIRE } from "./result-reader.js";
import { describeIssues, type Finding, ReviewResultStrict } from "./spec/schemas.js";

export interface EnvelopeContext {
  packetId: string;
  /** sha256 of the scrubbed artifact bytes the reviewer was given (from the packet). */
  artifactSha256: string;
  round: number;
  reviewerHost: string;
  reviewerModel: string;
  reviewerModelSource: "reported" | "requested" | "declared";
}

export type Normalized =
  | { ok: true; result: ReviewResultStrict; from: ReviewResultStrict["normalized_from"] }
  | { ok: false; reasons: string[] };

const FENCE_RE = /^(`{3,}|~{3,})[ \t]*([^\n`]*)\n([\s\S]*?)\n\1[ \t]*$/gm;

function fencedCandidates(raw: string): { tagged: string[]; json: string[] } {
  const tagged: string[] = [];
  const json: string[] = [];
  for (const m of raw.matchAll(FENCE_RE)) {
    const tag = (m[2] ?? "").trim().toLowerCase();
    const body = (m[3] ?? "").trim();
    if (tag === RESULT_WIRE) tagged.push(body);
    else if ((tag === "json" || tag === "") && body.startsWith("{")) json.push(body);
  }
  return { tagged, json };
}

const SENTINEL = "## SATISFIED";
const OPEN_ITEM_RE = /^\s*(?:[-*+]|\d+[.)])\s|\?\s*$|\b(?:TODO|FIXME|TBD|blocking|blocker|must fix|open question)\b/i;

/** `## SATISFIED` counts only alone on its trimmed line, exactly once, with nothing open after it. */
export function sentinelVerdict(raw: string): { valid: true; before: string } | { valid: false; reason: string } | null {
  const lines = raw.split(/\r?\n/);
  const standalone = lines.flatMap((l, i) => (l.trim() === SENTINEL ? [i] : []));
  const mentions = lines.filter((l) => l.includes(SENTINEL)).length;
  if (mentions === 0) return null;
  if (standalone.length === 0) return { valid: false, reason: "sentinel inline (not alone on its line)" };
  if (mentions > 1) return { valid: false, reason: "sentinel repeated" };
  const at = standalone[0]!;
  const after = lines.slice(at + 1).filter((l) => l.trim() !== "");
  const open = after.find((l) => OPEN_ITEM_RE.test(l));
  if (open) return { valid: false, reason: `open findings after the sentinel: ${JSON.stringify(open.trim().slice(0, 80))}` };
  return { valid: true, before: lines.slice(0, at).join("\n").trim() };
}

function toFinding(value: unknown, fallbackSeverity: Finding["severity"]): Finding {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const severity = typeof v.severity === "string" && ["blocking", "high", "medium", "low", "info"].includes(v.severity) ? (v.severity as Finding["severity"]) : fallbackSeverity;
    const title = [v.title, v.finding, v.summary, v.detail].find((x) => typeof x === "string" && x.trim()) as string | undefined;
    // The strict schema types these as strings; `evidence: ["§2"]` or `id: 7` must not make a whole review malformed.
    const texts: Record<string, string> = {};
    for (const k of ["id", "detail", "evidence"]) if (v[k] !== undefined && typeof v[k] !== "string") texts[k] = JSON.stringify(v[k]);
    return { ...v, ...texts, severity, title: title ?? JSON.stringify(v).slice(0, 200) };
  }
  return { severity: fallbackSeverity, title: typeof value === "string" && value.trim() ? value : JSON.stringify(value) };
}

/** Fill what the reviewer may leave out (identity, round) and coerce findings; never change its verdict or bindings. */
function envelope(obj: Record<string, unknown>, ctx: EnvelopeContext, from: ReviewResultStrict["normalized_from"]): Normalized {
  const problems = lenientProblems({
    ...obj,
    packet_id: obj.packet_id ?? ctx.packetId,
    artifact_sha256_reviewed: obj.artifact_sha256_reviewed ?? ctx.artifactSha256,
  });
  if (problems.length) return { ok: false, reasons: problems };
  const blocking = (obj.blocking_findings as unknown[]).map((f) => toFinding(f, "blocking"));
  const findings = Array.isArray(obj.findings) ? obj.findings.map((f) => toFinding(f, "medium")) : blocking;
  const candidate = {
    ...obj,
    schema_version: RESULT_WIRE,
    packet_id: obj.packet_id ?? ctx.packetId,
    artifact_sha256_reviewed: obj.artifact_sha256_reviewed ?? ctx.artifactSha256,
    findings,
    blocking_findings: blocking,
    round: ctx.round,
    reviewer_host: ctx.reviewerHost,
    reviewer_model: ctx.reviewerModel,
    reviewer_model_source: ctx.reviewerModelSource,
    normalized_from: from,
  };
  const checked = ReviewResultStrict.safeParse(candidate);
  return checked.success ? { ok: true, result: checked.data, from } : { ok: false, reasons: describeIssues(checked.error) };
}

function parseObject(text: string): Record<string, unknown> | string {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : "not a JSON object";
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
}

export function normalizeOutput(raw: string, ctx: EnvelopeContext): Normalized {
  const { tagged, json } = fencedCandidates(raw);
  const pick: Array<[string[], ReviewResultStrict["normalized_from"]]> = [[tagged, "fenced"], [json, "fenced"]];
  for (const [blocks, from] of pick) {
    if (blocks.length > 1) return { ok: false, reasons: [`${blocks.length} candidate JSON blocks; emit exactly one`] };
    if (blocks.length === 1) {
      const obj = parseObject(blocks[0]!);
      return typeof obj === "string" ? { ok: false, reasons: [`fenced block is ${obj}`] } : envelope(obj, ctx, from);
    }
  }
  const trimmed = raw.trim();
  if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
    const obj = parseObject(trimmed);
    if (typeof obj !== "string") return envelope(obj, ctx, "whole-json");
  }
  const sentinel = sentinelVerdict(raw);
  if (sentinel?.valid) {
    return envelope(
      { verdict: "satisfied", summary: sentinel.before.slice(0, 4000), findings: [], blocking_findings: [] },
      ctx,
      "sentinel",
    );
  }
  if (sentinel && !sentinel.valid) return { ok: false, reasons: [`malformed termination: ${sentinel.reason}`] };
  return { ok: false, reasons: ["envelope missing: no review_result.v1 block, no whole-output JSON object, no valid ## SATISFIED sentinel"] };
}

/** The one schema-repair prompt sent after a malformed answer. */
export function repairPrompt(reasons: string[], ctx: EnvelopeContext): string {
  return [
    "Your previous answer could not be used as a review result:",
    ...reasons.map((r) => `- ${r}`),
    "",
    `Re-emit ONLY a single fenced \`\`\`${RESULT_WIRE} block containing one JSON object with:`,
    `"schema_version": "${RESULT_WIRE}", "packet_id": "${ctx.packetId}", "artifact_sha256_reviewed": "${ctx.artifactSha256}",`,
    `"verdict": "satisfied" or "issues", "summary", "findings" (each {severity, title, detail, evidence}), "blocking_findings".`,
    "Do not review again; restate your existing review in this format.",
  ].join("\n");
}
