// How every command reports a user's mistake: one line `guild-bus: …` (at most a hint line after it), exit 1.
// Free of commander and zod, so the fast verify-gate-pass runner shares it.
import { statSync } from "node:fs";
import type { Answer } from "../commands/answer.js";
import type { LoadedSettings } from "../bus/settings-file.js";
import { oneLine } from "../core/text-of.js";
import { print } from "./safe-output.js";

export const USAGE_EXIT = 1;

export const ROOT_HELP = "project root (default: the nearest directory up from here holding .guild/, else the git work tree's root)";

/** A command's --root as main.ts sets it, with the settings.json it checked there (read once, for the command to act
 * on; none for a command that reads them itself: hook, mcp, family, worker; `up` reads them again, after stamping the
 * file, so an edit made since is seen). */
export interface RootOptions {
  root: string;
  checkedSettings?: LoadedSettings;
}

/** Write the error line (newlines in the message folded) and an optional hint line; returns the exit code. */
export function reportError(message: string, hint?: string): number {
  print("stderr", `guild-bus: ${oneLine(message.trim())}\n${hint ? `${hint}\n` : ""}`);
  return USAGE_EXIT;
}

/** `list`: the option takes a comma-separated list, which is how to give it several values. */
export function repeatedFlag(flag: string, list = false): string {
  return `${flag} was given more than once; it takes one value${list ? ` (several, comma-separated: ${flag} a,b)` : ""}`;
}

/** Why `root` cannot be the project root (it must be an existing directory), or null. */
export function rootProblem(root: string): string | null {
  try {
    return statSync(root).isDirectory() ? null : `--root ${root} is not a directory`;
  } catch (error) {
    return `--root ${root}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such directory" : (error as Error).message}`;
  }
}

/** A command's refusal is the user's to fix: thrown here, it reaches the one error line above (exit 1). */
export function answered<T>(answer: Answer<T>): { ok: true } & T {
  if (!answer.ok) throw new Error(answer.error);
  return answer;
}
