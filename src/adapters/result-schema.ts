// review_result.v1 as a strict JSON Schema for structured outputs (codex --output-schema, HTTP response_format).
import * as z from "zod/mini";
import { Readiness, ReviewResultStrict, Ruling } from "../spec/schemas.js";

/**
 * The fields a reviewer writes (the bus fills round and identity), taken from the strict result schema. The mode
 * fields are nullable rather than optional: strict structured outputs require every property, and the normalizer
 * reads null as "not given".
 */
const REVIEWER_FIELDS = z.extend(
  z.pick(ReviewResultStrict, {
    schema_version: true,
    packet_id: true,
    artifact_sha256_reviewed: true,
    verdict: true,
    summary: true,
    findings: true,
    blocking_findings: true,
  }),
  {
    score: z.nullable(z.number()),
    readiness: z.nullable(Readiness),
    memory_update: z.nullable(z.string()),
    rulings: z.nullable(z.array(Ruling)),
  },
);

export type JsonSchema = { [key: string]: unknown };

/** Keywords structured-output implementations reject or ignore; validation is the normalizer's job anyway. */
const DROP_KEYWORDS = new Set(["$schema", "pattern", "format", "minLength", "maxLength", "title", "description", "default"]);

function strictify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictify);
  if (!node || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (DROP_KEYWORDS.has(key)) continue;
    if (key === "const") out.enum = [value];
    else if (key === "properties")
      out.properties = Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, strictify(v)]));
    else out[key] = strictify(value);
  }
  if (out.type === "object" && out.properties) {
    // OpenAI strict mode: every property listed as required, nothing else allowed.
    out.required = Object.keys(out.properties as JsonSchema);
    out.additionalProperties = false;
  }
  return out;
}

/**
 * review_result.v1 as a JSON Schema for OpenAI structured outputs (strict: closed objects, every property required),
 * derived from src/spec/schemas.ts so it cannot drift from what the normalizer accepts.
 */
export function reviewOutputSchema(): JsonSchema {
  return strictify(z.toJSONSchema(REVIEWER_FIELDS, { io: "input", unrepresentable: "any" })) as JsonSchema;
}
