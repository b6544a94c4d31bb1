// Option values checked as commander parses them: a bad one is a one-line usage error before any work is done.
import { InvalidArgumentError } from "commander";
import { wholeNumberText } from "../core/whole-number.js";
import { FAMILIES } from "../spec/constants.js";
import type { QuorumRule } from "../spec/schemas.js";

/** Timers take at most this many milliseconds (Node turns a larger delay into 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A whole number from min to max, written in decimal digits. */
export function intArg(min: number, max = MAX_TIMER_MS): (value: string) => number {
  return (value) => {
    const n = wholeNumberText(value, min, max);
    if (n === null) throw new InvalidArgumentError(`Expected a whole number from ${min} to ${max}.`);
    return n;
  };
}

/** A positive number of seconds (fractions allowed). */
export function secondsArg(value: string): number {
  const n = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n > 0) || n * 1000 > MAX_TIMER_MS)
    throw new InvalidArgumentError(`Expected a positive number of seconds, at most ${Math.floor(MAX_TIMER_MS / 1000)}.`);
  return n;
}

/** Text that is not blank. */
export function nonBlankArg(value: string): string {
  if (!value.trim()) throw new InvalidArgumentError("It must not be blank.");
  return value;
}

/**
 * `--quorum`: `K/N` (K of N reviewers of distinct families), the families that must pass (`openai+google`), or
 * both (`2/3:openai+google`). Coherence (K ≤ N, …) is the request schema's to judge. Read in the action, as the
 * other choices are, so a repeated flag is reported as one before its value is judged.
 */
export function parseQuorum(value: string): QuorumRule {
  const m = /^(?:(\d)\/(\d))?(?::?((?:[a-z]+\+?)+))?$/.exec(value.trim());
  const families = m?.[3]?.split("+").filter(Boolean) ?? [];
  const unknown = families.filter((f) => !(FAMILIES as readonly string[]).includes(f));
  if (!m || (!m[1] && !families.length) || unknown.length)
    throw new Error(
      `--quorum ${JSON.stringify(value)}: expected K/N (2/3), families (openai+google) or both (2/3:openai+google)` +
        (unknown.length ? `; unknown family ${unknown.join(", ")} (one of ${FAMILIES.join(", ")})` : "") +
        ".",
    );
  const need = m[1] ? Number(m[1]) : families.length;
  return { need, of: m[2] ? Number(m[2]) : need, ...(families.length ? { families: families as QuorumRule["families"] } : {}) };
}
