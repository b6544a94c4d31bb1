// The lenient review_result.v1 reader: what Guild's gate-pass enforces, and the shapes the bus's answer reader refuses.
// Hand-written rather than zod so that `verify-gate-pass` starts in a few milliseconds; test/core/result-reader.test.ts
// proves it accepts and rejects exactly what the zod schema ReviewResultLenient does. The JSON itself is read by the one answer parser.
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
const VERDICTS: readonly unknown[] = ["satisfied", "issues"];
const RULINGS: readonly unknown[] = ["upheld", "withdrawn"];

const blank = (value: unknown) => typeof value === "string" && value.trim() === "";
const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === "object" && !Array.isArray(value);

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
    else if (field === "verdict" && !VERDICTS.includes(value))
      reasons.push(`verdict: must be "satisfied" or "issues" (got ${shown(value)})`);
  }
  if (obj.blocking_findings === undefined) reasons.push("missing required field: blocking_findings");
  else reasons.push(...listProblems("blocking_findings", obj.blocking_findings));
  // the shapes the bus's answer reader refuses (SPEC §9) refused here too: a lone blocker in place of the list would be
  // passed over by condition 5, and a ruling the bus cannot name would count as one it can
  if (obj.findings !== undefined && obj.findings !== null) reasons.push(...listProblems("findings", obj.findings));
  if (obj.rulings !== undefined && obj.rulings !== null) reasons.push(...rulingProblems(obj.rulings));
  return reasons;
}

/** A finding list: an array, none of whose items is blank text (a finding without a title). Other items are not inspected. */
function listProblems(field: string, list: unknown): string[] {
  if (!Array.isArray(list)) return [`${field}: must be an array (got ${shown(list)})`];
  const at = list.findIndex(blank);
  return at < 0 ? [] : [`${field}[${at}]: a finding given as text must be non-blank`];
}

/** rulings: an array of {finding: non-blank string, ruling: upheld | withdrawn, reason?: string}. */
function rulingProblems(rulings: unknown): string[] {
  if (!Array.isArray(rulings)) return [`rulings: must be an array (got ${shown(rulings)})`];
  const at = rulings.findIndex(
    (r) =>
      !isObject(r) ||
      typeof r.finding !== "string" ||
      blank(r.finding) ||
      !RULINGS.includes(r.ruling) ||
      (r.reason !== undefined && typeof r.reason !== "string"),
  );
  if (at < 0) return [];
  const shape = `{finding: a non-blank string, ruling: "upheld" or "withdrawn", reason?: a string}`;
  return [`rulings[${at}]: must be ${shape} (got ${shown(rulings[at])})`];
}

/** Guild-compatible consume-only reader: reports every problem, tolerates unknown keys. */
export function parseReviewResult(raw: string): ReadOutcome<LenientResult> {
  const parsed = parseJsonObject(raw);
  if (!parsed.result) return { result: null, reasons: parsed.reasons };
  const reasons = lenientProblems(parsed.result);
  return reasons.length ? { result: null, reasons } : { result: parsed.result as LenientResult, reasons: [] };
}
