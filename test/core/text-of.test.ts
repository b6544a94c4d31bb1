// Values from foreign results are shown as text without throwing: String() of a JSON object whose "toString" key
// is not a function throws, and a worker that throws on a result retries its gate for ever.
import { describe, expect, it } from "vitest";
import { listedFindings } from "../../src/core/findings.js";
import { evaluateScoreGate } from "../../src/core/score-gate.js";
import { textOf } from "../../src/core/text-of.js";
import { rulingLines } from "../../src/core/trail.js";

/** Objects as a hostile result holds them: keys that shadow Object's own methods with data. */
const HOSTILE = JSON.parse('[{"toString":1},{"valueOf":{},"toString":"x"},{"toJSON":2},[{"toString":null}]]') as unknown[];

describe("textOf", () => {
  it("a string as it is, anything else as its JSON, never throwing", () => {
    expect(textOf("plain")).toBe("plain");
    expect(textOf(3)).toBe("3");
    expect(textOf(undefined)).toBe("undefined");
    expect(HOSTILE.map(textOf)).toEqual(['{"toString":1}', '{"valueOf":{},"toString":"x"}', '{"toJSON":2}', '[{"toString":null}]']);
    expect(() => String(HOSTILE[0])).toThrow(); // what the bus no longer calls on foreign values
  });

  it("the score gate, the trail's rulings and the findings list take such values as text", () => {
    expect(evaluateScoreGate({ score: 8, readiness: "ready", score_problems: HOSTILE }).reasons.slice(0, 2)).toEqual([
      '{"toString":1}',
      '{"valueOf":{},"toString":"x"}',
    ]);
    expect(rulingLines(HOSTILE.map((x) => ({ ruling: x, finding: x })))[0]).toBe('ruling: {"toString":1} — {"toString":1}');
    expect(listedFindings(HOSTILE).findings.map((f) => f.title)).toHaveLength(HOSTILE.length);
  });
});

describe("cutText: foreign text cut without the piece of a word", () => {
  it("drops the word the cut goes through, keeps a whole one, and leaves short text alone", async () => {
    const { cutText, shown } = await import("../../src/core/text-of.js");
    expect(cutText("short", 80)).toBe("short");
    expect(cutText("aaa bbb ghp_Q7vR2mX9kLp4sT8wZ1yB6nC3dF5gH0jK2aE4", 12)).toBe("aaa bbb …");
    expect(cutText("aaa bbb ccc", 7)).toBe("aaa bbb…"); // the cut falls on a space: the word before it is whole
    expect(cutText('{"note":"secretsecretsecret"}', 15)).toBe('{"note":"…');
    expect(shown(`${"x".repeat(75)} sk-proj-Zq8Wv3Lm7Rt2Yp9Xn4Bc6Hd1Jf5Kg0Ms`)).toBe(JSON.stringify(`${"x".repeat(75)} …`));
  });
});
