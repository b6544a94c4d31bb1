// Reviewer text and planted names are shown, never acted on, by a terminal: control characters become \uXXXX.
import { describe, expect, it } from "vitest";
import { terminalSafe } from "../../src/core/terminal-safe.js";

describe("terminalSafe", () => {
  it("shows C0, DEL, C1 and bidirectional controls as escapes, and keeps newlines, tabs and ordinary text", () => {
    const hostile = "gpt-5\r\u001b[2Kr2  satisfied\u001b]0;TITLE\u0007\u009b2J\u202egnp.exe\u007f";
    expect(terminalSafe(hostile)).toBe("gpt-5\\u000d\\u001b[2Kr2  satisfied\\u001b]0;TITLE\\u0007\\u009b2J\\u202egnp.exe\\u007f");
    expect(terminalSafe("line one\n\tline two — é ✓ 日本")).toBe("line one\n\tline two — é ✓ 日本");
  });

  it("keeps JSON valid and its values the same", () => {
    const value = { title: "x\u009b\u202e\u001by", n: 1 };
    expect(JSON.parse(terminalSafe(JSON.stringify(value)))).toEqual(value);
  });
});

describe("terminalSafe and invisible text a model reads", () => {
  it("shows the Unicode tag characters, zero-width space, word joiner and BOM as escapes, JSON's own form", () => {
    // "IGNORE" in tag characters: invisible in a host's transcript, read by the model as the word
    const tags = [..."IGNORE"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("");
    const hostile = `typo${tags}\u200b\u2060\ufeff`;
    const shown = terminalSafe(hostile);
    expect(shown).toBe("typo\\udb40\\udc49\\udb40\\udc47\\udb40\\udc4e\\udb40\\udc4f\\udb40\\udc52\\udb40\\udc45\\u200b\\u2060\\ufeff");
    expect(JSON.parse(terminalSafe(JSON.stringify({ t: hostile })))).toEqual({ t: hostile });
    expect(terminalSafe("flag 🏳️‍🌈 and emoji 👍🏽 and joiner ‍ stay")).toBe("flag 🏳️‍🌈 and emoji 👍🏽 and joiner ‍ stay");
    // every other character drawn as nothing: variation selectors (240 of them past U+E0100 spell bytes), soft hyphen,
    // the grapheme joiner, Hangul fillers, the Mongolian vowel separator
    for (const c of ["\u{e0100}", "\u{e01ef}", "\ufe00", "\u00ad", "\u034f", "\u3164", "\uffa0", "\u180e", "\u2065", "\u{1d173}"])
      expect(terminalSafe(`a${c}b`), c.codePointAt(0)!.toString(16)).toMatch(/^a(\\u[0-9a-f]{4})+b$/);
  });
});
