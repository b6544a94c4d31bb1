// A CLI's --help text, for capability checks before a dispatch: a flag the pinned command line needs that the
// installed CLI does not advertise means refusing before anything runs, never running an older CLI unpinned.
import { runChild } from "./child.js";

type HelpText = { ok: true; text: string } | { ok: false; reason: string };

export async function cliHelp(binary: string, env: NodeJS.ProcessEnv, cwd: string, signal?: AbortSignal): Promise<HelpText> {
  const r = await runChild({ argv: [binary, "--help"], stdin: "", timeoutMs: 20_000, env, cwd, signal });
  if (r.kind === "spawn-error") return { ok: false, reason: `cannot start ${binary}: ${r.code} ${r.message}` };
  if (r.kind !== "exit" || r.code !== 0)
    return { ok: false, reason: `${binary} --help did not succeed (${r.kind === "exit" ? `exit ${r.code ?? r.signal}` : r.kind})` };
  return { ok: true, text: `${r.stdout}\n${r.stderr}` };
}

/** Whether the help lists `flag` as an option of its own (not as part of a longer name such as --reasoning-effort). */
export function advertises(help: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[\\s,])${escaped}(?=[\\s=,[<]|$)`, "m").test(help);
}

/**
 * The values a help text lists for `flag`: "(a, b, c)" (commander) or "[possible values: a, b, c]" (clap) within the
 * flag's own entry; null when the flag is not there, [] when it lists none.
 */
export function advertisedValues(help: string, flag: string): string[] | null {
  if (!advertises(help, flag)) return null;
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const entry = new RegExp(`(?:^|[\\s,])${escaped}(?=[\\s=,[<])((?:(?!\\n\\s*-{1,2}[A-Za-z])[\\s\\S])*)`, "m").exec(help)?.[1] ?? "";
  const list = /\[possible values: ([^\]]*)\]/.exec(entry)?.[1] ?? /\(([a-z0-9_-]+(?:, [a-z0-9_-]+)+)\)/.exec(entry)?.[1];
  return list
    ? list
        .split(",")
        .map((v) => v.trim())
        .filter(Boolean)
    : [];
}
