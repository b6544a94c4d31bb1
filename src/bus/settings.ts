// Reads .guild/settings.json. Bad settings never crash a worker: problems are reported and defaults used.
import type { Layout } from "./layout.js";
import { z } from "zod";
import { describeIssues, Settings } from "../spec/schemas.js";
import { readTextBounded, type ReadRefused } from "./read-bounded.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";

export interface LoadedSettings {
  settings: Settings;
  problems: string[];
}

export function loadSettings(layout: Layout): LoadedSettings {
  let text: string;
  try {
    text = readTextBounded(layout.settings, { max: MAX_FILE_BYTES, followSymlink: true }); // never a FIFO or device
  } catch (error) {
    if ((error as ReadRefused).kind === "missing") return { settings: {}, problems: [] };
    return { settings: {}, problems: [`settings.json unreadable: ${(error as Error).message}; using defaults`] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { settings: {}, problems: ["settings.json is not valid JSON; using defaults"] };
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    return { settings: {}, problems: ["settings.json is not a JSON object; using defaults"] };
  // One bad value must not discard the rest: drop each invalid key (or provider entry) and keep what is valid.
  const candidate = structuredClone(raw) as Record<string, unknown>;
  const problems: string[] = [];
  for (let attempt = 0; attempt < 50; attempt++) {
    const parsed = Settings.safeParse(candidate);
    if (parsed.success) return { settings: parsed.data, problems };
    const issue = parsed.error.issues[0]!;
    const [top, sub] = issue.path as Array<string | number>;
    const ignored = top === "providers" && sub !== undefined ? `provider ${String(sub)}` : top === undefined ? "the file" : String(top);
    problems.push(`settings.json: ${describeIssues(new z.ZodError([issue]))[0]}; ignoring ${ignored}`);
    if (top === undefined) return { settings: {}, problems };
    if (top === "providers" && sub !== undefined && candidate.providers && typeof candidate.providers === "object") {
      delete (candidate.providers as Record<string, unknown>)[String(sub)];
    } else {
      delete candidate[String(top)];
    }
  }
  return { settings: {}, problems: [...problems, "settings.json: too many problems; using defaults"] };
}
