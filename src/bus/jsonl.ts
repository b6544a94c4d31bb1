// Append-only JSONL: one validated record per line, one write() per line (O_APPEND keeps lines whole locally).
import { closeSync, constants, openSync } from "node:fs";
import type * as z from "zod/mini";
import { appendAfterTornTail } from "./append-lines.js";
import { readTextBounded } from "./read-bounded.js";

/** A run's events file is read whole only up to this size. */
const MAX_EVENTS_BYTES = 64 * 1024 * 1024;

/** Appends to a file in a directory that exists (a run's): none is made, so a run removed meanwhile is not made again. */
export function appendJsonl<T>(file: string, record: T, schema: z.ZodMiniType<T>): void {
  const line = JSON.stringify(schema.parse(record)) + "\n";
  // O_NOFOLLOW: a linked events.jsonl would carry our lines out of .guild (SPEC §2); a non-file or hard link is refused too
  const fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  try {
    appendAfterTornTail(fd, line, file);
  } finally {
    closeSync(fd);
  }
}

/** Lenient reader: malformed lines and lines that fail the schema are skipped, never fatal. */
export function readJsonl<T>(file: string, schema: z.ZodMiniType<T>): T[] {
  let text: string;
  try {
    text = readTextBounded(file, { max: MAX_EVENTS_BYTES });
  } catch {
    return [];
  }
  const out: T[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const parsed = schema.safeParse(JSON.parse(line));
      if (parsed.success) out.push(parsed.data);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error; // only JSON.parse may fail here: a torn or foreign line
    }
  }
  return out;
}
