// The score condition (ARIS's stop rule) of one result, a pure function of the result's fields. Kept apart from
// gate-pass.ts so that verify-gate-pass does not load zod.
import type { Readiness, ScoreGate } from "../spec/schemas.js";
import { shown, textOf } from "./text-of.js";

/** score ≥ 6 out of 10, inclusive, AND readiness ready or almost. */
export const SCORE_THRESHOLD = 6;

const READINESS: readonly Readiness[] = ["ready", "almost", "not ready"];

/** A readiness word as a reviewer may spell it ("Almost", " not ready"), or null. */
export function toReadiness(value: unknown): Readiness | null {
  if (typeof value !== "string") return null;
  const v = value.trim().toLowerCase();
  return (READINESS as readonly string[]).includes(v) ? (v as Readiness) : null;
}

/**
 * From the fields the bus's normalizer wrote (or a foreign writer gave): a score that is not a finite number within
 * 1–10, a readiness outside the three words, or any recorded parse problem makes it unavailable, and an unavailable
 * score is never positive.
 */
export function evaluateScoreGate(result: Record<string, unknown>): ScoreGate {
  // read as SPEC says, and no looser than a reader of the file alone would: any problem recorded, in any shape, counts
  const given = result.score_problems;
  const reasons =
    given === undefined || given === null
      ? []
      : Array.isArray(given)
        ? given.map(textOf)
        : [`score_problems must be a list of strings (got ${shown(given)})`];
  const raw = result.score;
  const score = typeof raw === "number" && Number.isFinite(raw) ? raw : null;
  if (raw === undefined) reasons.push("no score reported");
  else if (score === null) reasons.push(`score must be a finite number (got ${shown(raw)})`);
  else if (score < 1 || score > 10) reasons.push(`score ${score} is outside 1–10`);
  // the file holds the word as the normalizer writes it; only a reviewer's own spelling is read leniently (toReadiness)
  const readiness = (READINESS as readonly unknown[]).includes(result.readiness) ? (result.readiness as Readiness) : null;
  if (result.readiness === undefined) reasons.push("no readiness reported");
  else if (readiness === null) reasons.push(`readiness must be ready, almost or not ready (got ${shown(result.readiness)})`);
  const available = reasons.length === 0;
  const positive = available && score! >= SCORE_THRESHOLD && (readiness === "ready" || readiness === "almost");
  if (available && !positive)
    reasons.push(
      `score ${score}/10, readiness ${readiness}: the gate needs a score of at least ${SCORE_THRESHOLD} and readiness ready or almost`,
    );
  return { score, readiness, available, positive, reasons };
}
