// What makes a quorum rule coherent, stated once: the request schema refines with it and the policy resolver checks
// a rule assembled from settings with it (neither K above N, nor a named family twice, unknown, or beyond K).

export interface QuorumShape {
  need: number;
  of: number;
  families?: readonly string[];
}

/** Why a quorum rule cannot be served as written; null when it is coherent. */
export function quorumProblem(q: QuorumShape): string | null {
  const named = q.families ?? [];
  if (q.need > q.of) return `need ${q.need} exceeds of ${q.of} (K of N)`;
  if (named.length > q.need) return `${named.length} families named but need is ${q.need}: name at most K families`;
  if (new Set(named).size !== named.length) return "a family is named twice";
  if (named.includes("unknown")) return "unknown is not a family a quorum can require";
  return null;
}
