// Text that reviewers, foreign tools and file names put before a person — on a terminal, in `cat trail.md`, in an MCP
// host — with every control character but newline and tab (C0, DEL, C1) and every bidirectional control shown as a
// \u escape (ESC as \u001b): a finding title or a reviewer's stderr cannot rewrite a line, hide the rest, set the
// window title, or reorder what is read. JSON stays JSON: inside a string the same escape decodes to the same character.
// Invisible characters a person never sees but a model reads are shown too: every default-ignorable one (zero-width
// space, word joiner and the invisible operators, the BOM, soft hyphen, variation selectors, Hangul fillers, and the
// Unicode tag characters U+E0000–U+E007F, each an invisible copy of an ASCII character: a finding could carry a whole
// sentence to the author model that its user cannot see in the host), but the joiners and the emoji selector that
// everyday text uses (U+200C, U+200D, U+FE0F).
/* eslint-disable no-control-regex -- finding control characters is the point */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|(?!\u200c|\u200d|\ufe0f)\p{Default_Ignorable_Code_Point}/gu;
/* eslint-enable no-control-regex */

/** Each UTF-16 unit of c as a \u escape: JSON's own form, so an escaped astral character still decodes to itself. */
const escaped = (c: string) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** LF, CR, NEL and the Unicode line and paragraph separators: where a terminal or a reader starts a new line. */
const LINE_BREAKS = /[\n\r\u0085\u2028\u2029]/g;

/**
 * Text printed within one line of output (a status fact, a `check` line, a wait note) with its line breaks shown as
 * \u escapes too, as terminalSafe shows the other controls: a planted name or reason cannot print a line of its own.
 */
export function lineSafe(text: string): string {
  return text.replace(LINE_BREAKS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Lines a host shows to a person (an MCP tool's text, the stop hook's reason): each item kept to one line, then the
 * whole terminal-safe — a title holding a line break cannot add a line the reader takes for the bus's own. */
export function shownLines(lines: readonly string[]): string {
  return terminalSafe(lines.map(lineSafe).join("\n"));
}

/** The value with every string in it (keys too) terminal-safe: JSON a host decodes and shows to a person. */
export function safeStrings<T>(value: T): T {
  if (typeof value === "string") return terminalSafe(value) as T;
  if (Array.isArray(value)) return value.map(safeStrings) as T;
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [terminalSafe(k), safeStrings(v)])) as T;
  return value;
}
