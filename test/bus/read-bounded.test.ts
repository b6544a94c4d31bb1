// Text the bus reads must be UTF-8; a file in UTF-16 (Windows PowerShell 5's `>`, Notepad's "Unicode") is said to be.
import { describe, expect, it } from "vitest";
import { decodeUtf8 } from "../../src/bus/read-bounded.js";

describe("decodeUtf8", () => {
  const answer = "Reviewer-Model: gpt-5\n";
  it.each([
    ["utf16le", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(answer, "utf16le")]), "FF FE"],
    ["utf16be", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(answer, "utf16le").swap16()]), "FE FF"],
  ])("refuses %s text behind its byte-order mark, naming it", (_, bytes, bom) => {
    expect(() => decodeUtf8(bytes, "response-1.md")).toThrow(
      `response-1.md: not valid UTF-8 text (it is UTF-16: it starts with the byte-order mark ${bom}; save it as UTF-8)`,
    );
  });

  it("refuses other bytes as not UTF-8, and reads UTF-8", () => {
    expect(() => decodeUtf8(Buffer.from("caf\xe9\n", "latin1"), "a.md")).toThrow(/^a\.md: not valid UTF-8 text$/);
    expect(decodeUtf8(Buffer.from(answer), "a.md")).toBe(answer);
  });
});
