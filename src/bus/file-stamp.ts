// A file's identity and last change, to tell cheaply (one stat) whether it changed since it was read.
import { statSync } from "node:fs";

/** Inode, size, mtime and ctime ("" when absent): an edit, or a file put in its place, changes it. */
export function fileStamp(file: string): string {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    return st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : "";
  } catch (error) {
    return `unreadable: ${(error as NodeJS.ErrnoException).code}`;
  }
}
