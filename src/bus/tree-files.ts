// The project's files a glob names, for `check --require-files`: a requirement is tied to the files in the tree, so a
// file added without a review is seen (a gate name alone passes while any run of that gate passed).
import path from "node:path";
import { fdir } from "fdir";
import picomatch from "picomatch";
import type { Layout } from "./layout.js";
import { PathSafetyError } from "./no-symlinks.js";

/** Never artifacts: the bus's own state and git's (at the root), and installed packages (anywhere). */
const ROOT_ONLY = new Set([".git", ".guild"]);

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
  return new fdir()
    .withRelativePaths()
    .withPathSeparator("/")
    .exclude((name, dir) => name === "node_modules" || (ROOT_ONLY.has(name) && path.dirname(dir) + path.sep === root))
    .filter((file) => matches(file))
    .crawl(layout.root)
    .sync()
    .sort();
}
