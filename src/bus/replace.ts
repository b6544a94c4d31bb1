// Regenerated views (trail.md, …) are replaced atomically; they are never the source of truth.
// The temp file is staged under .guild/tmp like a delivery, not beside the view: a writer SIGKILLed mid-write
// must leave nothing in a gate directory (write-file-atomic's `trail.md.<n>` did), and the janitor reclaims a
// dead pid's staging by its name.
import { mkdir, open, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { fsyncDir, stagingName } from "./deliver.js";
import { realFs } from "./fsops.js";
import { refuseSymlinks } from "./no-symlinks.js";

export interface ReplaceOptions {
  /** The .guild directory: the temp file goes to <guildDir>/tmp, on the same filesystem as the view. */
  guildDir: string;
  /** fsync the file and the directory (default true); views regenerated from the files anyway may skip it. */
  durable?: boolean;
}

export async function replace(finalPath: string, bytes: string | Uint8Array, options: ReplaceOptions): Promise<void> {
  const durable = options.durable ?? true;
  const stagingDir = path.join(options.guildDir, "tmp");
  const staging = path.join(stagingDir, stagingName(finalPath));
  refuseSymlinks(options.guildDir, stagingDir);
  await mkdir(stagingDir, { recursive: true });
  refuseSymlinks(options.guildDir, path.dirname(finalPath));
  await mkdir(path.dirname(finalPath), { recursive: true });
  try {
    const handle = await open(staging, "wx", 0o644);
    try {
      await handle.writeFile(bytes);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(staging, finalPath);
  } catch (error) {
    await unlink(staging).catch(() => undefined); // else left for the janitor: the name says whose it is
    throw error;
  }
  if (durable) fsyncDir(realFs, path.dirname(finalPath));
}
