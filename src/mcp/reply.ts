// How every MCP tool answers: one short text, the same text and the fields as structuredContent; a refusal as a
// tool error (isError) the model can read.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { safeStrings, shownLines, terminalSafe } from "../core/terminal-safe.js";

/**
 * The text, given as its lines, goes into structuredContent too (`message`): some hosts show the model only the
 * structured part. A host decodes the JSON and shows its strings to a person: each is made terminal-safe, and each
 * line stays one line.
 */
export function reply(lines: readonly string[], structured: Record<string, unknown>): CallToolResult {
  const text = shownLines(lines);
  return { content: [{ type: "text", text }], structuredContent: { message: text, ...safeStrings(structured) } };
}

export function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: terminalSafe(message) }], isError: true };
}
