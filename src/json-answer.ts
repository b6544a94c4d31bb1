// The one JSON parser for every answer the bus judges: reviewer output, result files from any writer, manual
// responses, `verify-gate-pass` and the gate files humans drop. JSON.parse alone lets a repeated key win silently
// (`"verdict":"issues", …, "verdict":"satisfied"`) and accepts any nesting, which later recursive walks (scrub,
// zod, the trail) overflow on. SPEC §8.1.
import { createScanner, SyntaxKind, visit, type JSONPath } from "jsonc-parser";

/** Deeper than any review result needs; far below what a recursive walk can take. */
export const MAX_JSON_DEPTH = 64;

export type JsonAnswer =
  | { ok: true; value: unknown }
  /** `syntax`: JSON.parse refused it; `depth` and `duplicate`: valid JSON the bus still will not read. */
  | { ok: false; kind: "syntax" | "depth" | "duplicate"; reason: string };

export function parseJsonAnswer(text: string): JsonAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, kind: "syntax", reason: `not valid JSON (${(error as Error).message.slice(0, 200)})` };
  }
  // Depth first, without recursion: jsonc-parser's visit() below recurses once per level.
  if (tooDeep(text)) return { ok: false, kind: "depth", reason: `not valid JSON: nested deeper than ${MAX_JSON_DEPTH} levels` };
  const repeated = duplicateKeys(text);
  if (repeated.length) {
    const shown = repeated.slice(0, 5).join(", ") + (repeated.length > 5 ? `, and ${repeated.length - 5} more` : "");
    return { ok: false, kind: "duplicate", reason: `not valid JSON: duplicate key ${shown} (each key may appear once per object)` };
  }
  return { ok: true, value };
}

function tooDeep(text: string): boolean {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    if (token === SyntaxKind.OpenBraceToken || token === SyntaxKind.OpenBracketToken) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (token === SyntaxKind.CloseBraceToken || token === SyntaxKind.CloseBracketToken) depth--;
  }
  return false;
}

/** Every key that repeats within one object, with where it is (`"severity" in findings[0]`). Keys compare decoded. */
function duplicateKeys(text: string): string[] {
  const open: Array<Set<string>> = [];
  const found: string[] = [];
  visit(text, {
    onObjectBegin: () => void open.push(new Set()),
    onObjectEnd: () => void open.pop(),
    onObjectProperty: (name, _offset, _length, _line, _column, path) => {
      const keys = open[open.length - 1]!;
      if (!keys.has(name)) keys.add(name);
      else found.push(`${quote(name)}${path().length ? ` in ${where(path())}` : ""}`);
    },
  });
  return found;
}

const quote = (key: string) => JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);

function where(path: JSONPath): string {
  return path.map((s, i) => (typeof s === "number" ? `[${s}]` : /^[A-Za-z_][\w-]*$/.test(s) ? `${i ? "." : ""}${s}` : `[${quote(s)}]`)).join("");
}
