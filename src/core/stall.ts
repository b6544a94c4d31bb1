// Stall detection (SPEC §14.1): a loop that stopped making progress is escalated `stalled` before the cap, with the
// rounds that show it. Pure questions of the snapshot; decide() asks them where a round ends and where a resubmit
// would issue the next packet.
import type { StallEvidence, StopPolicy } from "../spec/schemas.js";
import type { GateSnapshot } from "./snapshot.js";
import { roundMembers, roundPacket, roundVerdicts } from "./gate-queries.js";
import { largest, smallest } from "./extremes.js";
import { namesItsPacket, verdictBlocks } from "./verdict-pass.js";

/** The artifact bytes as decide() sees them. */
export interface Bytes {
  sha: string;
  rawSha: string;
}

/**
 * The rounds whose verdict the author was handed, one per counted round, oldest first, ending at round R: each
 * counted round's last round with a verdict on the bytes it was issued for. Only rounds after the latest `stalled`
 * escalation count: once a human answered a stall, detection starts afresh.
 */
export function judgedChain(s: GateSnapshot, R: number): number[] {
  const floor = largest(
    [...s.escalations.values()].filter((e) => e.reason === "stalled" && e.round < R).map((e) => e.round),
    0,
  );
  const last = new Map<number, number>();
  for (let round = floor + 1; round <= R; round++) {
    const judged = roundJudgement(s, round);
    const p = roundPacket(s, round);
    if (!p || !judged?.parses || !judged.shaMatch) continue;
    if ((last.get(p.counted_round) ?? 0) < round) last.set(p.counted_round, round);
  }
  const top = roundPacket(s, R)?.counted_round;
  if (top === undefined || last.get(top) !== R) return [];
  const chain: number[] = [];
  for (let c = top; last.has(c); c--) chain.unshift(last.get(c)!);
  return chain;
}

/**
 * What a round's verdicts say, together: a quorum round's blocking keys are every member's (merged, §26), its score
 * the lowest; it matched the bytes only when every member's verdict did. It was judged (`parses`) when a verdict
 * blocks — the round failed on it and the author was handed its findings, whatever the other members did (§26 rule
 * 2) — or when every member has a verdict and each parses. A score only when every member has one: the lowest of
 * some members' is not the round's. null before any verdict.
 */
export function roundJudgement(
  s: GateSnapshot,
  round: number,
): { parses: boolean; shaMatch: boolean; blockingKeys: string[]; score: number | null } | null {
  const verdicts = roundVerdicts(s, round);
  if (!verdicts.length) return null;
  const scores = verdicts.map((v) => (v.score_gate?.available && v.score_gate.score !== null ? v.score_gate.score : null));
  const whole = s.verdicts.has(round) || verdicts.length === roundMembers(s, round).length;
  const blocks = verdicts.some((v) => namesItsPacket(v) && verdictBlocks(v));
  return {
    parses: blocks || (whole && verdicts.every((v) => v.gate_pass.conditions.parses)),
    shaMatch: verdicts.every((v) => v.gate_pass.conditions.sha256_match),
    blockingKeys: [...new Set(verdicts.flatMap((v) => v.blocking_keys ?? []))].sort(),
    score: !whole || scores.includes(null) ? null : smallest(scores as number[]),
  };
}

const sameKeys = (a: string[] | undefined, b: string[] | undefined) =>
  a !== undefined && b !== undefined && a.length > 0 && a.length === b.length && a.every((k, i) => k === b[i]);

/** A round that did not pass, after it was judged: the same blocking findings as the round before, or a falling score. */
export function stallAfterVerdict(s: GateSnapshot, R: number, stop: StopPolicy): StallEvidence | null {
  const chain = judgedChain(s, R);
  const keys = (r: number) => roundJudgement(s, r)?.blockingKeys;
  let i = chain.length - 1;
  while (i > 0 && sameKeys(keys(chain[i - 1]!), keys(R))) i--;
  if (i < chain.length - 1) {
    const rounds = chain.slice(i);
    return { pattern: "repeated_findings", since_round: rounds[0]!, rounds };
  }
  if (stop !== "score") return null;
  const score = (r: number) => roundJudgement(s, r)?.score ?? null;
  let j = chain.length - 1;
  while (j > 0 && score(chain[j]!) !== null && score(chain[j - 1]!) !== null && score(chain[j - 1]!)! > score(chain[j]!)!) j--;
  // two regressions in a row: three rounds, each scored lower than the one before
  if (chain.length - 1 - j < 2) return null;
  const rounds = chain.slice(j);
  return { pattern: "score_regression", since_round: rounds[0]!, rounds, scores: rounds.map((r) => score(r)!) };
}

/** A resubmit after round R, before its packet: the same bytes again, or the bytes of the round before it back. */
export function stallAtResubmit(s: GateSnapshot, R: number, now: Bytes): StallEvidence | null {
  const same = (r: number) => {
    const p = roundPacket(s, r)!;
    return p.artifact_sha256 === now.sha && (p.artifact_raw_sha256 === undefined || p.artifact_raw_sha256 === now.rawSha);
  };
  const sha = (r: number) => roundPacket(s, r)!.artifact_sha256;
  if (same(R)) return { pattern: "unchanged_resubmit", since_round: R, rounds: [R], artifact_sha256: [sha(R), now.sha] };
  const chain = judgedChain(s, R);
  const before = chain.length >= 2 ? chain[chain.length - 2]! : null;
  if (before !== null && same(before))
    return { pattern: "alternating_versions", since_round: before, rounds: [before, R], artifact_sha256: [sha(before), sha(R), now.sha] };
  return null;
}

/** The escalation's detail line for a stall. */
export function stallDetail(e: StallEvidence): string {
  const rounds = e.rounds.join(", ");
  switch (e.pattern) {
    case "repeated_findings":
      return `stalled: the same blocking findings were raised in rounds ${rounds} (since round ${e.since_round}), after the author revised`;
    case "unchanged_resubmit":
      return (
        `stalled: the author resubmitted after round ${e.since_round}, ` +
        `but the artifact bytes did not change (sha256 ${e.artifact_sha256![1]})`
      );
    case "score_regression":
      return `stalled: the score fell two rounds in a row (rounds ${rounds}: ${e.scores!.join(" → ")}, since round ${e.since_round})`;
    case "alternating_versions":
      return (
        `stalled: the resubmit after round ${e.rounds[1]} restores the bytes round ${e.since_round} reviewed and did not pass ` +
        `(sha256 ${e.artifact_sha256![0]}): author and reviewer alternate between two versions`
      );
  }
}
