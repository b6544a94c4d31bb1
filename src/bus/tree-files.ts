// The project's files a glob names, for `check --require-files`: a requirement is tied to the files in the tree, so a
// file added without a review is seen (a gate name alone passes while any run of that gate passed).
import path from "node:path";
import { fdir } from "fdir";
import picomatch from "picomatch";
import type { Layout } from "./layout.js";
import { PathSafetyError } from "./no-symlinks.js";

/** Never artifacts: git's state (at the root), a bus's state and installed packages (anywhere: a nested project's too). */
const GUILD_NAME = ".guild";
const ANYWHERE = new Set([GUILD_NAME, "node_modules"]);

/**
 * Project-relative paths (with `/`) of the files `pattern` matches, sorted. Dot files count (a requirement matches
 * more, never less); a link is listed as a file and never followed (what it leads to is the artifact reader's
 * business), so a linked directory can neither loop the walk nor lead it out of the project.
 */
export function projectFiles(layout: Layout, pattern: string): string[] {
  const clean = pattern.trim();
  if (!clean || path.posix.isAbsolute(clean) || path.win32.isAbsolute(clean) || clean.split(/[\\/]/).includes(".."))
    throw new PathSafetyError(`file pattern ${JSON.stringify(pattern)} must name files inside the project, relative to its root`);
  const matches = picomatch(clean, { dot: true });
  const root = layout.root + path.sep;
  const state = linkedState(layout);
  return new fdir()
    .withRelativePaths()
    .withPathSeparator("/")
    .exclude((name, dir) => ANYWHERE.has(name) || (name === ".git" && path.dirname(dir) + path.sep === root) || path.resolve(dir) === state)
    .filter((file) => matches(file))
    .crawl(layout.root)
    .sync()
    .sort();
}

/** The directory of the project a `.guild` link leads to (SPEC §2), as the walk spells it: the bus's state by another name. */
function linkedState(layout: Layout): string | null {
  const guild = layout.realGuild();
  if (guild === null) return null;
  const rel = path.relative(layout.realRoot(), guild);
  return rel === GUILD_NAME || rel.startsWith("..") || path.isAbsolute(rel) ? null : path.join(layout.root, rel);
}
