// A worker's presence file body (SPEC §18): one JSON object whose fields each say one thing — a reviewer worker's
// advertisement (host, providers), the gates it keeps failing to move (stuck), when it last looked at everything it
// watches (looked). Pure: the writing is runtime/reconciler.ts, the reading runtime/peers.ts.

/** `base` (a body, or null: none) with `fields` set; a body of another shape says nothing more than them. */
export function withFields(base: string | null, fields: Record<string, unknown>): string {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = base === null ? {} : JSON.parse(base);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // a body of another shape
  }
  return JSON.stringify({ ...body, ...fields }) + "\n";
}

/** The body with `looked` (ms since the epoch, on the worker's clock) said as an ISO time; `base` before any look. */
export function withLooked(base: string | null, looked: number | null): string | null {
  return looked === null ? base : withFields(base, { looked: new Date(looked).toISOString() });
}

/** When the worker whose body this is last looked at everything it watches (ms since the epoch); null if it does not say. */
export function lookedIn(text: string): number | null {
  try {
    const looked: unknown = (JSON.parse(text) as { looked?: unknown } | null)?.looked;
    const ms = typeof looked === "string" ? Date.parse(looked) : NaN;
    return Number.isFinite(ms) ? ms : null;
  } catch {
    return null;
  }
}
