// Gates a worker keeps failing to move (a fault the system does not clear by itself, a bug): the worker says so in its
// presence file, so `status`, `wait` and the console name the worker and its error instead of a plain "waiting for the
// verifier" while it retries (SPEC §18). Pure: the writing is runtime/reconciler.ts, the reading runtime/peers.ts.
import { withFields } from "./presence-body.js";
import { lineSafe, terminalSafe } from "./terminal-safe.js";

/** A gate a live worker has failed to handle this many times in a row: one failure may be a passing race. */
export const STUCK_AFTER_TRIES = 2;
/** The most gates one presence file names, and the longest error kept for each: the file is read at every status. */
const MAX_STUCK = 5;
const MAX_ERROR_CHARS = 300;
const shown = (text: string) => terminalSafe(lineSafe(text));

export interface StuckGate {
  run_id: string;
  gate: string;
  tries: number;
  /** When the first failure in a row happened (ISO time, the worker's clock). */
  since: string;
  error: string;
}

/** The presence file's body with `stuck` added (a reviewer's advertisement keeps its fields); `base` when none is. */
export function withStuckGates(base: string | null, stuck: readonly StuckGate[]): string | null {
  const named = stuck.filter((g) => g.tries >= STUCK_AFTER_TRIES).slice(-MAX_STUCK);
  if (!named.length) return base;
  return withFields(base, { stuck: named.map((g) => ({ ...g, error: g.error.slice(0, MAX_ERROR_CHARS) })) });
}

/** The stuck gates a presence file's body names (none when it names none or is of another shape). */
export function stuckGatesIn(text: string): StuckGate[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  const list = value && typeof value === "object" ? (value as { stuck?: unknown }).stuck : undefined;
  if (!Array.isArray(list)) return [];
  return list.slice(0, MAX_STUCK).flatMap((g: unknown) => {
    const { run_id, gate, tries, since, error } = (g ?? {}) as Record<string, unknown>;
    if (typeof run_id !== "string" || typeof gate !== "string" || typeof since !== "string" || typeof error !== "string") return [];
    if (!Number.isSafeInteger(tries)) return [];
    // shown to a person on one line: a planted body cannot print a line, or an escape, of its own
    return [{ run_id, gate, tries: tries as number, since: shown(since.slice(0, 40)), error: shown(error.slice(0, MAX_ERROR_CHARS)) }];
  });
}
