// The one way the bus reads a file it did not write itself: a regular file (never a FIFO, device or directory;
// a final symlink only where the caller allows it), at most `max` bytes, read from the descriptor it checked.
import path from "node:path";
import { faultFlag } from "./system-fault.js";
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from "node:fs";

export class ReadRefused extends Error {
  constructor(
    readonly file: string,
    readonly kind: "missing" | "not-regular" | "too-large" | "symlink" | "unreadable" | "not-utf8",
    message: string,
    /** The errno code of an "unreadable" file, when the system gave one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = "ReadRefused";
  }
}

export interface ReadOptions {
  /** Refuse a file larger than this many bytes. */
  max: number;
  /** Follow a symlink at the last component (project artifacts may be links inside the project; bus files may not). */
  followSymlink?: boolean;
}

/** The file's bytes, or a ReadRefused with a one-line reason. Opening with O_NONBLOCK keeps a FIFO from blocking us. */
export function readBounded(file: string, { max, followSymlink = false }: ReadOptions): Buffer {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (followSymlink ? 0 : constants.O_NOFOLLOW));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ReadRefused(file, "missing", `${file}: no such file`);
    if (code === "ELOOP") {
      // O_NOFOLLOW says a final link so; the same code says a link on the way loops (two .guild links to each other)
      const loop = loopingLink(file);
      if (loop) throw new ReadRefused(file, "unreadable", `${file}: cannot open: ${loop}`, code);
      throw new ReadRefused(file, "symlink", `${file}: is a symlink (deliver a regular file)`);
    }
    // a socket cannot be opened at all: named as the FIFO and the device are, not as a bare ENXIO
    const kind = code === "ENXIO" ? kindAt(file, followSymlink) : null;
    if (kind) throw new ReadRefused(file, "not-regular", `${file}: not a regular file (${kind})`);
    throw new ReadRefused(file, "unreadable", `${file}: cannot open (${code ?? (error as Error).message})`, code);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ReadRefused(file, "not-regular", `${file}: not a regular file (${kindOf(st)})`);
    if (st.size > max) throw new ReadRefused(file, "too-large", `${file}: too large (${st.size} bytes; the limit is ${max})`);
    // One byte past the size: a file that grew since fstat fills it and is read on to its bound (refused past it,
    // never cut short). Sized to the file, not a fixed floor: a read of each small bus file must not allocate a large
    // buffer (many of them at once made the garbage collector a tenth of `status`'s time).
    const buf = Buffer.allocUnsafe(Math.min(max + 1, st.size + 1));
    let used = 0;
    for (;;) {
      if (used === buf.length) {
        if (used > max) break;
        return growAndRead(fd, file, buf, max);
      }
      const n = readSync(fd, buf, used, buf.length - used, null);
      if (n === 0) break;
      used += n;
    }
    if (used > max) throw new ReadRefused(file, "too-large", `${file}: too large (more than ${max} bytes)`);
    return buf.subarray(0, used);
  } catch (error) {
    if (error instanceof ReadRefused) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ReadRefused(file, "unreadable", `${file}: cannot read (${code ?? (error as Error).message})`, code);
  } finally {
    closeSync(fd);
  }
}

/** The first link on `file`'s path that never resolves (it leads back to itself), said with its target; else null. */
function loopingLink(file: string): string | null {
  const parts = path.resolve(file).split(path.sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const at = path.sep + parts.slice(0, i).join(path.sep);
    try {
      realpathSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOOP") return null;
      let target = "?";
      try {
        target = readlinkSync(at);
      } catch {
        // raced away: named without its target
      }
      return `${at} is a symbolic link that leads back to itself (-> ${target}, a loop of links): point it at a real directory`;
    }
  }
  return null;
}

/** Goes on reading into a buffer of the limit's size once `full` (all bytes read so far) is full. */
function growAndRead(fd: number, file: string, full: Buffer, max: number): Buffer {
  const buf = Buffer.allocUnsafe(max + 1);
  let used = full.copy(buf);
  for (;;) {
    const n = readSync(fd, buf, used, buf.length - used, null);
    if (n === 0) return buf.subarray(0, used);
    used += n;
    if (used > max) throw new ReadRefused(file, "too-large", `${file}: too large (more than ${max} bytes)`);
  }
}

/** What is at `file` when it is not a regular file, else null (it went, or it is one). */
function kindAt(file: string, follow: boolean): string | null {
  try {
    const st = follow ? statSync(file) : lstatSync(file);
    return st.isFile() ? null : kindOf(st);
  } catch {
    return null;
  }
}

/** What a path that is no regular file is, as every reason names it (SPEC §5). */
export function kindOf(st: import("node:fs").Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSocket()) return "a socket";
  return "not a file";
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Text from bytes that must be valid UTF-8: two different byte strings never decode to the same text. */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ReadRefused(file, "not-utf8", `${file}: not valid UTF-8 text${utf16Said(bytes)}`);
  }
}

/**
 * What Windows PowerShell 5's `>` and Out-File, and Notepad's "Unicode", write is UTF-16 behind its byte-order mark:
 * said, so the writer learns what to change rather than only that the bytes are not UTF-8.
 */
function utf16Said(bytes: Uint8Array): string {
  const bom = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  return bom ? ` (it is UTF-16: it starts with the byte-order mark ${bytes[0] === 0xff ? "FF FE" : "FE FF"}; save it as UTF-8)` : "";
}

/** readBounded, then strict UTF-8 decoding. */
export function readTextBounded(file: string, options: ReadOptions): string {
  return decodeUtf8(readBounded(file, options), file);
}

/** A file's bytes and their strict UTF-8 text, or why it cannot be read (fault: the system's failure, not the file's). */
export function readBytesAndText(
  file: string,
  options: ReadOptions,
): { ok: true; bytes: Buffer; text: string } | { ok: false; reason: string; fault?: true } {
  try {
    const bytes = readBounded(file, options);
    return { ok: true, bytes, text: decodeUtf8(bytes, path.basename(file)) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message, ...faultFlag(error) };
  }
}

/**
 * A stream (standard input) read to its end, but never past `max` bytes: refused as soon as it passes the limit,
 * so an endless source (`< /dev/zero`) cannot make us read forever.
 */
export async function readStreamBounded(stream: AsyncIterable<Buffer | string>, max: number, name = "stdin"): Promise<Buffer> {
  const parts: Buffer[] = [];
  let used = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    used += bytes.length;
    // leaving the loop destroys the stream
    if (used > max) throw new ReadRefused(name, "too-large", `${name}: too large (more than ${max} bytes)`);
    parts.push(bytes);
  }
  return Buffer.concat(parts, used);
}
