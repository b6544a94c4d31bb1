// How every MCP tool answers: one short text, the same text and the fields as structuredContent; a refusal as a
// tool error (isError) the model can read.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { terminalSafe } from "../core/terminal-safe.js";

/** The text goes into structuredContent too (`message`): some hosts show the model only the structured part. */
export function reply(message: string, structured: Record<string, unknown>): CallToolResult {
  // a host decodes the JSON and shows its strings to a person too: each is made terminal-safe
  const text = terminalSafe(message);
  return { content: [{ type: "text", text }], structuredContent: { message: text, ...(safeStrings(structured) as object) } };
}

/** The value with every string in it terminal-safe. */
function safeStrings(value: unknown): unknown {
  if (typeof value === "string") return terminalSafe(value);
  if (Array.isArray(value)) return value.map(safeStrings);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [terminalSafe(k), safeStrings(v)]));
  return value;
}

export function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: terminalSafe(message) }], isError: true };
}
