// Moving aside what sits where the bus needs a name of its own (a file at .guild/tmp, junk at a claim's lock), for a
// human to look at. Workers do it concurrently, so what is moved may no longer be what was seen: another worker may have
// moved it already, and may have made the real thing in its place (its staging directory, its fresh lock). Identity
// cannot tell them apart (a freed inode number is soon given again), so what was moved is judged again by its kind.
import { lstatSync, renameSync } from "node:fs";

let setAsideCount = 0;

/**
 * Renames `file` to `<file>.<why>.<ms>.<pid>.<n>`: a name no other move takes, so junk moved in the same millisecond,
 * by this process or another, never replaces junk moved earlier (rename replaces a file, or an empty directory). When
 * what was moved is not junk after all (`isJunk` judges the moved entry) it is put back, if the name is still free.
 * Nothing is thrown when the entry went away meanwhile; other failures to move it are.
 */
export function setAside(file: string, why: string, isJunk: (moved: string) => boolean): void {
  const aside = `${file}.${why}.${Date.now()}.${process.pid}.${++setAsideCount}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (isJunk(aside) || lstatSync(file, { throwIfNoEntry: false })) return;
  try {
    renameSync(aside, file);
  } catch {
    // the name was taken again meanwhile: the worker whose entry this was finds it gone and retries
  }
}
