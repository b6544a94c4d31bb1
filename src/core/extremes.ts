// The largest or smallest of many numbers. Math.max(...values) passes one argument per value, and V8 throws "Maximum
// call stack size exceeded" past about 120,000 of them: a count that files on disk (gates, rounds, backtick runs in an
// artifact) can reach.

/** The largest value, or `floor` when there is none larger. */
export function largest(values: Iterable<number>, floor = -Infinity): number {
  let top = floor;
  for (const v of values) if (v > top) top = v;
  return top;
}

/** The smallest value, or `ceiling` when there is none smaller. */
export function smallest(values: Iterable<number>, ceiling = Infinity): number {
  let low = ceiling;
  for (const v of values) if (v < low) low = v;
  return low;
}
