// Append-only JSONL: one validated record per line, one write() per line (O_APPEND keeps lines whole locally).
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";

export function appendJsonl<T>(file: string, record: T, schema: z.ZodType<T>): void {
  const checked = schema.parse(record);
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, JSON.stringify(checked) + "\n");
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
