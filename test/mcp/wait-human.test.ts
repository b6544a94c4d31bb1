// A gate only a person can move on (its directory a link the bus refuses) is "still running" to wait, but the answer
// must not tell the model that waiting is the step: "No outcome yet: call wait again" had it poll for ever.
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createMcpServer } from "../../src/mcp/server.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("wait on a gate only a person can move", () => {
  it("says a person must act, not only to call wait again", async () => {
    const g = await gateWithPacket("linked");
    const elsewhere = path.join(g.root, "elsewhere");
    mkdirSync(elsewhere);
    const run = "planted";
    mkdirSync(path.join(g.layout.runs, run, "review"), { recursive: true });
    symlinkSync(elsewhere, path.join(g.layout.runs, run, "review", GATE));
    const server = createMcpServer(g.layout, { version: "0", instructions: "" });
    const client = new Client({ name: "claude-code", version: "1" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const r = (await client.callTool({ name: "wait", arguments: { run_id: run, gate: GATE, timeout_seconds: 1 } })) as CallToolResult;
      const text = (r.content[0] as { text: string }).text;
      expect(text).toContain("waiting for a human");
      expect(text).toContain("A person must act first");
      expect(text).not.toContain("No outcome yet");
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("the status tool and a directory the bus refuses", () => {
  it("names it, as `status` does, rather than leaving the hidden gate out unsaid", async () => {
    const g = await gateWithPacket("listed");
    const elsewhere = path.join(g.root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(g.layout.runs, "planted"));
    const server = createMcpServer(g.layout, { version: "0", instructions: "" });
    const client = new Client({ name: "claude-code", version: "1" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const r = (await client.callTool({ name: "status", arguments: {} })) as CallToolResult;
      const text = (r.content[0] as { text: string }).text;
      expect(text).toMatch(/ignored \(tell the user; it hides gates `check` fails\): \.guild\/runs\/planted — symlink refused/);
      expect(text).toContain("listed G-spec");
      expect((r.structuredContent as { ignored: unknown[] }).ignored).toHaveLength(1);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
