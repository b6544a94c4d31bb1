// CLI entry. Each command's module is imported only when that command runs, so small commands start fast.
import { Command, CommanderError } from "commander";

export const USAGE_EXIT = 1;

type Loader = () => Promise<{ register(program: Command): void }>;

const COMMANDS: Record<string, Loader> = {
  "verify-gate-pass": () => import("./verify-gate-pass-entry.js"),
  family: () => import("./family.js"),
  scrub: () => import("./scrub.js"),
  review: () => import("./review.js"),
  resubmit: () => import("./author.js"),
  rebut: () => import("./author.js"),
  decide: () => import("./author.js"),
  respond: () => import("./author.js"),
  status: () => import("./status.js"),
  worker: () => import("./worker.js"),
  up: () => import("./worker.js"),
  demo: () => import("./demo.js"),
  providers: () => import("./providers.js"),
};

export async function main(argv: string[]): Promise<number> {
  const program = new Command("guild-bus")
    .description("Filesystem artifact bus for cross-family adversarial review")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });
  const wanted = argv.find((a) => !a.startsWith("-"));
  const loaders = wanted && COMMANDS[wanted] ? [COMMANDS[wanted]] : Object.values(COMMANDS);
  const modules = new Set(await Promise.all(loaders.map((load) => load())));
  for (const mod of modules) mod.register(program);
  process.exitCode = 0;
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : USAGE_EXIT;
    }
    process.stderr.write(`guild-bus: ${(error as Error).message}\n`);
    return USAGE_EXIT;
  }
  // Commands report their status through process.exitCode.
  return Number(process.exitCode ?? 0);
}
