// Lists verify-gate-pass in the full CLI and hands its arguments, unparsed, to the fast runner.
import type { Command } from "commander";
import { run } from "./verify-gate-pass.js";

export function register(program: Command): void {
  program
    .command("verify-gate-pass")
    .description("evaluate the five checksum-bound gate-pass conditions (--help for options)")
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument("[args...]")
    .action(async (args: string[]) => {
      process.exitCode = await run(args);
    });
}
