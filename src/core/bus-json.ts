// The JSON files the bus writes, as `cat` shows them: the foreign text they carry (a reviewer's finding, a model name,
// a failure's reason) keeps its C1 and bidirectional controls as \u escapes, as terminalSafe shows them elsewhere.
// JSON.stringify escapes only C0; an escape decodes to the same character, so every reader gets the same value.
import { terminalSafe } from "./terminal-safe.js";

export function busJson(value: unknown): string {
  return terminalSafe(JSON.stringify(value, null, 2)) + "\n";
}
