// How every MCP tool answers: one short text, the same text and the fields as structuredContent; a refusal as a
// tool error (isError) the model can read.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** The text goes into structuredContent too (`message`): some hosts show the model only the structured part. */
export function reply(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: { message: text, ...structured } };
}

export function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
