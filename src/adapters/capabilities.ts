// What each adapter kind can do, in one place. "Reads files": the reviewer can read the repository itself (a CLI
// agent with read-only tools), which difficulty nightmare requires; the others only ever see the packet text.
// "Sets effort": the adapter sends a reasoning effort on every call (checked against the pinned CLIs' --help).
import type { PacketFrontMatter, ProviderConfig } from "../spec/schemas.js";
import type { DispatchInput } from "./types.js";

export type AdapterKind = ProviderConfig["adapter"];

export const READS_FILES: Readonly<Record<AdapterKind, boolean>> = Object.freeze({
  codex: true,
  claude: true,
  gemini: true,
  copilot: true,
  command: false,
  http: false,
  manual: false,
});

/**
 * codex: `-c model_reasoning_effort=<e>`; claude: `--effort <e>`; copilot: `--effort` (or `--reasoning-effort`, as its
 * --help advertises); http: `reasoning_effort` in the body. gemini 0.61 has no effort or thinking flag (only a
 * settings-file model config the adapter does not write), and a command or a human is not told one.
 */
export const SETS_EFFORT: Readonly<Record<AdapterKind, boolean>> = Object.freeze({
  codex: true,
  claude: true,
  copilot: true,
  http: true,
  gemini: false,
  command: false,
  manual: false,
});

export function readsFiles(adapter: string): boolean {
  return (READS_FILES as Record<string, boolean>)[adapter] === true;
}

export const FILE_READING_KINDS = (Object.keys(READS_FILES) as AdapterKind[]).filter((k) => READS_FILES[k]);

/**
 * The directory a file-reading adapter must run its reviewer in for this dispatch: the project root for a
 * nightmare packet (read-only, so the reviewer reads the repository itself and the author cannot filter it), and
 * null otherwise (the adapter's own empty scratch directory).
 */
export function dispatchWorkdir(input: Pick<DispatchInput, "ctx" | "front">): string | null {
  return isNightmare(input.front) ? input.ctx.layout.root : null;
}

export function isNightmare(front: Pick<PacketFrontMatter, "difficulty">): boolean {
  return front.difficulty === "nightmare";
}
