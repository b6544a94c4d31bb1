// Append-only JSONL: one validated record per line, one write() per line (O_APPEND keeps lines whole locally).
import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";

export function appendJsonl<T>(file: string, record: T, schema: z.ZodType<T>): void {
  const line = JSON.stringify(schema.parse(record)) + "\n";
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, "a+");
  try {
    // A writer that died mid-line left a torn tail: start a fresh line, or this record is lost with it.
    const size = fstatSync(fd).size;
    const last = Buffer.alloc(1);
    const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
    appendFileSync(fd, torn ? "\n" + line : line);
  } finally {
    closeSync(fd);
  }
}

/** Lenient reader: malformed lines and lines that fail the schema are skipped, never fatal. */
export function readJsonl<T>(file: string, schema: z.ZodType<T>): T[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: T[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const parsed = schema.safeParse(JSON.parse(line));
      if (parsed.success) out.push(parsed.data);
    } catch {
      // a torn or foreign line: skipped
    }
  }
  return out;
}
