// No bus path component below .guild may be a symlink (SPEC §2): a linked run or gate directory would carry our
// writes (and a paid dispatch's packet) out of the tree. Checked before every write into a directory, with lstat.
import { lstatSync, realpathSync } from "node:fs";
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
 * Where a command that edits a file of the user's for them (`init`, `gate on|off`) writes it: the file itself, or,
 * through links on its path (AGENTS.md linked to CLAUDE.md), the file they lead to while it stays in the project and
 * out of the bus's and the repository's own state (.guild/, .git/). A link leading anywhere else (a `.claude` linked to
 * the user's own, one settings file shared by worktrees, a cloned repository's link into .git/config) is theirs to
 * keep, and writing through it could reach any file: refused, never replaced. A file written `whole` (one of
 * guild-bus's own) is never written through a link of its own: that would replace whatever file the link names.
 */
export function userFileTarget(root: string, rel: string, command: string, { whole = false } = {}): { path: string } | { refused: string } {
  const parts = rel.split("/");
  const linked = parts.findIndex((_, i) =>
    lstatSync(path.join(root, ...parts.slice(0, i + 1)), { throwIfNoEntry: false })?.isSymbolicLink(),
  );
  if (linked < 0) return { path: path.join(root, rel) };
  const link = parts.slice(0, linked + 1).join("/");
  if (whole && lstatSync(path.join(root, rel), { throwIfNoEntry: false })?.isSymbolicLink())
    return { refused: `${rel} is a symbolic link: ${command} writes this file whole, and would replace the file it leads to` };
  let real: string;
  try {
    // the part that exists is resolved; what is still to be made below it is made there
    const existing = parts.slice(0, linked + 1);
    const exists = (n: number) => lstatSync(path.join(root, ...parts.slice(0, n)), { throwIfNoEntry: false }) !== undefined;
    while (existing.length < parts.length && exists(existing.length + 1)) existing.push(parts[existing.length]!);
    real = path.join(realpathSync.native(path.join(root, ...existing)), ...parts.slice(existing.length));
  } catch (error) {
    return {
      refused: `${link} is a symbolic link that cannot be followed (${(error as Error).message}): ${command} does not replace it`,
    };
  }
  const top = realpathSync.native(root);
  const state = [".guild", ".git"].find((dir) => real === path.join(top, dir) || real.startsWith(path.join(top, dir) + path.sep));
  if (real.startsWith(top + path.sep) && !state) return { path: real };
  return {
    refused:
      `${link} is a symbolic link leading ${state ? `into ${state}/` : "out of the project"}: ${command} neither ` +
      `writes through it nor replaces it` +
      (link === rel ? "; make the change in the file it points to, or put a copy of that file in its place" : ` (${rel} is under it)`),
  };
}
