// The stricter review_result.v1 shape that every result written by the bus itself must have.
import { parseJsonObject, type ReadOutcome } from "../../src/core/result-wire.js";
import { describeIssues } from "../../src/spec/issues.js";
import { ReviewResultStrict } from "../../src/spec/schemas.js";

export function parseStrictReviewResult(raw: string): ReadOutcome<ReviewResultStrict> {
  const parsed = parseJsonObject(raw);
  if (!parsed.result) return { result: null, reasons: parsed.reasons };
  const checked = ReviewResultStrict.safeParse(parsed.result);
  return checked.success ? { result: checked.data, reasons: [] } : { result: null, reasons: describeIssues(checked.error) };
}
