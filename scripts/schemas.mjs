// `npm run schemas`: writes bus-spec/schemas/*.schema.json as the built src/spec/generate.js renders them.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderSchemas } from "../dist/src/spec/generate.js";

const SCHEMA_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "bus-spec", "schemas");
const schemas = renderSchemas();
mkdirSync(SCHEMA_DIR, { recursive: true });
for (const [file, text] of Object.entries(schemas)) writeFileSync(path.join(SCHEMA_DIR, file), text);
console.log(`wrote ${Object.keys(schemas).length} schemas to ${SCHEMA_DIR}`);
