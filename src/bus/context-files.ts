// Reading what a context is loaded from (settings.json, the codex-skip streak), apart from judging it (context.ts):
// a command in a project with neither file loads no schemas.
import type { Layout } from "./layout.js";
import { readTextBounded } from "./read-bounded.js";
import type { LoadedSettings } from "./settings-file.js";
import { isSystemFault } from "./system-fault.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";

/** The codex-skip streak file's text, or none (absent or unreadable: no block, Guild's rule; a system's fault said). */
export type CodexSkipRead = { text: string } | { blocked: false; fault?: string };

export function readCodexSkipFile(layout: Layout): CodexSkipRead {
  try {
    return { text: readTextBounded(layout.codexSkipStreak, { max: MAX_FILE_BYTES, followSymlink: true }) };
  } catch (error) {
    return { blocked: false, ...(isSystemFault(error) && { fault: (error as Error).message }) };
  }
}

/** The context (context.ts's BusContext) of these settings and whether the codex-skip streak blocks. */
export function contextOf(layout: Layout, loaded: LoadedSettings, codexSkip: { blocked: boolean; fault?: string }) {
  const { settings, problems, fault, incomplete, missing } = loaded;
  const why = fault ?? codexSkip.fault;
  return {
    layout,
    settings,
    settingsProblems: problems,
    ...(why !== undefined && { fault: why }),
    ...(incomplete && { settingsIncomplete: true as const }),
    ...(missing && { settingsMissing: true as const }),
    codexSkip: { blocked: codexSkip.blocked, enforcement: settings.codex_skip_enforcement ?? "warn" },
  };
}
