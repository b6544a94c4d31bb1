// An MCP host decodes a tool's answer and shows its strings to a person: none of them may drive a terminal.
import { describe, expect, it } from "vitest";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Layout } from "../../src/bus/layout.js";
import { createMcpServer, guardCalls } from "../../src/mcp/server.js";
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

  it("a malformed tools/call is invalid params (-32602) in one line, never an internal error with a schema dump", async () => {
    const server = createMcpServer(new Layout(tempRoot()), { version: "0", instructions: "" });
    const [client, ours] = InMemoryTransport.createLinkedPair();
    await server.connect(ours);
    guardCalls(ours);
    const answers = new Map<unknown, JSONRPCMessage>();
    client.onmessage = (m) => void ("id" in m && answers.set(m.id, m));
    await client.start();
    const calls: Array<[number, unknown]> = [
      [1, { name: 5, arguments: {} }],
      [2, { name: "status", arguments: "x" }],
      [3, null],
      [4, { name: "status", arguments: {} }],
    ];
    for (const [id, params] of calls) await client.send({ jsonrpc: "2.0", id, method: "tools/call", params } as JSONRPCMessage);
    await expect.poll(() => answers.size).toBe(calls.length);
    const error = (id: number) => (answers.get(id) as { error?: { code: number; message: string } }).error;
    expect(error(1)).toEqual({ code: -32602, message: "tools/call: name must be a tool's name, a string (tools/list lists them)" });
    expect(error(2)).toEqual({ code: -32602, message: 'tools/call "status": arguments must be an object of named arguments' });
    expect(error(3)).toEqual({ code: -32602, message: "tools/call needs params {name, arguments}" });
    expect(error(4)).toBeUndefined(); // a well-formed call goes on to the tool
    await server.close();
  });
});
