// guild-bus providers: which reviewers were found here, why each is (not) usable, and how to enable each missing host.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { ROOT_HELP, type RootOptions } from "./errors.js";
import { helpText, sayOnStderr } from "./format.js";
import { lineSafe } from "../core/terminal-safe.js";
import { print } from "./safe-output.js";

export function register(program: Command): void {
  program
    .command("providers")
    .description(summary("providers"))
    .option("--json", "print JSON")
    .option("--root <dir>", ROOT_HELP)
    .addHelpText("after", helpText(["guild-bus providers", "guild-bus providers --json"], "0; 1 usage error or invalid settings"))
    .action(async (o: RootOptions & { json?: boolean }) => {
      const [{ Layout }, { providerReport, hostLines }] = await Promise.all([
        import("../bus/layout.js"),
        import("../commands/providers.js"),
      ]);
      const report = await providerReport(new Layout(o.root), sayOnStderr, o.checkedSettings);
      if (o.json) {
        print("stdout", JSON.stringify(report, null, 2) + "\n");
        return;
      }
      for (const p of report.providers) {
        // one line each: a probe's output or a settings value cannot print a line of its own
        const line =
          `${p.available ? "✓" : "✗"} ${p.id}  adapter ${p.adapter}  model ${p.model ?? "-"}  family ${p.family}  ` +
          `${p.selectable ? "selectable" : "not auto-selected"}  (${p.source})`;
        print("stdout", [line, ...p.why.map((w) => `    ${w}`)].map((l) => `${lineSafe(l)}\n`).join(""));
      }
      print("stdout", "\nlooked for:\n");
      for (const line of hostLines(report.hosts)) print("stdout", `  ${lineSafe(line)}\n`);
    });
}
