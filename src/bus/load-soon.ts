// The settings and the context as a command about to start reads them: the modules that judge settings.json and the
// codex-skip streak (and the schemas they load, ~20 ms of a start) are loaded only when there is such a file to judge.
import type { BusContext } from "./context.js";
import { contextOf, readCodexSkipFile } from "./context-files.js";
import type { Layout } from "./layout.js";
import { type LoadedSettings, readSettingsFile } from "./settings-file.js";

/** `loadSettings` (settings.ts), whose module (and the schemas) is loaded only when there is a file to judge. */
export async function loadSettingsSoon(layout: Layout): Promise<LoadedSettings> {
  const read = readSettingsFile(layout);
  return "text" in read ? (await import("./settings.js")).settingsOf(read.text) : read;
}

/** `loadContext` (context.ts), whose module (and the schemas) is loaded only when there is a file to judge. */
export async function loadContextSoon(layout: Layout, loaded?: LoadedSettings): Promise<BusContext> {
  const settings = loaded ?? readSettingsFile(layout);
  const codexSkip = readCodexSkipFile(layout);
  if ("text" in settings || "text" in codexSkip) return (await import("./context.js")).contextFrom(layout, settings, codexSkip);
  return contextOf(layout, settings, codexSkip);
}
