import { sha256Hex } from "./sha.js";
import { cutText, textOf } from "./text-of.js";

// Reading a finding out of a result, once: results come from any reviewer or foreign tool, so a finding may be an
// object with any of several title keys, a bare string, or something else entirely.

export interface FindingView {
  title: string;
  severity?: string;
  detail?: string;
  evidence?: string;
  /** The finding's own object (empty for a bare value), for readers that keep its other keys. */
  fields: Record<string, unknown>;
}

const TITLE_KEYS = ["title", "finding", "summary", "detail"] as const;

/** At most this many findings of a round are copied into later packets and the trail; the rest are counted. */
export const MAX_LISTED_FINDINGS = 50;

export function findingView(value: unknown): FindingView {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    const text = (k: string) => (typeof fields[k] === "string" ? (fields[k] as string) : undefined);
    const title = TITLE_KEYS.map(text).find((x) => x?.trim());
    return {
      title: title ?? cutText(JSON.stringify(fields), 200),
      severity: text("severity"),
      detail: text("detail"),
      evidence: text("evidence"),
      fields,
    };
  }
  return { title: typeof value === "string" && value.trim() ? value : textOf(value), fields: {} };
}

/** The findings of a result field, the first MAX_LISTED_FINDINGS of them; anything not a list has none. */
export function listedFindings(list: unknown): { findings: FindingView[]; more: number } {
  if (!Array.isArray(list)) return { findings: [], more: 0 };
  return { findings: list.slice(0, MAX_LISTED_FINDINGS).map(findingView), more: Math.max(0, list.length - MAX_LISTED_FINDINGS) };
}

/**
 * The findings a reader lists for a result: its `blocking_findings`, then each of its `findings` whose title none of
 * them has. A reviewer may list a blocker in blocking_findings alone (beside an empty or partial `findings`): the gate
 * counts it (SPEC §11 condition 5), so every face that shows the author what to fix must show it too, as a blocker
 * even where `findings` gives the same title a lower severity.
 */
export function shownFindings(result: { blocking_findings?: unknown; findings?: unknown } | null | undefined): unknown[] {
  return unionByTitle(listOf(result?.blocking_findings), listOf(result?.findings));
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** `first`, then each item of `then` whose title none of `first` has: one finding listed in both lists counts once. */
function unionByTitle(first: unknown[], then: unknown[]): unknown[] {
  const titles = new Set(first.map((f) => normalised(findingView(f).title)));
  return [...first, ...then.filter((f) => !titles.has(normalised(findingView(f).title)))];
}

/** At most this many blocking-finding keys are kept in a verdict (the schema's bound). */
export const MAX_FINDING_KEYS = 200;

/** Case, width, punctuation and spacing differences do not make a finding new. */
function normalised(text: string | undefined): string {
  return (text ?? "")
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Whether a ruling's `finding` names this finding: its title or its id, compared as findingKey compares text. */
export function namesFinding(name: unknown, f: FindingView): boolean {
  const named = normalised(typeof name === "string" ? name : undefined);
  const id = typeof f.fields.id === "string" ? normalised(f.fields.id) : "";
  return named !== "" && (named === normalised(f.title) || named === id);
}

/** A finding's identity across rounds: its normalised title and evidence, hashed (16 hex). */
export function findingKey(f: Pick<FindingView, "title" | "evidence">): string {
  return sha256Hex(`${normalised(f.title)}\n${normalised(f.evidence)}`).slice(0, 16);
}

/** The distinct keys of a result's blocking findings, sorted; only the first MAX_FINDING_KEYS findings count. */
export function blockingKeys(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return [...new Set(list.slice(0, MAX_FINDING_KEYS).map((f) => findingKey(findingView(f))))].sort();
}

/**
 * What a reader does not see in a word, or strips around it: white space, control, format and other default-ignorable
 * characters (a BOM, a zero-width space inside "block\u200bing", a variation selector, a Hangul filler).
 */
const UNSEEN_IN_A_WORD = /[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * A severity as the gate reads it (SPEC §11), and as the bus writes it when it completes an answer: the word a reader
 * sees, once compatibility forms are folded (NFKC: full-width "ＢＬＯＣＫＩＮＧ") and every unseen character dropped, in
 * lower case; null for a non-string. One reading for both, so no reader finds a blocker the gate missed.
 */
export function severityWord(severity: unknown): string | null {
  return typeof severity === "string" ? severity.normalize("NFKC").replace(UNSEEN_IN_A_WORD, "").toLowerCase() : null;
}

/** Whether a finding is marked blocking by its severity (the gate counts such a finding as a blocker, SPEC §11). */
export function hasBlockingSeverity(value: unknown): boolean {
  const severity = value && typeof value === "object" ? (value as { severity?: unknown }).severity : undefined;
  return severityWord(severity) === "blocking";
}

/**
 * Everything a result holds as blocking: its blocking_findings, then each finding of severity "blocking" whose title
 * none of them has (condition 5 counts both). What the author may contest, and a ruling round must rule on, is all of
 * it: a blocker listed only among the findings is no less one.
 */
export function blockingItems(result: { blocking_findings?: unknown; findings?: unknown } | null | undefined): unknown[] {
  return unionByTitle(listOf(result?.blocking_findings), listOf(result?.findings).filter(hasBlockingSeverity));
}
