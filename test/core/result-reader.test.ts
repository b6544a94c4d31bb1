import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseReviewResult } from "../../src/core/result-wire.js";
import { ReviewResultLenient } from "../../src/spec/schemas.js";
import { parseStrictReviewResult } from "../helpers/strict-result.js";
import { type EnvelopeContext, normalizeOutput } from "../../src/core/normalize.js";
import { oneResultPass } from "../../src/core/verdict-pass.js";
import { SHA_A } from "../helpers/snapshots.js";

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
      "blocking_findings: must be an array (got {})",
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

  it("does not inspect finding objects; refuses what the answer reader refuses in what the gate reads (§8.1, §9)", () => {
    expect(parseReviewResult(JSON.stringify({ ...base, blocking_findings: [null, 3, {}], findings: [[], true] })).result).not.toBeNull();
    expect(parseReviewResult(JSON.stringify({ ...base, findings: null, rulings: null })).result).not.toBeNull();
    const reasons = (extra: object) => parseReviewResult(JSON.stringify({ ...base, ...extra })).reasons;
    expect(reasons({ verdict: "meh" })).toEqual(['verdict: must be "satisfied" or "issues" (got "meh")']);
    expect(reasons({ findings: { severity: "blocking" } })).toEqual(['findings: must be an array (got {"severity":"blocking"})']);
    expect(reasons({ findings: ["ok", " "] })).toEqual(["findings[1]: a finding given as text must be non-blank"]);
    expect(reasons({ blocking_findings: [""] })).toEqual(["blocking_findings[0]: a finding given as text must be non-blank"]);
    expect(reasons({ rulings: { finding: "x", ruling: "withdrawn" } })[0]).toMatch(/^rulings: must be an array/);
    for (const ruling of [
      { ruling: "withdrawn" },
      { finding: " ", ruling: "withdrawn" },
      { finding: "x", ruling: "Withdrawn" },
      { finding: "x", ruling: "upheld", reason: 1 },
      "x",
    ])
      expect(reasons({ rulings: [{ finding: "a", ruling: "upheld" }, ruling] })[0]).toMatch(/^rulings\[1\]: must be \{finding/);
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
          verdict: fc.oneof(field, fc.constantFrom("satisfied", "issues")),
          blocking_findings: field,
          findings: fc.oneof(field, fc.array(fc.oneof(fc.constant(" "), fc.constant(""), fc.jsonValue()))),
          rulings: fc.oneof(
            field,
            fc.array(
              fc.record(
                {
                  finding: fc.oneof(fc.string(), fc.constant(" "), fc.integer()),
                  ruling: fc.constantFrom("upheld", "withdrawn", "Withdrawn", 1),
                  reason: fc.oneof(fc.string(), fc.constant(null)),
                },
                { requiredKeys: [] },
              ),
            ),
          ),
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

describe("the result reader and the answer reader (§8.1, §9): one rule over what the gate reads", () => {
  // verify-gate-pass and the verifier read result files; the normaliser reads a reviewer's answer. An answer the bus
  // would refuse as malformed must never pass as a result file, under either stop policy, force-pass or not.
  const ctx: EnvelopeContext = {
    packetId: "p",
    artifactSha256: SHA_A,
    round: 1,
    reviewerHost: "codex",
    reviewerModel: "gpt-5",
    reviewerModelSource: "requested",
  };
  const any = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(" "), fc.string({ maxLength: 8 }), fc.integer(), fc.object());
  const finding = fc.oneof(
    fc.constant(""),
    fc.constant(" "),
    fc.string({ maxLength: 8 }),
    fc.constant(null),
    fc.integer(),
    fc.record({ severity: fc.constantFrom("blocking", "info", "Blocking"), title: fc.constantFrom("t", " ") }, { requiredKeys: [] }),
  );
  const list = fc.oneof(any, fc.array(finding, { maxLength: 3 }), fc.constant([]));
  const ruling = fc.oneof(
    any,
    fc.record(
      {
        finding: fc.constantFrom("t", " ", 3),
        ruling: fc.constantFrom("upheld", "withdrawn", "Withdrawn"),
        reason: fc.constantFrom("r", null),
      },
      { requiredKeys: [] },
    ),
  );
  it("whatever the answer reader refuses, verify-gate-pass does not pass", () => {
    fc.assert(
      fc.property(
        fc.record({
          verdict: fc.oneof(fc.constantFrom("satisfied", "issues", "Satisfied", "meh"), any),
          blocking_findings: list,
          findings: list,
          rulings: fc.oneof(any, fc.array(ruling, { maxLength: 3 })),
          score: fc.constantFrom(undefined, 9, "9"),
          readiness: fc.constantFrom(undefined, "ready", "Ready"),
        }),
        fc.constantFrom("verdict", "score"),
        fc.boolean(),
        (fields, stop, forcePass) => {
          const obj = { packet_id: "p", artifact_sha256_reviewed: SHA_A, ...fields };
          const raw = JSON.stringify(obj);
          if (normalizeOutput(raw, ctx).ok) return;
          const report = oneResultPass({ resultRaw: raw, artifactSha256: SHA_A, packetId: "p", forcePass }, stop);
          expect(report.pass).toBe(false);
          // and the reason is the reader's, not a later condition's
          expect(report.conditions.parses).toBe(false);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
