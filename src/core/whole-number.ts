// One reading of a whole number typed as text, for every face that takes text (CLI arguments, console form fields):
// decimal digits only, so "1e0", "0x2", "2.0" or "+1" are not numbers anywhere (Number() takes all four).

/** The whole number `text` spells, when it is one from min to max; null otherwise. */
export function wholeNumberText(text: string, min: number, max: number): number | null {
  const digits = text.trim();
  if (!/^\d+$/.test(digits)) return null;
  const n = Number(digits);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}
