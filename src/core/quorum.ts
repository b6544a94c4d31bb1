// The quorum rule (SPEC §26): a round reviewed by several reviewers passes when K of them, of pairwise
// distinct families none of which is the author's, passed on the same artifact bytes and no reviewer blocks. Pure.
import type { Family } from "../spec/schemas.js";
import { type FindingView, findingKey } from "./findings.js";

export interface QuorumRule {
  /** K: how many distinct families must pass. */
  need: number;
  /** Families that must be among them (a per-gate setting such as G-spec: openai + google); none when absent. */
  families?: Family[];
}

/** One reviewer's round, as its verdict judged it. */
export interface QuorumMember {
  provider: string;
  family: Family;
  /** Its verdict passes the five conditions under the round's stop policy (verdictPasses). */
  passed: boolean;
  /** Its verifier sealed an independence violation: under the settings when it verified (since edited, perhaps), its
   * reviewer is of the author's family or of none (`independence_violation`). */
  violation: boolean;
  /** Its result holds blocking findings (or an upheld contested one). */
  blocking: boolean;
  /** The artifact sha its verdict recomputed; null without a verdict. */
  sha: string | null;
}

export interface QuorumJudgement {
  pass: boolean;
  /** The members whose passes count, one per family, on `sha`. */
  counted: Array<{ provider: string; family: Family }>;
  sha: string | null;
  /** What is still missing: the named families a rule requires, or how many more families. */
  missingFamilies: Family[];
  missingCount: number;
  /** Providers whose blocking findings keep the round closed. */
  blockedBy: string[];
}

/** Whether a family's pass can count for this author: a known family other than the author's. */
export function countsFor(author: Family, family: Family): boolean {
  return family !== "unknown" && family !== author;
}

/** Whether a member's pass counts toward the rule: it passed, on bytes its verdict recomputed, of a family that counts
 * for this author, and without a sealed violation (a single reviewer's is weak; a quorum has no weak members, §26). */
export function memberCounts(author: Family, m: QuorumMember): m is QuorumMember & { sha: string } {
  return m.passed && m.sha !== null && !m.violation && countsFor(author, m.family);
}

export function judgeQuorum(rule: QuorumRule, author: Family, members: QuorumMember[]): QuorumJudgement {
  const blockedBy = members.filter((m) => m.blocking).map((m) => m.provider);
  // a required family that cannot count (the author's, unknown) stays missing: such a rule never passes (fail closed)
  const required = rule.families ?? [];
  // Per artifact sha, the first passing member of each eligible family: passes on different bytes never add up.
  const bySha = new Map<string, Map<Family, string>>();
  for (const m of members) {
    if (!memberCounts(author, m)) continue;
    const families = bySha.get(m.sha) ?? new Map<Family, string>();
    if (!families.has(m.family)) families.set(m.family, m.provider);
    bySha.set(m.sha, families);
  }
  const shortfall = (families: Map<Family, string>) => {
    const missingFamilies = required.filter((f) => !families.has(f));
    return { missingFamilies, missingCount: Math.max(0, rule.need - families.size, missingFamilies.length) };
  };
  let best: { sha: string | null; families: Map<Family, string> } = { sha: null, families: new Map() };
  for (const [sha, families] of [...bySha].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (best.sha === null || shortfall(families).missingCount < shortfall(best.families).missingCount) best = { sha, families };
  }
  const { missingFamilies, missingCount } = shortfall(best.families);
  return {
    pass: missingCount === 0 && blockedBy.length === 0 && best.sha !== null,
    counted: [...best.families].map(([family, provider]) => ({ provider, family })),
    sha: best.sha,
    missingFamilies,
    missingCount,
    blockedBy,
  };
}

/** A finding as the author sees it in a quorum round: the first reviewer's wording, and every reviewer that raised it. */
export type Merged<F> = F & { raised_by: string[] };

/** The reviewers' findings as the author sees them: one entry per finding key, each with who raised it, in order. */
export function mergeFindings<F extends Pick<FindingView, "title" | "evidence">>(
  perReviewer: Array<{ provider: string; findings: F[] }>,
): Array<Merged<F>> {
  const merged = new Map<string, Merged<F>>();
  for (const { provider, findings } of perReviewer) {
    for (const f of findings) {
      const key = findingKey(f);
      const entry = merged.get(key);
      if (!entry) merged.set(key, { ...f, raised_by: [provider] });
      else if (!entry.raised_by.includes(provider)) entry.raised_by.push(provider);
    }
  }
  return [...merged.values()];
}
