// A reviewer's memory (hard and nightmare difficulty) as memory-<n>.md holds it: what `cat` shows is its text, never
// the control characters a reviewer put in it. The next packet takes the file only while it is this of the result.
import { terminalSafe } from "./terminal-safe.js";

export function memoryText(memoryUpdate: string): string {
  return terminalSafe(memoryUpdate.trim());
}
