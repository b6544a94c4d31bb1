// Plain-text layout for the CLI: aligned columns, ages, and the examples and exit codes every --help ends with.
import { largest } from "../core/extremes.js";
import { isoTimeMs } from "../core/iso-time.js";
import { lineSafe } from "../core/terminal-safe.js";
import { print } from "./safe-output.js";

/** Rows padded into aligned columns (the last column is not padded). */
export function table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, c) => largest(all.map((r) => (r[c] ?? "").length)));
  return all.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join("  "));
}

/** "42s", "5m", "3h", "2d" since an ISO time, read as the console reads it (SPEC §0); "-" when it names none. */
export function formatAge(iso: string | null, nowMs = Date.now()): string {
  const t = isoTimeMs(iso);
  if (t === null) return "-";
  const s = Math.max(0, Math.round((nowMs - t) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/**
 * A value as one word of a POSIX shell command a person may paste: as it is when it holds only characters no shell
 * reads specially, else single-quoted. A project's directory may be named `a $(rm -rf ~)`: a printed `--root` is
 * pasted into a shell, and must never run what its name holds.
 */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The text after a command's options in its --help: examples, then its exit codes. */
export function helpText(examples: string[], exits: string): string {
  return `\nExamples:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n\nExit codes: ${exits}\n`;
}

/** A note for the person waiting on a command, on stderr as one line (a binary's path cannot print a line of its own). */
export function sayOnStderr(note: string): void {
  print("stderr", `guild-bus: ${lineSafe(note)}\n`);
}
