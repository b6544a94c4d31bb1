// Lists verify-gate-pass in the full CLI and hands its arguments, unparsed, to the fast runner.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { run } from "./verify-gate-pass.js";

export function register(program: Command): void {
  program
    .command("verify-gate-pass")
    .description(summary("verify-gate-pass"))
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument("[args...]")
    .action(async (args: string[]) => {
      process.exitCode = await run(args);
    });
}
