// What every worker reloads once per reconcile pass: settings (with their problems) and the codex-skip sentinel.
import type { Layout } from "./layout.js";
import { loadSettings } from "./settings.js";
import { CodexSkipStreak, type Settings } from "../spec/schemas.js";
import { readTextBounded } from "./read-bounded.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";

export interface BusContext {
  layout: Layout;
  settings: Settings;
  settingsProblems: string[];
  codexSkip: { blocked: boolean; enforcement: "warn" | "block" };
}

function readCodexSkip(layout: Layout, settings: Settings): BusContext["codexSkip"] {
  const enforcement = settings.codex_skip_enforcement ?? "warn";
  try {
    const parsed = CodexSkipStreak.safeParse(
      JSON.parse(readTextBounded(layout.codexSkipStreak, { max: MAX_FILE_BYTES, followSymlink: true })),
    );
    return { blocked: parsed.success && parsed.data.blocked, enforcement };
  } catch {
    return { blocked: false, enforcement }; // absent or malformed: no block (Guild's rule)
  }
}

export function loadContext(layout: Layout): BusContext {
  const { settings, problems } = loadSettings(layout);
  return { layout, settings, settingsProblems: problems, codexSkip: readCodexSkip(layout, settings) };
}
