// The one reader of a time a foreign writer dates a file with (SPEC §0): ISO-8601's extended date and time, a "." or
// "," decimal fraction, and a zone. A time's precision is kept, so it is compared at the precision it was written at.

/** A time as written: its first millisecond and how long the written precision spans (1000 for whole seconds). */
export interface IsoTime {
  ms: number;
  precisionMs: number;
}

const ISO_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** The time `text` names, or why it names none. A time without a zone is refused: whose local time it is is unknown. */
export function parseIsoTime(text: string): IsoTime | { problem: string } {
  const m = ISO_TIME_RE.exec(text);
  if (!m) return { problem: "not an ISO-8601 time (YYYY-MM-DDThh:mm[:ss[.fff]] and a zone, Z or ±hh:mm)" };
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  if (z === undefined && sign === undefined) return { problem: "an ISO-8601 time without a zone (add Z or ±hh:mm)" };
  const n = (v: string | undefined) => Number(v ?? 0);
  const fields = [n(y), n(mo) - 1, n(d), n(h), n(mi), n(s)] as const;
  const at = new Date(Date.UTC(...fields));
  const roundTrip = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()];
  if (roundTrip.some((v, i) => v !== fields[i]) || n(oh) > 23 || n(om) > 59) return { problem: "not a time (a field is out of range)" };
  const digits = frac?.length ?? 0;
  const precisionMs = s === undefined ? 60_000 : digits >= 3 ? 1 : 1000 / 10 ** digits;
  const fraction = frac === undefined ? 0 : Number(frac.padEnd(3, "0").slice(0, 3));
  const offset = sign === undefined ? 0 : (sign === "-" ? -1 : 1) * (n(oh) * 60 + n(om)) * 60_000;
  return { ms: at.getTime() + fraction - offset, precisionMs };
}

/** Whether `a` ends before `b` begins when `b` is read at `a`'s precision (a time cut short says less, not earlier). */
export function before(a: IsoTime, b: IsoTime): boolean {
  return a.ms < Math.floor(b.ms / a.precisionMs) * a.precisionMs;
}

/** The first millisecond of the time `text` names, or null when it names none (no zone, a field out of range…). */
export function isoTimeMs(text: string | null | undefined): number | null {
  const t = text ? parseIsoTime(text) : null;
  return t && "ms" in t ? t.ms : null;
}
