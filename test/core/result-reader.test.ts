import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseReviewResult } from "../../src/core/result-wire.js";
import { ReviewResultLenient } from "../../src/spec/schemas.js";
import { parseStrictReviewResult } from "../helpers/strict-result.js";

const base = { packet_id: "p", artifact_sha256_reviewed: "a".repeat(64), verdict: "issues", blocking_findings: [] };

describe("review_result.v1 lenient reader (Guild §2A)", () => {
  it("accepts the minimal shape and tolerates unknown keys", () => {
    expect(parseReviewResult(JSON.stringify({ ...base, extra: { deep: 1 } })).result).toMatchObject({ extra: { deep: 1 } });
    expect(parseReviewResult(JSON.stringify({ ...base, schema_version: "review_result.v1" })).reasons).toEqual([]);
  });

  it("rejects the prefixed wire name", () => {
    const r = parseReviewResult(JSON.stringify({ ...base, schema_version: "guild.review_result.v1" }));
    expect(r.result).toBeNull();
    expect(r.reasons[0]).toMatch(/schema_version must be exactly "review_result.v1"/);
  });

  it("reports every problem, not the first", () => {
    const r = parseReviewResult(JSON.stringify({ packet_id: " ", verdict: 3, blocking_findings: {} }));
    expect(r.reasons).toEqual([
      "packet_id: must be a non-blank string",
      "missing required field: artifact_sha256_reviewed",
      "verdict: must be a non-blank string",
      "blocking_findings: must be an array",
    ]);
  });

  it("reads the JSON with the one answer parser: a repeated key or nesting past 64 levels is not a result (§8.1)", () => {
    expect(parseReviewResult(JSON.stringify(base).replace(/}$/, ',"verdict":"satisfied"}'))).toEqual({
      result: null,
      reasons: ['result is not valid JSON: duplicate key "verdict" (each key may appear once per object)'],
    });
    expect(parseStrictReviewResult(JSON.stringify(base).replace(/}$/, ',"verdict":"satisfied"}')).result).toBeNull();
    expect(parseReviewResult(JSON.stringify({ ...base, deep: JSON.parse("[".repeat(64) + "]".repeat(64)) })).result).toBeNull();
    expect(parseReviewResult(JSON.stringify({ ...base, deep: JSON.parse("[".repeat(63) + "]".repeat(63)) })).result).not.toBeNull();
  });

  it("does not inspect finding items or the verdict enum (lenient)", () => {
    expect(parseReviewResult(JSON.stringify({ ...base, verdict: "meh", blocking_findings: [null, 3] })).result).not.toBeNull();
  });

  it("agrees with the zod schema on arbitrary objects (one rule, two encodings)", () => {
    const field = fc.oneof(
      fc.constant(undefined),
      fc.string(),
      fc.constant("  "),
      fc.integer(),
      fc.array(fc.anything()),
      fc.constant(null),
      fc.object(),
    );
    fc.assert(
      fc.property(
        fc.record({
          schema_version: fc.oneof(fc.constant(undefined), fc.constant("review_result.v1"), fc.string()),
          packet_id: field,
          artifact_sha256_reviewed: field,
          verdict: field,
          blocking_findings: field,
          other: fc.anything(),
        }),
        (rec) => {
          const obj = Object.fromEntries(Object.entries(rec).filter(([, v]) => v !== undefined));
          const handWritten = parseReviewResult(JSON.stringify(obj)).result !== null;
          const viaZod = ReviewResultLenient.safeParse(JSON.parse(JSON.stringify(obj))).success;
          expect(handWritten).toBe(viaZod);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("review_result.v1 as the bus writes it (strict)", () => {
  const strict = {
    schema_version: "review_result.v1",
    packet_id: "p",
    artifact_sha256_reviewed: "b".repeat(64),
    verdict: "issues",
    findings: [{ severity: "high", title: "t" }],
    blocking_findings: [],
    round: 1,
    reviewer_host: "codex",
    reviewer_model: "gpt-5",
  };
  it("accepts a complete result", () => {
    expect(parseStrictReviewResult(JSON.stringify(strict)).reasons).toEqual([]);
  });
  it("rejects what the lenient reader lets through, listing each problem", () => {
    const r = parseStrictReviewResult(
      JSON.stringify({
        ...strict,
        verdict: "meh",
        artifact_sha256_reviewed: "xyz",
        findings: [{ severity: "critical", title: "t" }],
        round: 0,
      }),
    );
    expect(r.result).toBeNull();
    expect(r.reasons.join("\n")).toMatch(/artifact_sha256_reviewed/);
    expect(r.reasons.join("\n")).toMatch(/verdict/);
    expect(r.reasons.join("\n")).toMatch(/findings\.0\.severity/);
    expect(r.reasons.join("\n")).toMatch(/round/);
    expect(parseStrictReviewResult(JSON.stringify({ ...strict, schema_version: undefined })).result).toBeNull();
  });
});

describe("a foreign value in a reason", () => {
  it("is quoted on one line and cut, never echoed whole (a MiB of spaces once took the error line minutes)", () => {
    const huge = `review_result.v0${" ".repeat(1 << 20)}\nx`;
    const { reasons } = parseReviewResult(
      JSON.stringify({ schema_version: huge, packet_id: "p", artifact_sha256_reviewed: "a", verdict: "x", blocking_findings: [] }),
    );
    expect(reasons[0]).toMatch(/^schema_version must be exactly "review_result\.v1" \(got "review_result\.v0 {64}…"\)$/);
  });
});
