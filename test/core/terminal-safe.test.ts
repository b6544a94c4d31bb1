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
