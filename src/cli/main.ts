// CLI entry. Each command's module is imported only when that command runs, so small commands start fast.
import { Command, CommanderError } from "commander";
import { repeatedFlag, reportError, rootProblem, USAGE_EXIT } from "./errors.js";

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
  ui: () => import("./ui.js"),
  mcp: () => import("./mcp.js"),
  check: () => import("./check.js"),
  hook: () => import("./hook.js"),
  init: () => import("./init.js"),
  gate: () => import("./hook.js"),
};

/** Rules for every option of every command, set here once: a single-value option given twice, a --root that is not a directory. */
function harden(program: Command): void {
  const visit = (cmd: Command) => {
    for (const opt of cmd.options) {
      if (!(opt.required || opt.optional) || opt.variadic) continue; // a flag may repeat harmlessly; a list collects
      let seen = false;
      cmd.on(`option:${opt.name()}`, () => {
        if (seen) cmd.error(repeatedFlag(opt.long ?? opt.flags));
        seen = true;
      });
    }
    cmd.commands.forEach(visit);
  };
  program.commands.forEach(visit);
  program.hook("preAction", (_program, action) => {
    const root: unknown = action.opts().root;
    const problem = typeof root === "string" ? rootProblem(root) : null;
    if (problem) action.error(problem);
  });
}

/** The one line a failed command prints: zod's issues flattened (never its JSON dump), anything else its message. */
async function describeError(error: unknown): Promise<string> {
  if (error instanceof Error && error.name === "ZodError") {
    const { describeIssues } = await import("../spec/schemas.js");
    return `invalid input: ${describeIssues(error as Parameters<typeof describeIssues>[0]).join("; ")}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export async function main(argv: string[]): Promise<number> {
  const program = new Command("guild-bus")
    .description("Filesystem artifact bus for cross-family adversarial review")
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      writeOut: (s) => process.stdout.write(s),
      outputError: (s, write) => write(`guild-bus: ${s.replace(/^error: /, "")}`),
    });
  const wanted = argv.find((a) => !a.startsWith("-"));
  const loaders = wanted && COMMANDS[wanted] ? [COMMANDS[wanted]] : Object.values(COMMANDS);
  const modules = new Set(await Promise.all(loaders.map((load) => load())));
  for (const mod of modules) mod.register(program);
  harden(program);
  process.exitCode = 0;
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT; // commander printed it
    return reportError(await describeError(error));
  }
  // Commands report their status through process.exitCode.
  return Number(process.exitCode ?? 0);
}
