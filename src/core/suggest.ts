// "Did you mean": the closest known name to a misspelt one, for error messages.

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The known name within a third of its length in edits (at least 2) of `name`, or null. */
export function closest(name: string, known: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d <= Math.max(2, Math.floor(k.length / 3)) && (!best || d < best.d)) best = { name: k, d };
  }
  return best?.name ?? null;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(name: string, known: readonly string[]): string {
  const k = closest(name, known);
  return k ? ` (did you mean "${k}"?)` : "";
}

/** Line and column (1-based) of a character offset in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}
