// An MCP client (the SDK's own) on `guild-bus mcp` over stdio, for the protocol tests: the real server process, the
// real workers it starts, a temp project.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Layout } from "../../src/bus/layout.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { BIN } from "./bus.js";

export interface McpSession {
  client: Client;
  /** The server process. */
  pid: number | null;
  stderr: () => string;
  call(
    name: string,
    args: Record<string, unknown>,
    opts?: { timeoutMs?: number; onprogress?: (p: { message?: string }) => void },
  ): Promise<Tool>;
  close(): Promise<void>;
}

export type Tool = CallToolResult & { structuredContent?: Record<string, unknown> };

export const textOf = (r: Tool): string => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

/** Connect as `clientName` (what the server records as the author host) to a server on `root`. */
export async function mcpSession(root: string, clientName: string, serverArgs: string[] = []): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--root", root, ...serverArgs],
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (b: Buffer) => (err += b.toString()));
  const client = new Client({ name: clientName, version: "1.2.3" });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    stderr: () => err,
    async call(name, args, opts = {}) {
      return (await client.callTool({ name, arguments: args }, undefined, {
        timeout: opts.timeoutMs ?? 120_000,
        ...(opts.onprogress ? { onprogress: opts.onprogress } : {}),
      })) as Tool;
    },
    close: () => client.close(),
  };
}

/** The MCP server on `layout` in this process, and a client named claude-code connected to it in memory. */
export async function inMemoryMcp(layout: Layout) {
  const server = createMcpServer(layout, { version: "0", instructions: "" });
  const client = new Client({ name: "claude-code", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Tool;
  return { client, call, close: async () => (await client.close(), await server.close()) };
}
