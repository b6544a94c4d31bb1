// bus-spec/ stays true to the code: the committed JSON Schemas are exactly what the zod schemas generate, every
// example is judged by zod (the source of truth), by the generated JSON Schema and by the readers the bus uses,
// and the examples' README indexes every example.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { packetMember } from "../../src/core/slot-file.js";
import { embeddingProblem } from "../../src/core/packet-chain.js";
import { packetId, parsePacket } from "../../src/core/packet.js";
import { parseReviewResult } from "../../src/core/result-wire.js";
import { renderSchemas } from "../../src/spec/generate.js";
import { EscalationReason, PUBLISHED_SCHEMAS } from "../../src/spec/schemas.js";
import { parseStrictReviewResult } from "../helpers/strict-result.js";
import { settingsOf } from "../../src/bus/settings.js";

const SPEC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "bus-spec");
const SCHEMA_DIR = path.join(SPEC_DIR, "schemas");
const EXAMPLE_DIR = path.join(SPEC_DIR, "examples");

type Stem = keyof typeof PUBLISHED_SCHEMAS;
const STEMS = Object.keys(PUBLISHED_SCHEMAS) as Stem[];

// ---------------------------------------------------------------------------------------------------------------
// A small JSON Schema (2020-12) evaluator for exactly the keywords the generator emits. An unknown keyword throws,
// so a generator change that needs more semantics fails loudly here instead of being silently ignored.
type JsonSchema = Record<string, unknown>;
const ANNOTATIONS = new Set(["$schema", "$id", "title", "description", "default"]);
const ASSERTIONS = new Set([
  "type",
  "const",
  "enum",
  "pattern",
  "minimum",
  "maximum",
  "minItems",
  "items",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "anyOf",
  "oneOf",
  "not",
]);

function typeOf(value: unknown): string[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  if (typeof value === "number") return Number.isInteger(value) ? ["integer", "number"] : ["number"];
  return [typeof value];
}

function jsonSchemaErrors(schema: JsonSchema | boolean, value: unknown, at = "$"): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${at}: no value is allowed here`];
  for (const key of Object.keys(schema)) {
    if (!ANNOTATIONS.has(key) && !ASSERTIONS.has(key)) throw new Error(`unsupported JSON Schema keyword ${key} at ${at}`);
  }
  const errors: string[] = [];
  if (schema.type !== undefined) {
    const wanted = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!typeOf(value).some((t) => wanted.includes(t))) return [`${at}: expected ${wanted.join("|")}, got ${typeOf(value)[0]}`];
  }
  if ("const" in schema && value !== schema.const) errors.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) errors.push(`${at}: not one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === "string" && typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) {
    errors.push(`${at}: does not match ${schema.pattern}`);
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push(`${at}: below ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push(`${at}: above ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.items !== undefined) value.forEach((v, i) => errors.push(...jsonSchemaErrors(schema.items as JsonSchema, v, `${at}[${i}]`)));
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const req of (schema.required ?? []) as string[]) if (!(req in obj)) errors.push(`${at}: missing ${req}`);
    for (const [k, v] of Object.entries(obj)) {
      if (schema.propertyNames !== undefined) errors.push(...jsonSchemaErrors(schema.propertyNames as JsonSchema, k, `${at}{${k}}`));
      if (k in props) errors.push(...jsonSchemaErrors(props[k]!, v, `${at}.${k}`));
      else if (schema.additionalProperties !== undefined)
        errors.push(...jsonSchemaErrors(schema.additionalProperties as JsonSchema, v, `${at}.${k}`));
    }
  }
  if (schema.anyOf) {
    const branches = schema.anyOf as JsonSchema[];
    if (!branches.some((b) => jsonSchemaErrors(b, value, at).length === 0)) errors.push(`${at}: matches no anyOf branch`);
  }
  if (schema.oneOf) {
    const matched = (schema.oneOf as JsonSchema[]).filter((b) => jsonSchemaErrors(b, value, at).length === 0).length;
    if (matched !== 1) errors.push(`${at}: matches ${matched} oneOf branches, not exactly one`);
  }
  if (schema.not !== undefined && jsonSchemaErrors(schema.not as JsonSchema, value, at).length === 0) {
    errors.push(`${at}: is not allowed here`);
  }
  return errors;
}

const committedSchema = (stem: string): JsonSchema =>
  JSON.parse(readFileSync(path.join(SCHEMA_DIR, `${stem}.schema.json`), "utf8")) as JsonSchema;

// ---------------------------------------------------------------------------------------------------------------
const EXAMPLE_RE = /^(.+)\.(valid|invalid)\.([a-z0-9]+(?:-[a-z0-9]+)*)\.(json|md)$/;
const exampleFiles = readdirSync(EXAMPLE_DIR)
  .filter((f) => f !== "README.md")
  .sort();

interface Example {
  file: string;
  stem: Stem;
  valid: boolean;
  text: string;
}

function example(file: string): Example {
  const m = EXAMPLE_RE.exec(file);
  if (!m || !(STEMS as string[]).includes(m[1]!))
    throw new Error(`${file}: not <schema>.<valid|invalid>.<case>.<json|md> with a published schema`);
  return { file, stem: m[1] as Stem, valid: m[2] === "valid", text: readFileSync(path.join(EXAMPLE_DIR, file), "utf8") };
}

describe("bus-spec/schemas: no drift from src/spec/schemas.ts", () => {
  const rendered = renderSchemas();

  it.each(Object.keys(rendered))("%s is committed exactly as generated (npm run schemas)", (file) => {
    expect(readFileSync(path.join(SCHEMA_DIR, file), "utf8")).toBe(rendered[file]);
  });

  it("holds no stale schema that the generator no longer produces", () => {
    expect(readdirSync(SCHEMA_DIR).sort()).toEqual(Object.keys(rendered).sort());
  });

  it("the JSON Schema evaluator used below understands every keyword the generator emits", () => {
    for (const stem of STEMS) expect(() => jsonSchemaErrors(committedSchema(stem), {})).not.toThrow();
    expect(() => jsonSchemaErrors({ if: {} }, 1)).toThrow(/unsupported/);
  });
});

describe("bus-spec/examples", () => {
  it("every file is named <schema>.<valid|invalid>.<case>.<json|md> after a published schema (md only for packets)", () => {
    for (const file of exampleFiles) {
      const ex = example(file);
      expect(file.endsWith(".md"), file).toBe(ex.stem === "packet");
    }
  });

  it("every published schema has at least one valid and one invalid example", () => {
    const seen = new Set(
      exampleFiles.map((f) => {
        const ex = example(f);
        return `${ex.stem}:${ex.valid}`;
      }),
    );
    for (const stem of STEMS) {
      expect(seen.has(`${stem}:true`), `${stem} valid`).toBe(true);
      expect(seen.has(`${stem}:false`), `${stem} invalid`).toBe(true);
    }
  });

  const jsonExamples = exampleFiles.filter((f) => f.endsWith(".json"));
  it.each(jsonExamples)("%s: zod and the generated JSON Schema agree with its name", (file) => {
    const ex = example(file);
    const value: unknown = JSON.parse(ex.text);
    const zod = PUBLISHED_SCHEMAS[ex.stem].safeParse(value);
    expect(zod.success, `zod: ${zod.success ? "accepted" : JSON.stringify(zod.error.issues)}`).toBe(ex.valid);
    const errors = jsonSchemaErrors(committedSchema(ex.stem), value);
    expect(errors.length === 0, `JSON Schema: ${errors.join("; ") || "accepted"}`).toBe(ex.valid);

    if (ex.stem === "review_result.v1") {
      // The hand-written reader the verifier and verify-gate-pass use is the same rule.
      const read = parseReviewResult(ex.text);
      expect(read.result !== null, `parseReviewResult: ${read.reasons.join("; ")}`).toBe(ex.valid);
    }
    if (ex.stem === "review_result.v1.strict") {
      const read = parseStrictReviewResult(ex.text);
      expect(read.result !== null, `parseStrictReviewResult: ${read.reasons.join("; ")}`).toBe(ex.valid);
      // Everything the bus writes must be readable by Guild's lenient reader.
      if (ex.valid) expect(parseReviewResult(ex.text).reasons).toEqual([]);
    }
  });

  const packetExamples = exampleFiles.filter((f) => f.endsWith(".md"));
  it.each(packetExamples)("%s: parsePacket and the generated JSON Schema agree with its name", (file) => {
    const ex = example(file);
    const { front, body, problems } = parsePacket(ex.text);
    expect(front !== null, `parsePacket: ${problems.join("; ") || "accepted"}`).toBe(ex.valid);
    const block = /^---\n([\s\S]*?)\n---\n/.exec(ex.text);
    let data: unknown;
    try {
      data = block ? YAML.parse(block[1]!) : undefined;
    } catch {
      data = undefined; // not YAML: only parsePacket can judge it (and must reject it)
    }
    if (data !== undefined) {
      const errors = jsonSchemaErrors(committedSchema("packet"), data);
      expect(errors.length === 0, `JSON Schema: ${errors.join("; ") || "accepted"}`).toBe(ex.valid);
    } else {
      expect(ex.valid).toBe(false);
    }
    if (front) {
      // a quorum member's packet id names its reviewer (SPEC §26)
      expect(front.packet_id, "packet id convention <gate>-<run>-r<round>[+<member>] (a lane gate keeps its ':')").toBe(
        packetId(front.run_id, front.gate, front.round, packetMember(front)),
      );
      expect(problems).toEqual([]);
      // one the bus would issue: the embedded bytes are the ones its front matter names (SPEC §15)
      expect(embeddingProblem(front, body)).toBeNull();
      // its output contract asks for its own packet id and sha, which the verifier checks
      const contract = /```review_result\.v1\n([\s\S]*?)\n```/.exec(ex.text)?.[1] ?? "";
      expect(contract, "output contract packet_id").toContain(`"packet_id": ${JSON.stringify(front.packet_id)},`);
      expect(contract, "output contract sha").toContain(`"artifact_sha256_reviewed": "${front.artifact_sha256}",`);
    }
  });
});

describe("bus-spec/schemas: portable to every JSON Schema validator", () => {
  const patterns = (node: unknown): string[] =>
    Array.isArray(node)
      ? node.flatMap(patterns)
      : node !== null && typeof node === "object"
        ? Object.entries(node).flatMap(([k, v]) => (k === "pattern" && typeof v === "string" ? [v] : patterns(v)))
        : [];

  it("no pattern uses a class whose meaning differs between regex dialects (\\p{…}, \\s, \\d, \\w, \\u{…})", () => {
    for (const stem of STEMS) for (const p of patterns(committedSchema(stem))) expect(p, stem).not.toMatch(/\\[pPsSdDwWbB]|\\u\{/);
  });

  // Python's jsonschema (re: no \p{…}, its own \s and \d) must judge every example as zod does
  const python = spawnSync("python3", ["-c", "import jsonschema"], { encoding: "utf8" }).status === 0;
  it.skipIf(!python)("Python's jsonschema judges every JSON example as its name says", () => {
    const script = [
      "import json, sys, glob, os, jsonschema",
      "out = {}",
      "for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):",
      "    stem = os.path.basename(f).split('.valid.')[0].split('.invalid.')[0]",
      "    schema = json.load(open(os.path.join(sys.argv[2], stem + '.schema.json'), encoding='utf-8'))",
      "    out[os.path.basename(f)] = not any(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(f, encoding='utf-8'))))",
      "print(json.dumps(out))",
    ].join("\n");
    const r = spawnSync("python3", ["-c", script, EXAMPLE_DIR, SCHEMA_DIR], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const judged = JSON.parse(r.stdout) as Record<string, boolean>;
    const expected = Object.fromEntries(exampleFiles.filter((f) => f.endsWith(".json")).map((f) => [f, example(f).valid]));
    expect(judged).toEqual(expected);
  });
});

describe("bus-spec/examples: settings", () => {
  it("a settings example called valid is one every command a person runs accepts: no problem named", () => {
    const valid = exampleFiles.filter((f) => f.startsWith("settings.valid."));
    expect(valid.length).toBeGreaterThan(1);
    for (const f of valid) expect(settingsOf(readFileSync(path.join(EXAMPLE_DIR, f), "utf8")).problems, f).toEqual([]);
  });
});

describe("bus-spec/examples/README.md indexes every example", () => {
  const listed = () => {
    const readme = readFileSync(path.join(EXAMPLE_DIR, "README.md"), "utf8");
    return new Set([...readme.matchAll(/`([^`\s]+\.(?:valid|invalid)\.[^`\s]+\.(?:json|md))`/g)].map((m) => m[1]!));
  };

  it("lists every example file", () => {
    const index = listed();
    expect(exampleFiles.filter((f) => !index.has(f))).toEqual([]);
  });

  it("lists no file that does not exist", () => {
    expect([...listed()].filter((f) => !exampleFiles.includes(f))).toEqual([]);
  });
});

describe("bus-spec/SPEC.md", () => {
  const spec = () => readFileSync(path.join(SPEC_DIR, "SPEC.md"), "utf8");

  it("gives a quorum member's packet id as the code builds it: the round's id with +<provider>", () => {
    const text = spec();
    expect(text).not.toMatch(/packet_id`? ends in `\.</);
    const ids = [...text.matchAll(/`(G-[a-z]+)-(run-x)-r(\d+)\+([a-z0-9._-]+)`/g)];
    expect(ids.length).toBeGreaterThan(1);
    for (const [id, gate, run, round, member] of ids) expect(id).toBe(`\`${packetId(run!, gate as "G-spec", Number(round), member!)}\``);
  });

  it("its settings table names every key settings.json takes, every provider key and every adapter", () => {
    const text = spec();
    const table = text.slice(text.indexOf("| Key | Default | Meaning |"));
    const rows = table.slice(0, table.indexOf("\n\n")).split("\n");
    const firstColumn = rows.map((r) => r.split(" | ")[0]!).join("\n");
    const schema = JSON.parse(readFileSync(path.join(SCHEMA_DIR, "settings.schema.json"), "utf8"));
    const keys = Object.keys(schema.properties).filter((k) => k !== "schema_version");
    expect(keys.filter((k) => !firstColumn.includes(`\`${k}\``))).toEqual([]);
    const providers = rows.find((r) => r.startsWith("| `providers` |"))!;
    const provider = schema.properties.providers.additionalProperties;
    const listed = new Set(/→ `\{([^}]+)\}`/.exec(providers)![1]!.split(", "));
    expect(Object.keys(provider.properties).filter((k) => !listed.has(k))).toEqual([]);
    const adapters = /`adapter` ∈ ((?:`[a-z]+` ?)+)/.exec(providers)![1]!;
    expect((provider.properties.adapter.enum as string[]).filter((a) => !adapters.includes(`\`${a}\``))).toEqual([]);
  });

  it("its --wait exit table says the status a script sees for every escalation reason", () => {
    const text = spec();
    const rows = text.split("\n").filter((l) => l.startsWith("| **4** |") || l.startsWith("| **5** |"));
    expect(rows).toHaveLength(2);
    expect(EscalationReason.options.filter((reason) => !rows.join("\n").includes(`\`${reason}\``))).toEqual([]);
  });

  it("links every published schema", () => {
    const text = spec();
    for (const stem of STEMS) expect(text, stem).toContain(`schemas/${stem}.schema.json`);
  });
});
