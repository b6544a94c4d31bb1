// Reads .guild/settings.json. Bad settings never crash a worker: problems are reported and defaults used.
import { readFileSync } from "node:fs";
import type { Layout } from "./layout.js";
import { describeIssues, Settings } from "./spec/schemas.js";

export interface LoadedSettings {
  settings: Settings;
  problems: string[];
}

export function loadSettings(layout: Layout): LoadedSettings {
  let text: string;
  try {
    text = readFileSync(layout.settings, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { settings: {}, problems: [] };
    return { settings: {}, problems: [`settings.json unreadable: ${(error as Error).message}; using defaults`] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { settings: {}, problems: ["settings.json is not valid JSON; using defaults"] };
  }
  const parsed = Settings.safeParse(raw);
  if (parsed.success) return { settings: parsed.data, problems: [] };
  return {
    settings: {},
    problems: describeIssues(parsed.error).map((p) => `settings.json: ${p}; using defaults`),
  };
}
