// The one JSON parser for every answer the bus judges: reviewer output, result files from any writer, manual
// responses, `verify-gate-pass` and the gate files humans drop. JSON.parse alone lets a repeated key win silently
// (`"verdict":"issues", …, "verdict":"satisfied"`) and accepts any nesting, which later recursive walks (scrub,
// zod, the trail) overflow on. SPEC §8.1.
import { createRequire } from "node:module";
import type * as Jsonc from "jsonc-parser";
import { cutText } from "./text-of.js";

// Only the visitor, required directly: the package entry also loads the formatter and the editor, which costs
// verify-gate-pass's cold start tens of milliseconds (bench/README.md). The version is pinned exactly. The CLI bundle
// takes the same visitor from the package's ES build (scripts/bundle.mjs).
const { visit } = createRequire(import.meta.url)("jsonc-parser/lib/umd/impl/parser.js") as Pick<typeof Jsonc, "visit">;

/** Deeper than any review result needs; far below what a recursive walk can take. */
export const MAX_JSON_DEPTH = 64;

export type JsonAnswer =
  | { ok: true; value: unknown }
  /** `syntax`: JSON.parse refused it (`bom`: because of a leading byte-order mark); `depth` and `duplicate`: valid JSON
   * the bus still will not read. */
  | { ok: false; kind: "syntax" | "bom" | "depth" | "duplicate"; reason: string };

export function parseJsonAnswer(text: string): JsonAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Windows tools (PowerShell 5's UTF-8) put one in front: say so, rather than JSON.parse's "unexpected token"
    if (text.startsWith("\uFEFF"))
      return { ok: false, kind: "bom", reason: "not valid JSON: it starts with a byte-order mark (U+FEFF); write UTF-8 without one" };
    return { ok: false, kind: "syntax", reason: `not valid JSON (${cutText(withoutCutWords((error as Error).message), 200)})` };
  }
  const checked = inspect(text);
  if (checked === "too-deep") return { ok: false, kind: "depth", reason: `not valid JSON: nested deeper than ${MAX_JSON_DEPTH} levels` };
  if (checked.length) {
    const shown = checked.slice(0, 5).join(", ") + (checked.length > 5 ? `, and ${checked.length - 5} more` : "");
    return { ok: false, kind: "duplicate", reason: `not valid JSON: duplicate key ${shown} (each key may appear once per object)` };
  }
  return { ok: true, value };
}

const TOO_DEEP = new Error("too deep");

/**
 * One walk of text JSON.parse accepted: "too-deep" as soon as a level past MAX_JSON_DEPTH opens (visit() recurses
 * per level, so it is stopped there, long before the stack ends), else every key that repeats within one object,
 * with where it is (`"severity" in findings[0]`). Keys compare decoded.
 */
function inspect(text: string): "too-deep" | string[] {
  const open: Array<Set<string> | null> = []; // an object's keys so far; null for an array
  const found: string[] = [];
  const enter = (keys: Set<string> | null): void => {
    if (open.push(keys) > MAX_JSON_DEPTH) throw TOO_DEEP;
  };
  try {
    visit(text, {
      onObjectBegin: () => enter(new Set()),
      onArrayBegin: () => enter(null),
      onObjectEnd: () => void open.pop(),
      onArrayEnd: () => void open.pop(),
      // eslint-disable-next-line @typescript-eslint/max-params -- jsonc-parser's visitor signature
      onObjectProperty: (name, _offset, _length, _line, _column, path) => {
        const keys = open[open.length - 1]!;
        if (!keys.has(name)) keys.add(name);
        else found.push(`${quote(name)}${path().length ? ` in ${where(path())}` : ""}`);
      },
    });
  } catch (error) {
    if (error === TOO_DEEP) return "too-deep";
    throw error;
  }
  return found;
}

const quote = (key: string) => JSON.stringify(cutText(key, 80));

const V8_QUOTE = /^(.*?, )(\.\.\.)?"([\s\S]*)"(\.\.\.)?( is not valid JSON)$/;

/**
 * V8's message quotes about ten characters either side of where parsing stopped (`Unexpected token 'g', ..."summary":
 * ghp_abcdef"... is not valid JSON`): a word its quote cuts through is dropped, as cutText drops one, since the piece
 * of a secret left is no longer one the scrubber knows.
 */
function withoutCutWords(message: string): string {
  const m = V8_QUOTE.exec(message);
  if (!m) return message;
  const [, head, before = "", quoted = "", after = "", tail] = m;
  let text = quoted;
  if (before) text = text.replace(/^[^\s"',:;{}[\]()<>]+/, "");
  if (after) text = text.replace(/[^\s"',:;{}[\]()<>]+$/, "");
  return `${head}${before}"${text}"${after}${tail}`;
}

function where(path: Jsonc.JSONPath): string {
  return path
    .map((s, i) => (typeof s === "number" ? `[${s}]` : /^[A-Za-z_][\w-]*$/.test(s) ? `${i ? "." : ""}${s}` : `[${quote(s)}]`))
    .join("");
}
