// Appending whole lines to a log another writer may have died in the middle of.
import { appendFileSync, fstatSync, readSync } from "node:fs";

/**
 * Append `text` (whole lines) to the file open at `fd` with O_APPEND and O_NOFOLLOW. Only a regular file with no other
 * name is written: a hard link someone made would carry the lines out of .guild as a symlink would (SPEC §2). A writer
 * that died mid-line left a torn tail: a newline first ends it, or the first of these lines would be lost with it.
 */
export function appendAfterTornTail(fd: number, text: string, file: string): void {
  const st = fstatSync(fd);
  if (!st.isFile()) throw new Error(`${file}: not a regular file`);
  if (st.nlink > 1) throw new Error(`${file}: has ${st.nlink} names (a hard link), not written through`);
  const last = Buffer.alloc(1);
  const torn = st.size > 0 && readSync(fd, last, 0, 1, st.size - 1) === 1 && last[0] !== 0x0a;
  appendFileSync(fd, torn ? "\n" + text : text);
}
