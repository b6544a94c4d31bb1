// Regenerated views (trail.md, …) are replaced atomically; they are never the source of truth.
// The temp file is staged under .guild/tmp like a delivery, not beside the view: a writer SIGKILLed mid-write
// must leave nothing in a gate directory (write-file-atomic's `trail.md.<n>` did), and the janitor reclaims a
// dead pid's staging by its name.
import { constants, lstatSync, openSync, promises } from "node:fs";
import path from "node:path";
import { fsyncDir, stagingName, usableStagingDir, withDir, writeAndClose } from "./deliver.js";
import { realFs } from "./fsops.js";
import { refuseSymlinks } from "./no-symlinks.js";

export interface ReplaceOptions {
  /** The .guild directory: the temp file goes to <guildDir>/tmp, on the same filesystem as the view. */
  guildDir: string;
  /** fsync the file and the directory (default true); views regenerated from the files anyway may skip it. */
  durable?: boolean;
  /** As deliver's (DeliverOptions.makeDirs): true for a command that may make the directories the file lacks (`init`
   * writing a host's config directory); a worker's view (a gate's trail.md) never makes its gate again. */
  makeDirs?: boolean;
}

/** The permissions of the file being replaced (a project file `init` merges into may hold a key, 0600), else 0644. */
function modeToKeep(finalPath: string): number {
  const st = lstatSync(finalPath, { throwIfNoEntry: false });
  return st?.isFile() ? st.mode & 0o777 : 0o644;
}

export async function replace(finalPath: string, bytes: string | Uint8Array, options: ReplaceOptions): Promise<void> {
  const durable = options.durable ?? true;
  const stagingDir = usableStagingDir(options.guildDir); // the final directory is checked just before the rename
  const staging = path.join(stagingDir, stagingName(finalPath));
  const finalDir = path.dirname(finalPath);
  const data = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  try {
    // the directories usually exist: made only when open() or rename() says they are missing
    const fd = await withDir(realFs, options, stagingDir, () => realFs.open(staging, "wx", modeToKeep(finalPath)));
    await writeAndClose(realFs, fd, data, durable);
    const rename = async () => {
      refuseSymlinks(options.guildDir, finalDir);
      try {
        // on the thread pool: a rename into a directory other workers list waits on its lock and the journal, at times
        // for milliseconds, and a view's rename must not hold every other gate's step back meanwhile
        await promises.rename(staging, finalPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
        // the view's directory is on another filesystem than .guild/tmp (runs on their own mount): a view is never the
        // source of truth, so it is rewritten in place rather than never (a reader may see it half-written for a moment)
        await rewriteInPlace(finalPath, data, durable);
        await realFs.unlink(staging);
      }
    };
    await withDir(realFs, options, finalDir, rename);
  } catch (error) {
    await realFs.unlink(staging).catch(() => undefined); // else left for the janitor: the name says whose it is
    throw error;
  }
  if (durable) await fsyncDir(realFs, finalDir);
}

async function rewriteInPlace(finalPath: string, data: Uint8Array, durable: boolean): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  await writeAndClose(realFs, openSync(finalPath, flags, modeToKeep(finalPath)), data, durable);
}
