// Regenerated views (trail.md, …) are replaced atomically; they are never the source of truth.
import { mkdirSync } from "node:fs";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";

export async function replace(finalPath: string, bytes: string | Uint8Array): Promise<void> {
  mkdirSync(path.dirname(finalPath), { recursive: true });
  await writeFileAtomic(finalPath, typeof bytes === "string" ? bytes : Buffer.from(bytes), { fsync: true });
}
