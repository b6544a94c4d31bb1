// Reading .guild/settings.json, apart from judging what it holds (settings.ts): a command in a project without one
// loads no settings schemas.
import type { Layout } from "./layout.js";
import type { Settings } from "../spec/schemas.js";
import { readTextBounded, type ReadRefused } from "./read-bounded.js";
import { isSystemFault } from "./system-fault.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";

export interface LoadedSettings {
  settings: Settings;
  problems: string[];
  /** The system failed the read (EIO, EMFILE…), and how: the defaults stand in for settings that may well be fine. */
  fault?: string;
  /** Something the file holds was not taken (the whole file, a key, a provider, a reviewer name): these are not the
   * settings the project wrote (a file an editor is saving in place is empty for a moment). */
  incomplete?: true;
  /** There is no settings.json: the defaults are the settings (a worker that read one before may wait a moment). */
  missing?: true;
}

export type SettingsRead = { text: string } | LoadedSettings;

/** settings.json's text, or the settings there are when it cannot be read (none: the defaults). */
export function readSettingsFile(layout: Layout): SettingsRead {
  try {
    return { text: readTextBounded(layout.settings, { max: MAX_FILE_BYTES, followSymlink: true }) }; // never a FIFO or device
  } catch (error) {
    if ((error as ReadRefused).kind === "missing") return { settings: {}, problems: [], missing: true };
    // the problem is said after the file's path: the refusal's own copy of it would say it twice
    const why = (error as Error).message.replace(`${layout.settings}: `, "");
    const problems = [`settings.json unreadable: ${why}; using defaults`];
    return {
      settings: {},
      problems,
      incomplete: true,
      ...(isSystemFault(error) && { fault: `settings.json: ${(error as Error).message}` }),
    };
  }
}

/**
 * Why a command a person runs (CLI, MCP tool, console action) refuses to act on these settings, or null when it may:
 * a running worker carries on with what is valid, but a request made on defaults would go to another reviewer.
 */
export function settingsRefusal(layout: Layout, problems: string[]): string | null {
  return problems.length ? `${layout.settings}: ${problemsInWords(problems)}` : null;
}

/** The problems as one line, without what a worker does about each (nothing is used in place of a refused file). */
export function problemsInWords(problems: string[]): string {
  return problems.map((p) => p.replace(/^settings\.json:? /, "").replace(/; (using defaults|ignoring .*)$/, "")).join("; ");
}
