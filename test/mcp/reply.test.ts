// An MCP host decodes a tool's answer and shows its strings to a person: none of them may drive a terminal.
import { describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { failure, reply } from "../../src/mcp/reply.js";
import { inMemoryMcp, textOf } from "../helpers/mcp-client.js";
import { tempRoot } from "../helpers/tmp.js";

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

  it("the SDK's own tool errors quote what the client sent terminal-safe: an unknown tool name, a refused argument", async () => {
    const mcp = await inMemoryMcp(new Layout(tempRoot()));
    try {
      const unknown = await mcp.call("statu\u001b]0;pwned\u0007s", {});
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toBe("MCP error -32602: Tool statu\\u001b]0;pwned\\u0007s not found");
      const refused = await mcp.call("status", { run_id: 5, gate: "G-\u009b2J" });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^MCP error -32602: Input validation error: .*run_id/);
      // eslint-disable-next-line no-control-regex -- no raw control character reaches the host
      for (const r of [unknown, refused]) expect(textOf(r)).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    } finally {
      await mcp.close();
    }
  });
});
