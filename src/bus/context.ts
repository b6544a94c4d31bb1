// What every worker reloads once per reconcile pass: settings (with their problems) and the codex-skip sentinel.
import type { Layout } from "./layout.js";
import { settingsOf } from "./settings.js";
import { type LoadedSettings, readSettingsFile, type SettingsRead, settingsRefusal } from "./settings-file.js";
import { CodexSkipStreak, type Settings } from "../spec/schemas.js";
import { type CodexSkipRead, contextOf, readCodexSkipFile } from "./context-files.js";
import { ReadFault } from "../core/read-fault.js";
import { SettingsRefused } from "./settings-refused.js";

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

/** `settings`: settings.json as this command already read it (main.ts's check), else it is read now. */
export function loadContext(layout: Layout, settings?: LoadedSettings): BusContext {
  return contextFrom(layout, settings ?? readSettingsFile(layout), readCodexSkipFile(layout));
}

/** The context of what settings.json and the codex-skip streak file read as (context-files.ts). */
export function contextFrom(layout: Layout, settings: SettingsRead, codexSkip: CodexSkipRead): BusContext {
  return contextOf(
    layout,
    "text" in settings ? settingsOf(settings.text) : settings,
    "text" in codexSkip ? streakOf(codexSkip.text) : codexSkip,
  );
}

/** Whether the codex-skip streak blocks: a malformed one does not (Guild's rule). */
function streakOf(text: string): { blocked: boolean } {
  try {
    const parsed = CodexSkipStreak.safeParse(JSON.parse(text));
    return { blocked: parsed.success && parsed.data.blocked };
  } catch {
    return { blocked: false };
  }
}

/** The context to act with: never defaults that stand in for settings the system failed to read (ReadFault). */
export function contextToAct(ctx: BusContext): BusContext {
  if (ctx.fault !== undefined) throw new ReadFault(`settings cannot be read for now (${ctx.fault})`);
  return ctx;
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
