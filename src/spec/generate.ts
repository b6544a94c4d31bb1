// Renders bus-spec/schemas/*.schema.json from the zod schemas. `npm run schemas` (scripts/schemas.mjs) writes them;
// the drift test fails when the committed files differ from what this produces.
import * as z from "zod/mini";
import { PUBLISHED_SCHEMAS } from "./schemas.js";
import { UNPRINTABLE } from "./text-classes.js";

// a pattern's characters beyond the BMP and its format characters are written as JSON escapes, visible in the file
// (JSON.stringify escapes the C0 controls in strings itself; the only raw one left is the layout's newline)
const INVISIBLE = new RegExp(`(?!\\n)[${UNPRINTABLE}]|[^\\u0000-\\uFFFF]`, "gu");
const escapeJson = (c: string) =>
  [...c]
    .flatMap((ch) => (ch.length === 2 ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [ch.charCodeAt(0)]))
    .map((u) => `\\u${u.toString(16).padStart(4, "0")}`)
    .join("");

export function renderSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(PUBLISHED_SCHEMAS)) {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    json.$id = `https://guild-bus.dev/schemas/${name}.schema.json`;
    out[`${name}.schema.json`] = JSON.stringify(json, null, 2).replace(INVISIBLE, escapeJson) + "\n";
  }
  return out;
}
