// CLI entry. Each command's module is imported only when that command runs, so small commands start fast; the
// top-level --help (and --version, and an unknown command's error) loads none of them.
import { Command, CommanderError } from "commander";
import { addHelpTexts } from "./help-text.js";
import { COMMAND_SUMMARIES } from "./overview.js";
import { repeatedFlag, reportError, rootProblem, USAGE_EXIT } from "./errors.js";
import { packageVersion } from "./version.js";
import { textOf } from "../core/text-of.js";
import { invalidInput } from "../spec/issues.js";
import { print } from "./safe-output.js";

type Loader = () => Promise<{ register(program: Command): void }>;

export const COMMANDS: Record<string, Loader> = {
  review: () => import("./review.js"),
  status: () => import("./status.js"),
  up: () => import("./worker.js"),
  wait: () => import("./wait.js"),
  resubmit: () => import("./author.js"),
  rebut: () => import("./author.js"),
  decide: () => import("./author.js"),
  respond: () => import("./author.js"),
  providers: () => import("./providers.js"),
  ui: () => import("./ui.js"),
  demo: () => import("./demo.js"),
  worker: () => import("./worker.js"),
  "verify-gate-pass": () => import("./verify-gate-pass-entry.js"),
  family: () => import("./family.js"),
  scrub: () => import("./scrub.js"),
  mcp: () => import("./mcp.js"),
  check: () => import("./check.js"),
  init: () => import("./init.js"),
  hook: () => import("./hook.js"),
  gate: () => import("./hook.js"),
};

/** Rules for every option of every command, set here once: a single-value option given twice, a --root that is not a directory. */
function harden(program: Command): void {
  const visit = (cmd: Command) => {
    for (const opt of cmd.options) {
      if (!(opt.required || opt.optional) || opt.variadic) continue; // a flag may repeat harmlessly; a list collects
      let seen = false;
      cmd.on(`option:${opt.name()}`, () => {
        if (seen) cmd.error(repeatedFlag(opt.long ?? opt.flags, /comma-separated/.test(opt.description)));
        seen = true;
      });
    }
    cmd.commands.forEach(visit);
  };
  program.commands.forEach(visit);
  program.hook("preAction", async (_program, action) => {
    if (!action.options.some((o) => o.long === "--root")) return;
    const given: unknown = action.opts().root;
    const problem = typeof given === "string" ? rootProblem(given) : null;
    if (problem) action.error(problem);
    const { findProjectRoot, lostGuildLink } = await import("../bus/project-root.js");
    const root = typeof given === "string" ? given : findProjectRoot(process.cwd());
    action.setOptionValueWithSource("root", root, typeof given === "string" ? "cli" : "implied"); // implied: found from here
    // A running worker keeps going on what is valid (a restart must not die on an edit); the stop hook answers its host
    // whatever (exit 0, SPEC §17); the MCP server serves, and its tools refuse or report the problems (a server that
    // exits before the handshake is only "failed" to its host); every other command a person runs refuses. A bus
    // behind a link that leads nowhere has nothing to keep going on: a worker refuses to start there, as `up` does.
    if (["hook", "mcp"].includes(action.name())) return;
    if (action.name() === "family") return; // it reads the settings itself, only when they may hold aliases (kept fast)
    const lost = lostGuildLink(root);
    if (lost) action.error(lost);
    if (action.name() === "worker") return;
    const [{ loadSettingsSoon }, { settingsRefusal }, { Layout }] = await Promise.all([
      import("../bus/load-soon.js"),
      import("../bus/settings-file.js"),
      import("../bus/layout.js"),
    ]);
    const layout = new Layout(root);
    const settings = await loadSettingsSoon(layout);
    const refusal = settingsRefusal(layout, settings.problems);
    if (refusal) action.error(refusal);
    // the command acts on the settings checked here (RootOptions): read and parsed once, and anew by every command
    action.setOptionValueWithSource("checkedSettings", settings, "implied");
  });
}

/** The one line a failed command prints: zod's issues flattened (never its JSON dump), anything else its message. */
function describeError(error: unknown): string {
  return invalidInput(error) ?? (error instanceof Error ? error.message : textOf(error));
}

/** The program with no commands yet: its name, version, the text after its --help, and where it writes. */
export function baseProgram(): Command {
  return new Command("guild-bus")
    .description("Filesystem artifact bus for cross-family adversarial review")
    .version(packageVersion(), "-V, --version", "print the version")
    .addHelpText(
      "after",
      "\nStart here:\n" +
        "  $ guild-bus up &                                   # the workers\n" +
        "  $ guild-bus review docs/spec.md --gate G-spec --author claude --wait\n" +
        "  $ guild-bus status                                 # every gate, and what each waits for\n" +
        "\nExit codes: 0 ok; 1 usage error; 2 a gate-pass or --verify failed; 3 the author's turn; 4 a human decision; " +
        "5 review unavailable; 6 still moving (--timeout, status --exit-status); 130 interrupted\n",
    )
    .exitOverride()
    .configureOutput({
      writeErr: (s) => print("stderr", s),
      writeOut: (s) => print("stdout", s),
      outputError: (s, write) => write(`guild-bus: ${s.replace(/^error: /, "")}`),
    });
}

/** Every command as a name, usage and description only: enough for the overview, an unknown command's error and --version. */
export function addOverview(program: Command): void {
  for (const [name, { description }] of Object.entries(COMMAND_SUMMARIES)) program.command(name).description(description);
  program.configureHelp({ subcommandTerm: (cmd) => [cmd.name(), COMMAND_SUMMARIES[cmd.name()]?.usage ?? cmd.usage()].join(" ").trim() });
}

/** Register the commands themselves, in the order --help lists them. */
export async function addCommands(program: Command, names: string[]): Promise<void> {
  const modules = new Set(await Promise.all(names.map((name) => COMMANDS[name]!())));
  for (const mod of modules) mod.register(program);
  addHelpTexts(program);
  const order = Object.keys(COMMAND_SUMMARIES);
  (program.commands as Command[]).sort((a, b) => order.indexOf(a.name()) - order.indexOf(b.name()));
}

/** The command a command line runs (`help <command>` asks about that one), or null when it names none. */
function wantedCommand(argv: string[]): string | null {
  const words = argv.filter((a) => !a.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  return name && COMMANDS[name] ? name : null;
}

export async function main(argv: string[]): Promise<number> {
  const program = baseProgram();
  const wanted = wantedCommand(argv);
  if (wanted) await addCommands(program, [wanted]);
  else addOverview(program);
  harden(program);
  process.exitCode = 0;
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT; // commander printed it
    // a full disk, a read-only tree: the person fixes the system, not the command line (loaded only then)
    const { isRefusedWrite, refusedWriteFix } = await import("../bus/refused-write.js");
    const refused = isRefusedWrite(error) ? (error as NodeJS.ErrnoException).code! : null;
    return reportError(describeError(error), refused ? `${refusedWriteFix(refused)}, then run the command again` : undefined);
  }
  // Commands report their status through process.exitCode.
  return Number(process.exitCode ?? 0);
}
