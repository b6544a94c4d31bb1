// The YAML of a packet's front matter as the bus writes it (SPEC §7): one `key: value` per line, a string plain when
// no YAML reader takes that word for a bool, null or number, else double-quoted with JSON's escapes, a nested value as
// a JSON flow collection. YAML parsers read it (libyaml refuses a lone surrogate's escape); this module also reads back
// exactly what it writes without one, which spares every round a general YAML parse (a tenth of a busy worker's CPU).
// Anything else goes to the parser.
import { createRequire } from "node:module";

type Yaml = typeof import("yaml");
let yaml: Yaml | undefined;

/** Far more than any front matter holds (a path is at most 4096 bytes); garbage this long parses in about a second. */
export const MAX_YAML_CHARS = 16 * 1024;

/**
 * The value of a YAML text, loaded on first need (most commands and workers never read a YAML text the bus did not
 * write). Throws on an error and on a warning too (an unknown tag, say): the library would emit a warning as a Node
 * process warning, printed on stderr of whatever process read the file, quoting its text; a text it only half
 * understood is not one to act on either.
 */
export function parseYaml(text: string): unknown {
  // the parser takes tens of microseconds and a kilobyte a character of garbage (`}}}…`): a 4 MiB packet would hold a
  // worker for minutes and exhaust its heap
  if (text.length > MAX_YAML_CHARS) throw new Error(`YAML text of ${text.length} characters; at most ${MAX_YAML_CHARS} are read`);
  yaml ??= createRequire(import.meta.url)("yaml") as Yaml;
  // "error": the library logs nothing itself, also while converting (toJS); prettyErrors off: a message of one line
  const doc = yaml.parseDocument(text, { logLevel: "error", prettyErrors: false });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) throw new Error(problem.message);
  return doc.toJS() as unknown;
}

/** A schema's snake_case names; YAML limits an implicit key to 1024 characters, and no field name nears 64. */
const KEY_RE = /^[a-z_][a-z0-9_]{0,63}$/;
/** Plain only from a small alphabet, not starting or ending with a space, with no ": " or " #" (the alphabet has no #). */
const PLAIN_RE = /^[A-Za-z0-9_/][\w .,/@+=():-]*$/;
/** What some YAML reader (1.2 core, or 1.1 such as PyYAML) takes for a bool, null or number rather than a string. */
const NOT_A_STRING_RE =
  /^(?:y|n|yes|no|on|off|true|false|null|~|[-+]?(?:[\d_]*(?:[.:][\d_]*)*(?:e[-+]?\d+)?|0x[\da-f_]+|0o[0-7_]+|0b[01_]+|\.inf|\.nan))$/i;
/** Characters YAML does not allow unescaped, or reads as line breaks or a byte-order mark; JSON.stringify leaves them raw. */
const UNSAFE_IN_QUOTES_RE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

function isPlain(s: string): boolean {
  return PLAIN_RE.test(s) && !s.endsWith(" ") && !s.endsWith(":") && !s.includes(": ") && !NOT_A_STRING_RE.test(s);
}

/** Integers only, at any depth: YAML 1.1 readers take JSON's `1e+21` or `1e-7` for a string. */
function integersOnly(_key: string, v: unknown): unknown {
  if (typeof v === "number" && !Number.isSafeInteger(v)) throw new Error(`front matter number ${v} is not an integer`);
  return v;
}

function scalar(value: unknown): string {
  if (typeof value === "string" && isPlain(value)) return value;
  const json = JSON.stringify(value, integersOnly);
  if (json === undefined) throw new Error(`front matter value of type ${typeof value} cannot be written`);
  return json.replace(UNSAFE_IN_QUOTES_RE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The front matter's text (without the `---` fences): keys in the object's order, undefined values left out. */
export function renderFrontMatter(value: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (!KEY_RE.test(key) || NOT_A_STRING_RE.test(key)) throw new Error(`front matter key ${JSON.stringify(key)} cannot be written plain`);
    lines.push(`${key}: ${scalar(v)}`);
  }
  return lines.join("\n");
}

/**
 * The value of a front matter renderFrontMatter wrote, or null for any other text. A text is taken only when writing
 * its value again gives the same bytes, so it is never read differently from how a YAML parser reads it (the round
 * trip test/core/front-matter.test.ts checks).
 */
export function readWrittenFrontMatter(text: string): Record<string, unknown> | null {
  const value: Record<string, unknown> = {};
  for (const line of text.split("\n")) {
    const colon = line.indexOf(": ");
    if (colon < 0) return null;
    const key = line.slice(0, colon);
    if (Object.hasOwn(value, key)) return null;
    value[key] = valueOf(line.slice(colon + 2));
  }
  try {
    return renderFrontMatter(value) === text ? value : null;
  } catch {
    return null;
  }
}

function valueOf(raw: string): unknown {
  if (/^["{[\-\d]|^(?:true|false|null)$/.test(raw)) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw; // not JSON: left as a string, which will not write back the same
    }
  }
  return raw;
}
