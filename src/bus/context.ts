// What every worker reloads once per reconcile pass: settings (with their problems) and the codex-skip sentinel.
import type { Layout } from "./layout.js";
import { loadSettings, settingsRefusal } from "./settings.js";
import { CodexSkipStreak, type Settings } from "../spec/schemas.js";
import { readTextBounded } from "./read-bounded.js";
import { isSystemFault } from "./system-fault.js";
import { ReadFault } from "../core/read-fault.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";

export interface BusContext {
  layout: Layout;
  settings: Settings;
  settingsProblems: string[];
  /** settings.json or the codex-skip streak could not be read for a reason of the system's (EIO, EMFILE…): no worker
   * acts on what stands in for them (the defaults, no block). */
  fault?: string;
  /** settings.json holds something that was not taken (LoadedSettings.incomplete). */
  settingsIncomplete?: true;
  /** There is no settings.json (LoadedSettings.missing). */
  settingsMissing?: true;
  codexSkip: { blocked: boolean; enforcement: "warn" | "block" };
}

function readCodexSkip(layout: Layout, settings: Settings): BusContext["codexSkip"] & { fault?: string } {
  const enforcement = settings.codex_skip_enforcement ?? "warn";
  try {
    const parsed = CodexSkipStreak.safeParse(
      JSON.parse(readTextBounded(layout.codexSkipStreak, { max: MAX_FILE_BYTES, followSymlink: true })),
    );
    return { blocked: parsed.success && parsed.data.blocked, enforcement };
  } catch (error) {
    // absent or malformed: no block (Guild's rule)
    return { blocked: false, enforcement, ...(isSystemFault(error) && { fault: (error as Error).message }) };
  }
}

export function loadContext(layout: Layout): BusContext {
  const { settings, problems, fault, incomplete, missing } = loadSettings(layout);
  const { fault: skipFault, ...codexSkip } = readCodexSkip(layout, settings);
  const why = fault ?? skipFault;
  return {
    layout,
    settings,
    settingsProblems: problems,
    ...(why !== undefined && { fault: why }),
    ...(incomplete && { settingsIncomplete: true }),
    ...(missing && { settingsMissing: true }),
    codexSkip,
  };
}

/** The context to act with: never defaults that stand in for settings the system failed to read (ReadFault). */
export function contextToAct(ctx: BusContext): BusContext {
  if (ctx.fault !== undefined) throw new ReadFault(`settings cannot be read for now (${ctx.fault})`);
  return ctx;
}

/** A settings file a person's command refuses to act on (SettingsRefused answers as a refusal). */
export class SettingsRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsRefused";
  }
}

/**
 * Why no gate may be judged with these settings, or null: settings with problems (a key dropped for one bad value
 * leaves defaults in its place, under which a pass may re-derive that the project's settings fail) or settings the
 * system failed to read. The console's pages answer with this instead of a judgment, as `status`, `check`, `wait`
 * and the MCP tools do with `settingsRefusal` on the settings `contextToAct` reads (which throws for a failed read).
 */
export function judgingRefusal(ctx: BusContext): string | null {
  if (ctx.fault !== undefined) return `settings cannot be read for now (${ctx.fault})`;
  return settingsRefusal(ctx.layout, ctx.settingsProblems);
}

/** The context a person's command writes with, whichever face it came through: only settings without problems. */
export function contextForCommand(ctx: BusContext): BusContext {
  const refusal = settingsRefusal(ctx.layout, contextToAct(ctx).settingsProblems);
  if (refusal) throw new SettingsRefused(`${refusal}; nothing was written — fix the settings first`);
  return ctx;
}
