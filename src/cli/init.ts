// guild-bus init: wire guild-bus into this project and its author hosts (see src/commands/init.ts).
import { realpathSync } from "node:fs";
import type { Command } from "commander";
import { summary } from "./overview.js";
import { Layout } from "../bus/layout.js";
import { applyInit, type Host, HOSTS, planInit } from "../commands/init.js";
import { answered, ROOT_HELP, type RootOptions } from "./errors.js";
import { refuse } from "../commands/answer.js";
import { print } from "./safe-output.js";
import { sayOnStderr } from "./format.js";

function hostsOf(list: string): Host[] {
  const names = list.split(",").map((h) => h.trim());
  if (names.includes("all")) return [...HOSTS];
  const unknown = names.filter((h) => !(HOSTS as readonly string[]).includes(h));
  if (unknown.length) throw new Error(`--host: unknown host ${unknown.join(", ")}; the hosts are ${HOSTS.join(", ")}, all`);
  return names as Host[];
}

export function register(program: Command): void {
  program
    .command("init")
    .description(summary("init"))
    .option("--host <hosts>", `author hosts to set up: ${HOSTS.join(", ")} or all (comma-separated)`, "all")
    .option("--dry-run", "print what would change, as a diff, and write nothing")
    .option("--root <dir>", ROOT_HELP)
    .action(async (o: RootOptions & { host: string; dryRun?: boolean }, cmd: Command) => {
      const layout = new Layout(o.root);
      const plan = answered(await planInit(layout, hostsOf(o.host), sayOnStderr, o.checkedSettings));
      if (o.dryRun) {
        const { createTwoFilesPatch } = await import("diff"); // only a dry run prints a diff: --help and init stay free of it
        for (const c of plan.changes)
          print("stdout", createTwoFilesPatch(c.before === null ? "/dev/null" : `a/${c.path}`, `b/${c.path}`, c.before ?? "", c.after));
        // it says what the real run would do: a change it cannot write refuses the whole run
        const refused = plan.changes.flatMap((c) => (c.refused ? [c.refused] : []));
        if (refused.length) answered(refuse(`init would refuse: ${refused.join("; ")} (nothing would be written)`));
      } else {
        answered(await applyInit(layout, plan));
      }
      const verb = o.dryRun ? "would change" : "changed";
      // run from below the project root it found (the nearest .guild/ up, else the git work tree's root), the paths are not
      // this directory's: a host started here may not read them (Claude Code reads .claude/settings.json from where it starts)
      const found = cmd.getOptionValueSource("root") === "implied" && layout.root !== realpathSync(process.cwd());
      const elsewhere = found ? ` in ${layout.root} (start the author hosts there)` : "";
      print(
        "stderr",
        plan.changes.length
          ? `${verb}${elsewhere}: ${plan.changes.map((c) => c.path).join(", ")}\n`
          : `nothing to change${elsewhere}: already set up\n`,
      );
      for (const n of plan.notes) print("stderr", `- ${n}\n`);
    });
}
