// Capability fallback follows only an explicit refusal of the requested effort or model, given before any review ran.
// Anything that also smells of a rate limit, auth, transport, timeout or server trouble is never one: a retry there
// could run (and bill) a second review of a request that may have gone through.
import type { CapabilityError } from "../spec/schemas.js";

const NEVER_RE =
  /\b(?:429|401|403|5\d\d)\b|rate.?limit|quota|too many requests|timed? ?out|timeout|unauthori[sz]ed|forbidden|authenticat|credential|api key|overloaded|capacity|temporarily|currently unavailable|connection|network|socket|econn|stream|context.?length|parse/i;
const EFFORT_SUBJECT_RE = /\beffort\b|reasoning[._-]effort/i;
const EFFORT_REFUSAL_RE = /does not support|not supported|unsupported|invalid value|unknown variant|not one of|is not valid/i;
const MODEL_SUBJECT_RE = /\bmodel\b|model_not_found/i;
const MODEL_REFUSAL_RE =
  /does not exist|may not exist|not found|model_not_found|unknown model|no such model|is not supported|not available|not accessible|invalid model/i;

/** The capability a refusal message names, judged line by line; undefined unless it is explicit. */
export function capabilityError(text: string): CapabilityError | undefined {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.some((l) => NEVER_RE.test(l))) return undefined;
  if (lines.some((l) => EFFORT_SUBJECT_RE.test(l) && EFFORT_REFUSAL_RE.test(l))) return "effort_unsupported";
  // "Model metadata for X not found" is codex's warning about its own catalog, not a refusal
  if (lines.some((l) => MODEL_SUBJECT_RE.test(l) && MODEL_REFUSAL_RE.test(l) && !/metadata/i.test(l))) return "model_unknown";
  return undefined;
}
