// Generates bus-spec/schemas/*.schema.json from the zod schemas. `npm run schemas` rewrites them; the drift test
// fails when the committed files differ from what this produces.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { PUBLISHED_SCHEMAS } from "./schemas.js";

export function renderSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, schema] of Object.entries(PUBLISHED_SCHEMAS)) {
    const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    json.$id = `https://guild-bus.dev/schemas/${name}.schema.json`;
    out[`${name}.schema.json`] = JSON.stringify(json, null, 2) + "\n";
  }
  return out;
}

export const SCHEMA_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bus-spec", "schemas");

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  mkdirSync(SCHEMA_DIR, { recursive: true });
  for (const [file, text] of Object.entries(renderSchemas())) writeFileSync(path.join(SCHEMA_DIR, file), text);
  console.log(`wrote ${Object.keys(renderSchemas()).length} schemas to ${SCHEMA_DIR}`);
}
