// The one parser every answer goes through (SPEC §8.1): valid JSON, no key twice in one object at any depth, at most
// MAX_JSON_DEPTH levels — checked before anything walks the value.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, parseJsonAnswer } from "../../src/core/json-answer.js";

const refusal = (text: string) => {
  const r = parseJsonAnswer(text);
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value).slice(0, 200)}`);
  return r;
};
const nested = (depth: number, open = '{"a":', close = "}") => open.repeat(depth - 1) + "{}" + close.repeat(depth - 1);

describe("parseJsonAnswer: a leading byte-order mark", () => {
  it("is refused with a reason that names it, not JSON.parse's unexpected token", () => {
    expect(parseJsonAnswer('\uFEFF{"verdict":"satisfied"}')).toEqual({
      ok: false,
      kind: "bom",
      reason: "not valid JSON: it starts with a byte-order mark (U+FEFF); write UTF-8 without one",
    });
  });
});

describe("parseJsonAnswer: a repeated key is refused, naming it (§8.1)", () => {
  it("at the top level: the verdict cannot be said twice", () => {
    const r = refusal('{"verdict":"issues","blocking_findings":[{"title":"x"}],"verdict":"satisfied"}');
    expect(r.kind).toBe("duplicate");
    expect(r.reason).toBe('not valid JSON: duplicate key "verdict" (each key may appear once per object)');
  });

  it("at any depth, with where it is; every repeated key is named", () => {
    const r = refusal('{"blocking_findings":[],"findings":[{"severity":"blocking","title":"t","severity":"info"}],"blocking_findings":[]}');
    expect(r.reason).toBe(
      'not valid JSON: duplicate key "severity" in findings[0], "blocking_findings" (each key may appear once per object)',
    );
    expect(refusal('{"a":{"b c":[0,{"k":1,"k":2}]}}').reason).toContain('duplicate key "k" in a["b c"][1]');
  });

  it("keys are compared as decoded strings: an escape does not hide a repeat", () => {
    expect(refusal('{"verdict":"issues","\\u0076erdict":"satisfied"}').reason).toContain('duplicate key "verdict"');
  });

  it("the same key in sibling or nested objects is not a repeat", () => {
    expect(parseJsonAnswer('{"title":"a","findings":[{"title":"b"},{"title":"c"}],"x":{"title":"d"}}')).toMatchObject({ ok: true });
  });

  it("JSON.stringify output never has a repeated key, so any such value reads back unchanged (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        expect(parseJsonAnswer(JSON.stringify(v))).toEqual({ ok: true, value: JSON.parse(JSON.stringify(v)) });
      }),
      { numRuns: 500 },
    );
  });

  it("repeating any key of any object, anywhere in the value, is refused with that key's name (property)", () => {
    type Tree = { kind: "obj"; entries: Array<[string, Tree]> } | { kind: "arr"; items: Tree[] } | { kind: "leaf"; value: unknown };
    const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.record({ kind: fc.constant("leaf" as const), value: fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)) }),
        fc.record({ kind: fc.constant("arr" as const), items: fc.array(tie("tree"), { maxLength: 3 }) }),
        fc.record({
          kind: fc.constant("obj" as const),
          entries: fc.uniqueArray(fc.tuple(fc.string(), tie("tree")), { maxLength: 4, selector: ([k]) => k }),
        }),
      ),
    }));
    // serialise, repeating the first key of the n-th non-empty object met
    const render = (t: Tree, target: { n: number; key?: string }): string => {
      if (t.kind === "leaf") return JSON.stringify(t.value);
      if (t.kind === "arr") return `[${t.items.map((x) => render(x, target)).join(",")}]`;
      const here = t.entries.length > 0 && target.n-- === 0;
      const parts = t.entries.map(([k, v]) => `${JSON.stringify(k)}:${render(v, target)}`);
      if (here) {
        target.key = t.entries[0]![0];
        parts.push(`${JSON.stringify(target.key)}:0`);
      }
      return `{${parts.join(",")}}`;
    };
    fc.assert(
      fc.property(tree, fc.nat(5), (t, n) => {
        const target: { n: number; key?: string } = { n };
        const text = render(t, target);
        const r = parseJsonAnswer(text);
        if (target.key === undefined) return void expect(r.ok).toBe(true);
        expect(r).toMatchObject({ ok: false, kind: "duplicate" });
        if (!r.ok)
          expect(r.reason).toContain(
            `duplicate key ${JSON.stringify(target.key.length > 80 ? `${target.key.slice(0, 80)}…` : target.key)}`,
          );
      }),
      { numRuns: 800 },
    );
  });
});

describe("parseJsonAnswer: nesting is bounded before anything recurses (§8.1)", () => {
  it(`${MAX_JSON_DEPTH} levels are read; one more is refused`, () => {
    expect(parseJsonAnswer(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(refusal(nested(MAX_JSON_DEPTH + 1))).toEqual({
      ok: false,
      kind: "depth",
      reason: `not valid JSON: nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
    expect(parseJsonAnswer("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(refusal("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1)).kind).toBe("depth");
  });

  it("100 000 levels of objects or arrays are refused, not a stack overflow", () => {
    expect(refusal(nested(100_000)).kind).toBe("depth");
    expect(refusal("[".repeat(100_000) + "]".repeat(100_000)).kind).toBe("depth");
    // brackets inside strings are text, not nesting
    expect(parseJsonAnswer(JSON.stringify({ s: "[{".repeat(100_000) })).ok).toBe(true);
  });
});

describe("parseJsonAnswer: everything else", () => {
  it("invalid JSON is a syntax refusal", () => {
    expect(refusal("{ verdict: satisfied }").kind).toBe("syntax");
    expect(refusal('{"a":1}{"a":2}').kind).toBe("syntax");
    expect(refusal("").reason).toMatch(/^not valid JSON \(/);
  });

  it("NUL characters inside strings and a 3.5 MB string are plain values", () => {
    expect(parseJsonAnswer('{"title":"a\\u0000b","k\\u0000":1,"k":2}')).toEqual({
      ok: true,
      value: { title: "a\u0000b", "k\u0000": 1, k: 2 },
    });
    const title = "x".repeat(3_500_000);
    expect(parseJsonAnswer(JSON.stringify({ title }))).toEqual({ ok: true, value: { title } });
  });
});

describe("parseJsonAnswer: a reason never keeps the piece of a word its quote cuts through", () => {
  // a piece of a secret is no longer one the scrubber knows: the reason (a failure's, an escalation's) would keep it
  const TOKEN = "ghp_Q7vR2mX9kLp4sT8wZ1yB6nC3dF5gH0jK2aE4";
  it("V8's quote around where JSON.parse stopped drops the words it cuts", () => {
    for (const text of [
      `{"verdict": "issues", "summary": ${TOKEN} and more text after it}`,
      `{"verdict": "issues", "padding": "${"x".repeat(40)}", "summary": ${TOKEN}}`,
      `{"a": ${TOKEN}}`,
    ]) {
      const r = refusal(text);
      expect(r.kind).toBe("syntax");
      expect(r.reason).toMatch(/^not valid JSON \(Unexpected token/);
      expect(r.reason).not.toMatch(/ghp_|Q7vR2m/);
    }
    // where V8 quotes the whole text, nothing is cut and nothing dropped
    expect(refusal("[1, x]").reason).toContain('"[1, x]"');
  });

  it("a duplicate key quoted cut keeps no piece of its cut word", () => {
    const key = `${"k".repeat(70)} ${TOKEN}`;
    const r = refusal(`{${JSON.stringify(key)}: 1, ${JSON.stringify(key)}: 2}`);
    expect(r.kind).toBe("duplicate");
    expect(r.reason).toContain(`"${"k".repeat(70)} …"`);
    expect(r.reason).not.toContain("ghp_");
  });
});
