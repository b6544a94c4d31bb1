// `guild-bus mcp`: the bus as a stdio MCP server (@modelcontextprotocol/sdk). One more writer of the same files as the
// CLI, through the same command layer; the author host of every request is the client named in the handshake.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Layout } from "../bus/layout.js";
import { type AuthorHost, hostFromClientInfo } from "./client-host.js";
import { registerTools } from "./tools.js";

export const MCP_SERVER_NAME = "guild-bus";

/** Below the shortest default tool timeout of the hosts (codex: 60 s), so a default wait is never cut off. */
export const DEFAULT_WAIT_SECONDS = 45;

export interface McpServerOptions {
  version: string;
  instructions: string;
  waitSeconds?: number;
}

export function createMcpServer(layout: Layout, o: McpServerOptions): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: o.version }, { instructions: o.instructions });
  const client = (): AuthorHost | null => hostFromClientInfo(server.server.getClientVersion());
  registerTools(server, { layout, client, waitSeconds: o.waitSeconds ?? DEFAULT_WAIT_SECONDS });
  return server;
}

/** Serve on stdin/stdout until the client closes the stream. */
export async function serveStdio(server: McpServer): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  process.stdin.once("end", () => void server.close());
  await closed;
}
