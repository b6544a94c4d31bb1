// Character classes the schemas' patterns use, written out as code points instead of \p{…} and \s, so that every JSON
// Schema validator reads them alike (Python's re has no \p{…}, and its \s and \d are not JavaScript's). The tables are
// JavaScript's own for the Unicode version of the Node that generated them; test/spec/text-classes.test.ts fails (and
// prints the new table) when the running Node's \p{…} or \s says otherwise.

type Ranges = readonly (readonly [number, number])[];

/** \p{Cc} ∪ \p{Cf} ∪ \p{Zl} ∪ \p{Zp}: control and format characters and the line and paragraph separators. */
export const UNPRINTABLE_RANGES: Ranges = [
  [0x0, 0x1f],
  [0x7f, 0x9f],
  [0xad, 0xad],
  [0x600, 0x605],
  [0x61c, 0x61c],
  [0x6dd, 0x6dd],
  [0x70f, 0x70f],
  [0x890, 0x891],
  [0x8e2, 0x8e2],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f],
];

/** JavaScript's \s, which is also what String.prototype.trim() removes. */
export const SPACE_RANGES: Ranges = [
  [0x9, 0xd],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

// A BMP code point as a four-digit \u escape (every regex dialect reads it); one beyond as the character itself, which a regex with
// code-point semantics (JavaScript's u flag, Python) reads as one, and which the generator writes as a JSON escape.
const one = (cp: number) => (cp > 0xffff ? String.fromCodePoint(cp) : `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`);
const classBody = (ranges: Ranges) => ranges.map(([a, b]) => (a === b ? one(a) : `${one(a)}-${one(b)}`)).join("");

/** The inside of a [...] class for a pattern built with the u flag. */
export const UNPRINTABLE = classBody(UNPRINTABLE_RANGES);
export const SPACE = classBody(SPACE_RANGES);
