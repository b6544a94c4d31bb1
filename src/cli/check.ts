// guild-bus check: CI's and git hooks' question — did each required gate pass for the bytes now in the tree?
import type { Command } from "commander";
import { summary } from "./overview.js";
import { answered, ROOT_HELP, type RootOptions } from "./errors.js";
import { print } from "./safe-output.js";

const FAILED_EXIT = 2;

export function register(program: Command): void {
  program
    .command("check")
    .description(summary("check"))
    .option("--run <id>", "check this run's gates (default: the newest run of each gate and artifact)")
    .option("--gate <gate...>", "check only these gates")
    .option("--require <gates>", "comma-separated gates that must have passed, e.g. G-spec,G-plan")
    .option(
      "--require-files <gate=glob...>",
      "every file the glob matches must have passed that gate, e.g. G-spec='docs/specs/**/*.md' (a file added unreviewed fails)",
    )
    .option("--allow-weak", "accept a pass by a reviewer of unknown or same family (weak independence)")
    .option("--allow-force-pass", "accept a gate a human force-passed")
    .option("--json", "print JSON")
    .option("--root <dir>", ROOT_HELP)
    .action(
      async (
        o: RootOptions & {
          run?: string;
          gate?: string[];
          require?: string;
          requireFiles?: string[];
          allowWeak?: boolean;
          allowForcePass?: boolean;
          json?: boolean;
        },
      ) => {
        const [{ loadContextSoon }, { Layout }, { checkGates, checkJson }] = await Promise.all([
          import("../bus/load-soon.js"),
          import("../bus/layout.js"),
          import("../commands/check.js"),
        ]);
        const require = (o.require ?? "")
          .split(",")
          .map((g) => g.trim())
          .filter(Boolean);
        const r = answered(
          await checkGates(await loadContextSoon(new Layout(o.root), o.checkedSettings), {
            runId: o.run,
            gates: o.gate,
            require,
            requireFiles: o.requireFiles,
            allowWeak: o.allowWeak,
            allowForcePass: o.allowForcePass,
          }),
        );
        print("stdout", o.json ? JSON.stringify(checkJson(r), null, 2) + "\n" : r.lines.join("\n") + "\n");
        process.exitCode = r.passed ? 0 : FAILED_EXIT;
      },
    );
}
