// A command about to start reads its settings and context without loading their judges when there is nothing to judge
// (bus/load-soon.ts): what it reads must be exactly what loadSettings and loadContext read, whatever the files hold.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { loadContextSoon, loadSettingsSoon } from "../../src/bus/load-soon.js";
import { loadSettings } from "../../src/bus/settings.js";
import { tempRoot } from "../helpers/tmp.js";

const streak = (blocked: boolean) =>
  JSON.stringify({ schema_version: "guild.codex_skip_streak.v1", streak: 3, threshold: 3, blocked }) + "\n";

/** A project whose settings.json and codex-skip streak are as given (undefined: absent; a directory: unreadable). */
function project(settings?: string | { dir: true }, codexSkip?: string | { dir: true }): Layout {
  const layout = new Layout(tempRoot());
  mkdirSync(layout.runs, { recursive: true });
  for (const [file, content] of [
    [layout.settings, settings],
    [layout.codexSkipStreak, codexSkip],
  ] as const) {
    if (content === undefined) continue;
    mkdirSync(path.dirname(file), { recursive: true });
    if (typeof content === "string") writeFileSync(file, content);
    else mkdirSync(file);
  }
  return layout;
}

describe("settings and context read soon", () => {
  it.each([
    ["neither file", undefined, undefined],
    ["valid settings", '{ "max_rounds": 3, "codex_skip_enforcement": "block" }', undefined],
    ["settings with problems", '{ "max_rounds": 0, "provders": {} }', undefined],
    ["settings that are not JSON", "{ nope", undefined],
    ["settings that cannot be read", { dir: true as const }, undefined],
    ["a blocking codex-skip streak", undefined, streak(true)],
    ["a streak that does not block, with settings", '{ "codex_skip_enforcement": "block" }', streak(false)],
    ["a malformed streak", undefined, "{ not json"],
    ["a streak that cannot be read", undefined, { dir: true as const }],
  ])("%s: as loadSettings and loadContext read them", async (_name, settings, codexSkip) => {
    const layout = project(settings, codexSkip);
    expect(await loadSettingsSoon(layout)).toEqual(loadSettings(layout));
    expect(await loadContextSoon(layout)).toEqual(loadContext(layout));
  });
});
