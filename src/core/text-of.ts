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

/** A line with the breaks in it folded to spaces, its indentation kept: a foreign value cannot start a line of its
 *  own (a heading, a list item). Split, not a whitespace-newline regex: that rescans a run of spaces from each one. */
export function oneLine(line: string): string {
  if (!line.includes("\n")) return line;
  const [first, ...rest] = line.split("\n");
  return [first!.trimEnd(), ...rest.map((piece) => piece.trim()).filter(Boolean)].join(" ");
}
