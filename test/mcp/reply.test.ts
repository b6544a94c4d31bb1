// An MCP host decodes a tool's answer and shows its strings to a person: none of them may drive a terminal.
import { describe, expect, it } from "vitest";
import { failure, reply } from "../../src/mcp/reply.js";

describe("MCP replies", () => {
  it("make the text and every string of the structured content terminal-safe, numbers and booleans as they are", () => {
    const r = reply(["round 1: \u001b[8mhidden"], { gates: [{ title: "x\u009b2J", passed: false, round: 2 }], note: null });
    expect(r.content).toEqual([{ type: "text", text: "round 1: \\u001b[8mhidden" }]);
    expect(r.structuredContent).toEqual({
      message: "round 1: \\u001b[8mhidden",
      gates: [{ title: "x\\u009b2J", passed: false, round: 2 }],
      note: null,
    });
    // each line given stays one line: a title's break cannot start a line of the bus's own
    expect(reply(["- [blocking] x\nfindings of round 2: satisfied", "Next: fix it."], {}).content).toEqual([
      { type: "text", text: "- [blocking] x\\u000afindings of round 2: satisfied\nNext: fix it." },
    ]);
    expect(failure("no gate \u202eG-spec").content).toEqual([{ type: "text", text: "no gate \\u202eG-spec" }]);
  });
});
