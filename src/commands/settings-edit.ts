// Edits of .guild/settings.json made for the user (`gate on|off`, `init`): the file is read as JSON, changed in the
// named keys only, validated as settings, and replaced atomically. A malformed file is refused, never overwritten.
import type { Layout } from "../bus/layout.js";
import { ReadRefused, readTextBounded } from "../bus/read-bounded.js";
import { userFileTarget } from "../bus/no-symlinks.js";
import { replace } from "../bus/replace.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { describeIssues } from "../spec/issues.js";
import { Settings } from "../spec/schemas.js";
import { type Answer, refuse } from "./answer.js";
import { parseJsonAnswer } from "../core/json-answer.js";

/** The settings file as a JSON object ({} when absent), or why it cannot be edited. */
export function readSettingsObject(layout: Layout): Answer<{ value: Record<string, unknown> }> {
  let text: string;
  try {
    text = readTextBounded(layout.settings, { max: MAX_FILE_BYTES, followSymlink: true }); // as the settings are read
  } catch (error) {
    if (error instanceof ReadRefused && error.kind === "missing") return { ok: true, value: {} };
    return refuse((error as Error).message);
  }
  const answer = parseJsonAnswer(text); // the one JSON reader: no nesting a recursive walk overflows on, no repeated key
  if (!answer.ok) return refuse(`${layout.rel(layout.settings)} is ${answer.reason}; fix it first (nothing was changed)`);
  const value = answer.value;
  if (value && typeof value === "object" && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
  return refuse(`${layout.rel(layout.settings)} is not a JSON object; fix it first (nothing was changed)`);
}

export async function writeSettingsObject(layout: Layout, value: Record<string, unknown>): Promise<Answer<object>> {
  const checked = Settings.safeParse(value);
  if (!checked.success) return refuse(`the settings would be invalid: ${describeIssues(checked.error).join("; ")}`);
  const target = userFileTarget(layout.root, layout.rel(layout.settings), "this command");
  if ("refused" in target) return refuse(`${target.refused} (nothing was changed)`);
  await replace(target.path, JSON.stringify(value, null, 2) + "\n", { guildDir: layout.guild, makeDirs: true });
  return { ok: true };
}

export async function setStopGate(
  layout: Layout,
  change: { enabled: boolean; max_blocks?: number },
): Promise<Answer<{ stopGate: NonNullable<Settings["stop_gate"]> }>> {
  const read = readSettingsObject(layout);
  if (!read.ok) return read;
  const current = (read.value.stop_gate ?? {}) as NonNullable<Settings["stop_gate"]>;
  const stopGate = { ...current, ...change };
  const written = await writeSettingsObject(layout, { ...read.value, stop_gate: stopGate });
  return written.ok ? { ok: true, stopGate } : written;
}
