// Values read from foreign files are shown as text through here: String() of a JSON object whose "toString" key is
// not a function throws, and a handler that throws on a result stalls its gate on every pass.

/** A value as text, never throwing: a string as it is, anything else as its JSON (`undefined` and the like by their kind). */
export function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? typeof value; // undefined, a function, a symbol: only their kind
  } catch {
    return Object.prototype.toString.call(value); // a value JSON cannot hold (a BigInt, a cycle) from our own code
  }
}

/** What Markdown and terminals may take for the end of a line: CR alone counts in CommonMark. */
const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;

/** A line with the breaks in it folded to spaces, its indentation kept: a foreign value cannot start a line of its
 *  own (a heading, a list item). Split, not a whitespace-newline regex: that rescans a run of spaces from each one. */
export function oneLine(line: string): string {
  if (!LINE_BREAK.test(line)) return line;
  const [first, ...rest] = line.split(LINE_BREAK);
  return [first!.trimEnd(), ...rest.map((piece) => piece.trim()).filter(Boolean)].join(" ");
}

/** The first `max` UTF-16 units of a text, never through a surrogate pair: half a character would reach a reader as U+FFFD. */
export function wholeChars(text: string, max: number): string {
  return text.slice(0, /[\uD800-\uDBFF]/.test(text[max - 1] ?? "") ? max - 1 : max);
}

/** What a cut may fall on without splitting a word: white space, and JSON's and prose's punctuation around values. */
const BOUNDARY = /[\s"',:;{}[\]()<>]/;
const WORD_CUT = /[^\s"',:;{}[\]()<>]+$/;

/**
 * Foreign text cut to max characters (and "…"), without the piece of the word the cut goes through: that piece may be
 * a secret's start, which the scrubber, run on the reason later with the project's patterns, no longer knows as one
 * (the start of a `ghp_…` token, of a custom pattern's match).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const kept = text.slice(0, max);
  return `${BOUNDARY.test(text[max]!) ? kept : kept.replace(WORD_CUT, "")}…`;
}

/** A foreign value quoted in a reason as JSON (so on one line), a long one cut to max characters: never echoed whole. */
export function shown(value: unknown, max = 80): string {
  return typeof value === "string" ? JSON.stringify(cutText(value, max)) : cutText(textOf(value), max);
}
