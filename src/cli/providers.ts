// guild-bus providers: which reviewers were found here, and why each is (not) usable.
import type { Command } from "commander";
import { ROOT_HELP } from "./errors.js";
import { Layout } from "../bus/layout.js";
import { detectProviders } from "../adapters/probe.js";
import { loadSettings } from "../bus/settings.js";

export function register(program: Command): void {
  program
    .command("providers")
    .description("show the reviewers detected here (settings, CLIs on PATH, capability declarations) and why")
    .option("--json", "print JSON")
    .option("--root <dir>", ROOT_HELP)
    .action(async (o: { json?: boolean; root: string }) => {
      const layout = new Layout(o.root);
      const { settings, problems } = loadSettings(layout);
      const found = await detectProviders(settings, layout);
      if (o.json) {
        process.stdout.write(JSON.stringify({ settings_problems: problems, providers: found }, null, 2) + "\n");
        return;
      }
      for (const p of problems) process.stdout.write(`settings: ${p}\n`);
      for (const p of found) {
        process.stdout.write(
          `${p.available ? "✓" : "✗"} ${p.id}  adapter ${p.adapter}  model ${p.model ?? "-"}  family ${p.family}  ` +
            `${p.selectable ? "selectable" : "not auto-selected"}  (${p.source})\n` +
            p.why.map((w) => `    ${w}\n`).join(""),
        );
      }
    });
}
