// Renders bus-spec/schemas/*.schema.json from the zod schemas. `npm run schemas` (scripts/schemas.mjs) writes them;
// the drift test fails when the committed files differ from what this produces.
import * as z from "zod/mini";
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
