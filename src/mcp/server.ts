// `guild-bus mcp`: the bus as a stdio MCP server (@modelcontextprotocol/sdk). One more writer of the same files as the
// CLI, through the same command layer; the author host of every request is the client named in the handshake.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Layout } from "../bus/layout.js";
import { type AuthorHost, hostFromClientInfo } from "./client-host.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { terminalSafe } from "../core/terminal-safe.js";
import { failure } from "./reply.js";
import { registerTools } from "./tools.js";

export const MCP_SERVER_NAME = "guild-bus";

/** Below the shortest default tool timeout of the hosts (codex: 60 s), so a default wait is never cut off. */
export const DEFAULT_WAIT_SECONDS = 45;

export interface McpServerOptions {
  version: string;
  instructions: string;
  waitSeconds?: number;
  /**
   * Settles once the workers this server started can be seen (their `up` holds the lock, or it ended); `create`
   * (a review is requested) first makes .guild/ in a tree that has none, whose workers wait for it.
   */
  workers?: (o?: { create?: boolean }) => Promise<void>;
}

export function createMcpServer(layout: Layout, o: McpServerOptions): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: o.version }, { instructions: o.instructions });
  const client = (): AuthorHost | null => hostFromClientInfo(server.server.getClientVersion());
  registerTools(server, { layout, client, waitSeconds: o.waitSeconds ?? DEFAULT_WAIT_SECONDS, workers: o.workers });
  // the SDK's own tool errors (an unknown tool, arguments its schema refuses) quote what the client sent, a tool name
  // with escapes included, to a host that shows them to a person: made terminal-safe as every answer of ours is
  (server as unknown as { createToolError: (message: string) => CallToolResult }).createToolError = failure;
  return server;
}

/**
 * Above the largest message the tool schemas accept (a 4 Mi-character text, each character escaped to six bytes):
 * the SDK's 10 MiB default closed the server on a call its own schemas allow.
 */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Why a tools/call request is malformed (no tool could take it), or null: the SDK answers those -32603 with a zod dump. */
function malformedCall(message: JSONRPCMessage): string | null {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return null;
  const params: unknown = message.params;
  if (typeof params !== "object" || params === null) return "tools/call needs params {name, arguments}";
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string") return "tools/call: name must be a tool's name, a string (tools/list lists them)";
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
    return `tools/call ${JSON.stringify(name)}: arguments must be an object of named arguments`;
  return null;
}

/** Answer a malformed tools/call as invalid params (-32602) with one line, before the SDK sees it (set after connect). */
export function guardCalls(transport: Transport): void {
  const handle = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const bad = malformedCall(message);
    if (bad === null || !("id" in message)) return handle?.(message, extra);
    void transport.send({ jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.InvalidParams, message: terminalSafe(bad) } });
  };
}

/** Serve on stdin/stdout until the client closes the stream; a transport that fails says why and exits 1. */
export async function serveStdio(server: McpServer): Promise<void> {
  let failure: Error | null = null;
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  server.server.onerror = (error) => {
    failure ??= error;
    process.stderr.write(`guild-bus mcp: ${error.message}\n`);
  };
  const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES });
  await server.connect(transport);
  guardCalls(transport);
  let ended = false;
  process.stdin.once("end", () => {
    ended = true;
    void server.close();
  });
  await closed;
  // closed by the transport itself (a message past the bound), not by the client: not a clean end
  if (failure && !ended) throw new Error(`the MCP connection failed: ${(failure as Error).message}`);
}
