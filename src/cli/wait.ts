// guild-bus wait <run> <gate>: re-attach to a gate and follow it (src/cli/follow.ts), loaded only when it runs.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { ROOT_HELP, type RootOptions } from "./errors.js";
import { secondsArg } from "./options.js";
import { helpText } from "./format.js";
import { WAIT_EXITS } from "./exit-codes.js";

export function register(program: Command): void {
  program
    .command("wait")
    .description(summary("wait"))
    .argument("<run>")
    .argument("<gate>")
    .option("--json", "print the result as JSON")
    .option("--timeout <seconds>", "give up after this long (exit 6; the gate goes on)", secondsArg)
    .option("--root <dir>", ROOT_HELP)
    .addHelpText("after", helpText(["guild-bus wait <run> G-spec", "guild-bus wait <run> G-spec --timeout 600 --json"], WAIT_EXITS))
    .action(async (run: string, gate: string, o: RootOptions & { json?: boolean; timeout?: number }) => {
      const [{ Layout }, { waitForGate }] = await Promise.all([import("../bus/layout.js"), import("./follow.js")]);
      const layout = new Layout(o.root);
      process.exitCode = await waitForGate(layout, run, gate, {
        json: o.json,
        timeoutMs: o.timeout === undefined ? undefined : o.timeout * 1000,
        settings: o.checkedSettings,
      });
    });
}
