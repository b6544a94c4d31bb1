// How every MCP tool answers: one short text, the same text and the fields as structuredContent; a refusal as a
// tool error (isError) the model can read.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { terminalSafe } from "../core/terminal-safe.js";

/** The text goes into structuredContent too (`message`): some hosts show the model only the structured part. */
export function reply(message: string, structured: Record<string, unknown>): CallToolResult {
  const text = terminalSafe(message); // a host shows it to a person too
  return { content: [{ type: "text", text }], structuredContent: { message: text, ...structured } };
}

export function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: terminalSafe(message) }], isError: true };
}
