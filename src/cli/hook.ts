// guild-bus hook stop: the Stop hook of an author host (Claude Code's hook protocol: JSON on stdin, a JSON decision on
// stdout, exit 0). Never exit 2, which Claude Code reads as "block with stderr": an internal error must not trap a turn.
// guild-bus gate on|off|status: the switch of the stop gate in .guild/settings.json.
import { statSync } from "node:fs";
import type { Readable } from "node:stream";
import type { Command } from "commander";
import { summary } from "./overview.js";
import { loadContext } from "../bus/context.js";
import { Layout } from "../bus/layout.js";
import { setStopGate } from "../commands/settings-edit.js";
import { DEFAULT_MAX_BLOCKS, type StopEvent, stopGate } from "../commands/stop-gate.js";
import { parseJsonAnswer } from "../core/json-answer.js";
import { readStreamBounded } from "../bus/read-bounded.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { answered, ROOT_HELP, type RootOptions } from "./errors.js";
import { intArg } from "./options.js";
import { print } from "./safe-output.js";

/**
 * The stop Claude Code's hook input names (JSON on stdin: session_id, transcript_path), or null: a terminal, no such
 * input within a second, or a transcript that cannot be read. Two guild-bus hooks of one stop read the same. The input
 * carries the turn's last message (`last_assistant_message`), which a long answer makes far larger than the two names.
 */
export async function stopEvent(stdin: NodeJS.ReadStream | Readable = process.stdin): Promise<StopEvent | null> {
  if ("isTTY" in stdin && stdin.isTTY) return null;
  let timer: NodeJS.Timeout | undefined;
  const input = await Promise.race([
    readStreamBounded(stdin, MAX_FILE_BYTES).then(
      (b) => b.toString("utf8"),
      () => "",
    ),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve(""), 1000))),
  ]);
  clearTimeout(timer);
  stdin.destroy(); // a caller that keeps stdin open must not keep the hook from exiting
  const parsed = parseJsonAnswer(input);
  const event = parsed.ok ? (parsed.value as { session_id?: unknown; transcript_path?: unknown } | null) : null;
  if (typeof event?.session_id !== "string" || typeof event.transcript_path !== "string") return null;
  try {
    return { session: event.session_id, transcriptBytes: statSync(event.transcript_path).size };
  } catch {
    return null;
  }
}

export function register(program: Command): void {
  program
    .command("hook")
    .description(summary("hook"))
    .argument("<event>", "stop")
    .option("--host <name>", "the host whose gates count (its MCP client name)", "claude-code")
    .option("--root <dir>", ROOT_HELP)
    .action(async (event: string, o: { host: string; root: string }) => {
      if (event !== "stop") throw new Error(`unknown hook ${JSON.stringify(event)}; the hooks are: stop`);
      const verdict = await stopGate(loadContext(new Layout(o.root)), o.host, Date.now(), await stopEvent());
      if (verdict.block) print("stdout", JSON.stringify({ decision: "block", reason: verdict.reason }) + "\n");
      else if (verdict.message) print("stdout", JSON.stringify({ systemMessage: verdict.message }) + "\n");
    });

  program
    .command("gate")
    .description(summary("gate"))
    .argument("<switch>", "on | off | status")
    .option("--max-blocks <n>", `with on: blocks per gate before the turn may end (default ${DEFAULT_MAX_BLOCKS})`, intArg(1, 20))
    .option("--root <dir>", ROOT_HELP)
    .action(async (choice: string, o: RootOptions & { maxBlocks?: number }) => {
      if (!["on", "off", "status"].includes(choice)) throw new Error(`gate takes on, off or status, not ${JSON.stringify(choice)}`);
      const layout = new Layout(o.root);
      const gate =
        choice === "status"
          ? (loadContext(layout, o.checkedSettings).settings.stop_gate ?? {})
          : answered(await setStopGate(layout, { enabled: choice === "on", ...(o.maxBlocks ? { max_blocks: o.maxBlocks } : {}) })).stopGate;
      print(
        "stdout",
        `stop gate: ${gate.enabled ? "on" : "off"}, at most ${gate.max_blocks ?? DEFAULT_MAX_BLOCKS} blocks per gate ` +
          `(.guild/settings.json stop_gate)\n`,
      );
    });
}
