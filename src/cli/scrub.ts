// guild-bus scrub <file>: print the scrubbed text; --check exits 3 when something was redacted.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { readUserText } from "./input.js";
import { print } from "./safe-output.js";
import type { RootOptions } from "./errors.js";

export function register(program: Command): void {
  program
    .command("scrub")
    .description(summary("scrub"))
    .argument("<file>", "file to scrub ('-' for stdin)")
    .option("--check", "print nothing; exit 3 when something would be redacted (a summary goes to stderr)")
    .option("--root <dir>", "project root whose .guild/settings.json supplies custom redaction patterns")
    .action(async (file: string, opts: Partial<RootOptions> & { check?: boolean }) => {
      // the largest text the bus ever scrubs
      const text = await readUserText(file, MAX_FILE_BYTES);
      const [{ Layout }, { loadSettings }, { scrubOptions, scrubWithReport }] = await Promise.all([
        import("../bus/layout.js"),
        import("../bus/settings.js"),
        import("../core/scrub.js"),
      ]);
      const { settings } = opts.checkedSettings ?? loadSettings(new Layout(opts.root ?? process.cwd()));
      const report = scrubWithReport(text, scrubOptions(settings));
      const found = Object.entries(report.redactions);
      if (opts.check) {
        if (found.length) print("stderr", `redacted: ${found.map(([k, n]) => `${k}=${n}`).join(" ")}\n`);
        process.exitCode = found.length ? 3 : 0;
        return;
      }
      // the scrubbed text is data (piped, saved): its bytes as they are, not shown terminal-safe (cli/safe-output.ts)
      print("stdout", Buffer.from(report.text, "utf8"));
    });
}
