// Appending whole lines to a log another writer may have died in the middle of.
import { appendFileSync, fstatSync, readSync, type Stats } from "node:fs";

/**
 * Append `text` (whole lines) to the file open at `fd` with O_APPEND and O_NOFOLLOW. Only a regular file with no other
 * name is written: a hard link someone made would carry the lines out of .guild as a symlink would (SPEC §2). A writer
 * that died mid-line left a torn tail: a newline first ends it, or the first of these lines would be lost with it.
 */
export function appendAfterTornTail(fd: number, text: string, file: string): void {
  const st = fstatSync(fd);
  const problem = notWritableInPlace(st);
  if (problem) throw new Error(`${file}: ${problem}`);
  const last = Buffer.alloc(1);
  const torn = st.size > 0 && readSync(fd, last, 0, 1, st.size - 1) === 1 && last[0] !== 0x0a;
  appendFileSync(fd, torn ? "\n" + text : text);
}

/** Why a file must not be written in place (appended to, re-dated): not a regular file, or one with another name. */
export function notWritableInPlace(st: Stats): string | null {
  if (!st.isFile()) return "not a regular file";
  return st.nlink > 1 ? `has ${st.nlink} names (a hard link), not written through` : null;
}
