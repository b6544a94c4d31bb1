// guild-bus family <model>...: the one classifier, from the shell.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { classifyModel } from "../core/family.js";
import { print } from "./safe-output.js";

export function register(program: Command): void {
  program
    .command("family")
    .description(summary("family"))
    .argument("<model...>", "model ids")
    .option("--json", "print a JSON array")
    .option("--alias <needle=family...>", "extra needles, as the settings alias map would add")
    .action((models: string[], opts: { json?: boolean; alias?: string[] }) => {
      const aliases = Object.fromEntries((opts.alias ?? []).map((a) => a.split("=", 2) as [string, string]));
      const rows = models.map((model) => ({ model, family: classifyModel(model, aliases as never) }));
      print("stdout", opts.json ? JSON.stringify(rows) + "\n" : rows.map((r) => `${r.model}\t${r.family}\n`).join(""));
    });
}
