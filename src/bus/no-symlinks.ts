// No bus path component below .guild may be a symlink (SPEC §2): a linked run or gate directory would carry our
// writes (and a paid dispatch's packet) out of the tree. Checked before every write into a directory, with lstat.
import { lstatSync } from "node:fs";
import path from "node:path";

export class PathSafetyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PathSafetyError";
  }
}

/** Whether `target` lies (lexically) inside guildDir. */
export function insideGuild(guildDir: string, target: string): boolean {
  const rel = path.relative(guildDir, path.resolve(target));
  return !(rel.startsWith("..") || path.isAbsolute(rel));
}

/**
 * Throw if any existing component from guildDir down to `target` (inclusive) is a symlink. Paths outside guildDir
 * are the caller's to refuse (the layout builds every bus path inside it); nothing below .guild is checked for them.
 */
export function refuseSymlinks(guildDir: string, target: string): void {
  if (!insideGuild(guildDir, target)) return;
  const rel = path.relative(guildDir, path.resolve(target));
  let cur = guildDir;
  for (const part of rel ? rel.split(path.sep) : []) {
    cur = path.join(cur, part);
    let st;
    try {
      st = lstatSync(cur);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return; // does not exist (yet): nothing below it can be a link
      throw error; // unchecked is not safe: the write is refused (and retried by its caller)
    }
    if (st.isSymbolicLink()) throw new PathSafetyError(`symlink refused inside .guild: ${path.relative(path.dirname(guildDir), cur)}`);
  }
}

/**
 * Why a file of the user's that a command edits for them (`init`, `gate on|off`) is not written: a link on its path
 * (the file, or a directory such as `.claude` linked to the user's own) is theirs to keep, and writing through it
 * could reach any file outside the project. Null when no component of `rel` under `root` is a link.
 */
export function linkedFileRefusal(root: string, rel: string, command: string): string | null {
  const parts = rel.split("/");
  for (let i = 1; i <= parts.length; i++) {
    const linked = parts.slice(0, i).join("/");
    if (!lstatSync(path.join(root, linked), { throwIfNoEntry: false })?.isSymbolicLink()) continue;
    return (
      `${linked} is a symbolic link: ${command} neither writes through a link nor replaces it` +
      (linked === rel ? "; make the change in the file it points to, or put a copy of that file in its place" : ` (${rel} is under it)`)
    );
  }
  return null;
}
