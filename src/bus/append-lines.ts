// Appending whole lines to a log another writer may have died in the middle of.
import { appendFileSync, fstatSync, readSync } from "node:fs";

/**
 * Append `text` (whole lines) to the file open at `fd` with O_APPEND. A writer that died mid-line left a torn tail:
 * a newline first ends it, or the first of these lines would be lost with it.
 */
export function appendAfterTornTail(fd: number, text: string): void {
  const size = fstatSync(fd).size;
  const last = Buffer.alloc(1);
  const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
  appendFileSync(fd, torn ? "\n" + text : text);
}
