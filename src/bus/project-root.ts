// The project root, found the way git finds its work tree: the nearest directory above (or at) the current one
// that holds .guild/, else the git work-tree root, else the current directory itself.
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

function nearestWith(start: string, entry: string, isDir: boolean): string | null {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, entry);
    if (existsSync(candidate) ? !isDir || statSync(candidate).isDirectory() : isDir && isLink(candidate)) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** A link that leads nowhere now (a bus on a disk not mounted) still marks its project: never a parent's .guild/. */
function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The root a command without `--root` works on, from `cwd`. */
export function findProjectRoot(cwd: string): string {
  return nearestWith(cwd, ".guild", true) ?? nearestWith(cwd, ".git", false) ?? path.resolve(cwd);
}

/**
 * A path the user typed, as the project sees it: relative to the current directory when that lies inside the
 * project (so `review spec.md` from docs/ means docs/spec.md), else relative to the root as before.
 */
export function userPath(root: string, cwd: string, typed: string): string {
  // the root as given and as it really is: `cwd` is always real, a `--root` may be spelled through a symlink
  const inside = [path.resolve(root), realOr(root)].some((r) => {
    const rel = path.relative(r, path.resolve(cwd));
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  });
  // an empty name stays empty (refused as naming nothing), not the directory the command runs in; a drive path
  // (`c:notes.md`) stays as typed, for the command to refuse as one rather than look for docs/c:notes.md
  return inside && typed.trim() && !/^[A-Za-z]:/.test(typed) ? path.resolve(cwd, typed) : typed;
}

function realOr(dir: string): string {
  try {
    return realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}

/** Why the project's .guild cannot be used: a link that leads nowhere now (the bus's disk not mounted); else null. */
export function lostGuildLink(root: string): string | null {
  const guild = path.join(root, ".guild");
  if (existsSync(guild) || !isLink(guild)) return null;
  let target = "?";
  try {
    target = readlinkSync(guild);
  } catch {
    // raced away: named without its target
  }
  return (
    `${guild} is a link to ${target}, which leads nowhere (a disk not mounted?): ` +
    "mount it or point the link at the bus, then run the command again"
  );
}
