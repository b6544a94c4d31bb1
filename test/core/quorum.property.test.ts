// The quorum rule (SPEC §26) against a reference model, and the merged findings the author would see.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findingKey, type FindingView } from "../../src/core/findings.js";
import { judgeQuorum, mergeFindings, type QuorumMember } from "../../src/core/quorum.js";
import type { Family } from "../../src/spec/schemas.js";

const FAMILY: Family[] = ["openai", "anthropic", "google", "deepseek", "unknown"];
const SHAS = ["a".repeat(64), "b".repeat(64)];
const member = fc.record({
  provider: fc.constantFrom("p1", "p2", "p3", "p4", "p5", "p6"),
  family: fc.constantFrom(...FAMILY),
  passed: fc.boolean(),
  violation: fc.boolean(),
  blocking: fc.boolean(),
  sha: fc.option(fc.constantFrom(...SHAS), { nil: null }),
});
const rule = fc.record({
  need: fc.integer({ min: 1, max: 4 }),
  families: fc.option(fc.uniqueArray(fc.constantFrom(...FAMILY), { maxLength: 2 }), { nil: undefined }),
});

/** Whose pass counts, stated here rather than asked of the code under test: a known family other than the author's,
 * from a verdict that sealed no independence violation. */
const counts = (author: Family, m: Pick<QuorumMember, "family" | "violation">) =>
  m.family !== "unknown" && m.family !== author && !m.violation;

/** The rule stated directly: no blocker, and on one sha enough distinct counting families, the required among them. */
function model(r: { need: number; families?: Family[] }, author: Family, members: QuorumMember[]): boolean {
  if (members.some((m) => m.blocking)) return false;
  return SHAS.some((sha) => {
    const fams = new Set(members.filter((m) => m.passed && m.sha === sha && counts(author, m)).map((m) => m.family));
    return fams.size >= r.need && (r.families ?? []).every((f) => fams.has(f));
  });
}

describe("quorum rule", () => {
  it("passes exactly when the model does; what it counts is K distinct non-author families passing on one sha", () => {
    fc.assert(
      fc.property(rule, fc.constantFrom(...FAMILY), fc.array(member, { maxLength: 7 }), (r, author, members) => {
        const j = judgeQuorum(r, author, members);
        expect(j.pass).toBe(model(r, author, members));
        const families = j.counted.map((c) => c.family);
        expect(new Set(families).size).toBe(families.length);
        for (const c of j.counted)
          expect(
            members.some((m) => m.provider === c.provider && m.family === c.family && m.passed && m.sha === j.sha && counts(author, m)),
          ).toBe(true);
        if (j.pass) expect(j.counted.length).toBeGreaterThanOrEqual(r.need);
        else expect(j.missingCount > 0 || j.blockedBy.length > 0).toBe(true);
        expect(j.blockedBy).toEqual(members.filter((m) => m.blocking).map((m) => m.provider));
      }),
      { numRuns: 2000 },
    );
  });

  it("the order of the reviewers changes nothing; a blocking reviewer always closes the round", () => {
    fc.assert(
      fc.property(rule, fc.constantFrom(...FAMILY), fc.array(member, { maxLength: 6 }), member, (r, author, members, extra) => {
        const j = judgeQuorum(r, author, members);
        const reversed = judgeQuorum(r, author, [...members].reverse());
        expect([reversed.pass, reversed.missingCount, reversed.missingFamilies]).toEqual([j.pass, j.missingCount, j.missingFamilies]);
        expect(judgeQuorum(r, author, [...members, { ...extra, blocking: true }]).pass).toBe(false);
      }),
    );
  });

  it("names what is missing: the required families, or how many more families", () => {
    const m = (provider: string, family: Family): QuorumMember => ({
      provider,
      family,
      passed: true,
      violation: false,
      blocking: false,
      sha: SHAS[0]!,
    });
    expect(
      judgeQuorum({ need: 2, families: ["openai", "google"] }, "anthropic", [m("codex", "openai"), m("ds", "deepseek")]),
    ).toMatchObject({
      pass: false,
      missingFamilies: ["google"],
      missingCount: 1,
    });
    // two reviewers of one family are one family; the author's family never counts
    expect(judgeQuorum({ need: 2 }, "anthropic", [m("codex", "openai"), m("gpt", "openai"), m("claude", "anthropic")])).toMatchObject({
      pass: false,
      missingCount: 1,
      counted: [{ provider: "codex", family: "openai" }],
    });
    // a rule that requires the author's own family can never pass
    expect(judgeQuorum({ need: 1, families: ["anthropic"] }, "anthropic", [m("claude", "anthropic"), m("codex", "openai")]).pass).toBe(
      false,
    );
    // passes on different bytes do not add up
    const other = { ...m("gem", "google"), sha: SHAS[1]! };
    expect(judgeQuorum({ need: 2 }, "anthropic", [m("codex", "openai"), other]).pass).toBe(false);
    expect(judgeQuorum({ need: 2 }, "anthropic", [m("codex", "openai"), m("gem", "google")])).toMatchObject({ pass: true, sha: SHAS[0] });
    // a member whose verifier sealed a violation never counts, whatever family its verdict names
    expect(judgeQuorum({ need: 2 }, "anthropic", [m("codex", "openai"), { ...m("gem", "google"), violation: true }])).toMatchObject({
      pass: false,
      missingCount: 1,
      counted: [{ provider: "codex", family: "openai" }],
    });
  });
});

describe("merged findings", () => {
  const finding = fc.record({
    title: fc.constantFrom("Lane B unproven", "lane b UNPROVEN.", "No rollback", "Missing owner"),
    evidence: fc.option(fc.constantFrom("plan.md §2", "plan.md  §2", "runbook"), { nil: undefined }),
  });
  it("one entry per finding key, each with every reviewer that raised it", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ provider: fc.constantFrom("codex", "gem", "ds"), findings: fc.array(finding, { maxLength: 4 }) }), {
          maxLength: 4,
        }),
        (per) => {
          const views = per.map((r) => ({ provider: r.provider, findings: r.findings.map((f): FindingView => ({ ...f, fields: {} })) }));
          const merged = mergeFindings(views);
          const keys = merged.map(findingKey);
          expect(new Set(keys).size).toBe(keys.length);
          for (const r of views)
            for (const f of r.findings) {
              const entry = merged.find((e) => findingKey(e) === findingKey(f))!;
              expect(entry.raised_by).toContain(r.provider);
            }
          for (const e of merged) {
            const raisers = views.filter((r) => r.findings.some((f) => findingKey(f) === findingKey(e))).map((r) => r.provider);
            expect(new Set(e.raised_by)).toEqual(new Set(raisers));
          }
        },
      ),
    );
  });
});
