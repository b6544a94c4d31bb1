// What a command reads from the user: a named file or standard input, always bounded (a FIFO, device or directory is
// refused; an endless stdin is cut off at the limit) and strict UTF-8.
import { decodeUtf8, readStreamBounded, readTextBounded } from "../bus/read-bounded.js";

/** Text of `file`, or of stdin for "-" or no file; throws a one-line ReadRefused. */
export async function readUserText(file: string | undefined, max: number): Promise<string> {
  if (file === undefined || file === "-") return decodeUtf8(await readStreamBounded(process.stdin, max), "stdin");
  return readTextBounded(file, { max, followSymlink: true });
}
