// The lenient review_result.v1 reader (what Guild's gate-pass enforces). Hand-written rather than zod so that
// `verify-gate-pass` starts in a few milliseconds; test/core/result-reader.test.ts proves it accepts and rejects
// exactly what the zod schema ReviewResultLenient does. The JSON itself is read by the one answer parser.
import { RESULT_WIRE } from "../spec/constants.js";
import { parseJsonAnswer } from "./json-answer.js";
import { shown } from "./text-of.js";

export interface LenientResult {
  schema_version?: typeof RESULT_WIRE;
  packet_id: string;
  artifact_sha256_reviewed: string;
  verdict: string;
  blocking_findings: unknown[];
  [key: string]: unknown;
}

export interface ReadOutcome<T> {
  result: T | null;
  reasons: string[];
}

const REQUIRED_STRINGS = ["packet_id", "artifact_sha256_reviewed", "verdict"] as const;

export function parseJsonObject(raw: string): ReadOutcome<Record<string, unknown>> {
  const parsed = parseJsonAnswer(raw);
  if (!parsed.ok) return { result: null, reasons: [parsed.kind === "syntax" ? "result is not valid JSON" : `result is ${parsed.reason}`] };
  const { value } = parsed;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { result: null, reasons: ["result is not a JSON object"] };
  }
  return { result: value as Record<string, unknown>, reasons: [] };
}

/** Every problem of a parsed object against the lenient shape (empty when it conforms). */
export function lenientProblems(obj: Record<string, unknown>): string[] {
  const reasons: string[] = [];
  if ("schema_version" in obj && obj.schema_version !== RESULT_WIRE) {
    reasons.push(`schema_version must be exactly "${RESULT_WIRE}" (got ${shown(obj.schema_version)})`);
  }
  for (const field of REQUIRED_STRINGS) {
    const value = obj[field];
    if (value === undefined) reasons.push(`missing required field: ${field}`);
    else if (typeof value !== "string" || value.trim() === "") reasons.push(`${field}: must be a non-blank string`);
  }
  if (obj.blocking_findings === undefined) reasons.push("missing required field: blocking_findings");
  else if (!Array.isArray(obj.blocking_findings)) reasons.push("blocking_findings: must be an array");
  return reasons;
}

/** Guild-compatible consume-only reader: reports every problem, tolerates unknown keys. */
export function parseReviewResult(raw: string): ReadOutcome<LenientResult> {
  const parsed = parseJsonObject(raw);
  if (!parsed.result) return { result: null, reasons: parsed.reasons };
  const reasons = lenientProblems(parsed.result);
  return reasons.length ? { result: null, reasons } : { result: parsed.result as LenientResult, reasons: [] };
}
