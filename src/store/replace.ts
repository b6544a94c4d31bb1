// Regenerated views (trail.md, …) are replaced atomically; they are never the source of truth.
import { mkdirSync } from "node:fs";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";

/** `durable: false` skips the fsync for views that are regenerated from the files anyway. */
export async function replace(finalPath: string, bytes: string | Uint8Array, options: { durable?: boolean } = {}): Promise<void> {
  mkdirSync(path.dirname(finalPath), { recursive: true });
  await writeFileAtomic(finalPath, typeof bytes === "string" ? bytes : Buffer.from(bytes), { fsync: options.durable ?? true });
}
