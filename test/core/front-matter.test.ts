// The front matter the bus writes: every YAML reader reads it as the value written, and the bus's own reader takes
// exactly that text and nothing that a YAML parser would read differently.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { readWrittenFrontMatter, renderFrontMatter } from "../../src/core/front-matter.js";

const tricky = fc.constantFrom(
  "no",
  "Yes",
  "ON",
  "y",
  "null",
  "Null",
  "~",
  "true",
  "1",
  "-1",
  "1e3",
  "0x1F",
  "0o17",
  "1_000",
  "1:20",
  ".inf",
  "1.",
  "a: b",
  "a:",
  "a #b",
  "#x",
  "- a",
  "? a",
  '"',
  "'",
  "@x",
  "`x",
  "|",
  ">",
  "%x",
  "!x",
  "&x",
  "*x",
  "[a]",
  "{a}",
  "a\tb",
  " a",
  "a ",
  "",
  "2026-12-03T16:53:00.000Z",
  "G-lane:T5-terminal_ui.v2",
  "run-r1+codex",
  "docs/a b.md",
  "\u0085",
  "\u2028",
  "\ufeff",
  "\u007f",
  "\ud800",
  "\n---\n",
);
const text = fc.oneof(
  tricky,
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "binary-ascii" }),
);
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value")),
    fc.dictionary(text, tie("value"), { noNullPrototype: true }),
  ),
})).value;
/** Keys as the writer takes them (a schema's snake_case names; not a word YAML 1.1 reads as a bool or number). */
const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,70}$/).filter((k) => {
  try {
    return renderFrontMatter({ [k]: 1 }) !== "";
  } catch {
    return false;
  }
});
const scalarValue = fc.oneof(text, text, fc.maxSafeInteger(), fc.boolean(), fc.constant(null), json);
const withoutTimestamps = (tags: YAML.Tags) => tags.filter((t) => typeof t === "string" || t.tag !== "tag:yaml.org,2002:timestamp");
// a key `__proto__` is left to the parser on purpose (below): the bus's reader never takes it
const frontMatter = fc.dictionary(
  key.filter((k) => k !== "__proto__"),
  scalarValue,
  { minKeys: 1, noNullPrototype: true },
);

describe("front matter as the bus writes it", () => {
  it("a YAML 1.2 parser, a YAML 1.1 parser and the bus's reader all read what was written", () => {
    fc.assert(
      fc.property(frontMatter, (value) => {
        const written = renderFrontMatter(value);
        expect(YAML.parse(written)).toStrictEqual(value);
        expect(readWrittenFrontMatter(written)).toStrictEqual(value);
        // YAML 1.1 (PyYAML and kin) reads more plain words as bools and numbers: none is written plain. Its dates
        // are the one difference SPEC §7 states: timestamps stay plain, as people read them.
        expect(YAML.parse(written, { version: "1.1", customTags: withoutTimestamps })).toStrictEqual(value);
      }),
      { numRuns: 2000 },
    );
  });

  it("the bus's reader takes no text a YAML parser reads otherwise; anything it cannot take is left to the parser", () => {
    const line = fc.oneof(
      fc
        .tuple(
          key,
          fc.oneof(
            text,
            tricky.map((t) => JSON.stringify(t)),
            fc.jsonValue().map((v) => JSON.stringify(v)),
          ),
        )
        .map(([k, v]) => `${k}: ${v}`),
      text,
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const source = lines.join("\n");
        const read = readWrittenFrontMatter(source);
        if (read !== null) expect(read).toStrictEqual(YAML.parse(source));
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps words plain and quotes what a reader could take for something else", () => {
    const written = renderFrontMatter({
      packet_id: "G-lane:T5-r1+codex",
      issued_at: "2026-12-03T16:53:00.000Z",
      artifact_path: "docs/a spec.md",
      round: 2,
      reviewer_model: null,
      answer: "yes",
      count: "12",
      reason: "auto: codex # strong",
      quorum: { need: 2, of: 3 },
    });
    expect(written).toBe(
      [
        "packet_id: G-lane:T5-r1+codex",
        "issued_at: 2026-12-03T16:53:00.000Z",
        "artifact_path: docs/a spec.md",
        "round: 2",
        "reviewer_model: null",
        'answer: "yes"',
        'count: "12"',
        'reason: "auto: codex # strong"',
        'quorum: {"need":2,"of":3}',
      ].join("\n"),
    );
  });

  it("leaves to the parser a text written another way: duplicate keys, other quoting, block collections", () => {
    expect(readWrittenFrontMatter("a: x\na: y")).toBeNull();
    expect(readWrittenFrontMatter("a: 'x'")).toBeNull();
    expect(readWrittenFrontMatter('a: "x"')).toBeNull();
    expect(readWrittenFrontMatter("a:\n  b: 1")).toBeNull();
    expect(readWrittenFrontMatter("a: 1e3")).toBeNull();
    expect(readWrittenFrontMatter("__proto__: x")).toBeNull();
    expect(readWrittenFrontMatter(`${"a".repeat(1100)}: 1`)).toBeNull(); // YAML refuses a key over 1024 characters
    expect(readWrittenFrontMatter("")).toBeNull();
  });

  it("refuses to write what it could not read back", () => {
    expect(() => renderFrontMatter({ round: 1.5 })).toThrow(/not an integer/);
    expect(() => renderFrontMatter({ quorum: { need: 1e21 } })).toThrow(/not an integer/); // PyYAML reads 1e+21 as a string
    expect(() => renderFrontMatter({ ["a".repeat(65)]: 1 })).toThrow(/cannot be written plain/);
    expect(() => renderFrontMatter({ "Not A Key": 1 })).toThrow(/cannot be written plain/);
    expect(() => renderFrontMatter({ on: 1 })).toThrow(/cannot be written plain/); // YAML 1.1 reads the key as true
    expect(() => renderFrontMatter({ f: () => 1 })).toThrow(/cannot be written/);
  });
});
