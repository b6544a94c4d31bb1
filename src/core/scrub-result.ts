// Free text in a review result (summary, findings) goes through the one scrubber before it is written; the
// bindings and identity fields stay byte-exact.
import { scrub } from "./scrub.js";
import type { ReviewResultStrict } from "../spec/schemas.js";

const EXACT_FIELDS = new Set(["schema_version", "packet_id", "artifact_sha256_reviewed", "verdict", "reviewer_model", "reviewer_host"]);

export function scrubResult(result: ReviewResultStrict, patterns: string[] | undefined): ReviewResultStrict {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === "string") return key && EXACT_FIELDS.has(key) ? v : scrub(v, { customPatterns: patterns });
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(result) as ReviewResultStrict;
}
