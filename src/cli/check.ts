// guild-bus check: CI's and git hooks' question — did each required gate pass for the bytes now in the tree?
import type { Command } from "commander";
import { loadContext } from "../bus/context.js";
import { Layout } from "../bus/layout.js";
import { checkGates } from "../commands/check.js";
import { answered } from "./errors.js";

const FAILED_EXIT = 2;

export function register(program: Command): void {
  program
    .command("check")
    .description("re-derive from the files that each gate passed for the artifact bytes now in the tree (for CI and git hooks)")
    .option("--run <id>", "check this run's gates (default: the newest run of each gate and artifact)")
    .option("--gate <gate...>", "check only these gates")
    .option("--require <gates>", "comma-separated gates that must have passed, e.g. G-spec,G-plan")
    .option("--allow-weak", "accept a pass by a reviewer of unknown or same family (weak independence)")
    .option("--allow-force-pass", "accept a gate a human force-passed")
    .option("--json", "print JSON")
    .option("--root <dir>", "project root (holds .guild/)", process.cwd())
    .addHelpText(
      "after",
      "\nExit codes: 0 every checked gate passed, 2 one did not (or a required gate is missing), 1 usage error.\n" +
        "Example: guild-bus check --require G-spec,G-plan",
    )
    .action(
      (o: {
        run?: string;
        gate?: string[];
        require?: string;
        allowWeak?: boolean;
        allowForcePass?: boolean;
        json?: boolean;
        root: string;
      }) => {
        const require = (o.require ?? "")
          .split(",")
          .map((g) => g.trim())
          .filter(Boolean);
        const r = answered(
          checkGates(loadContext(new Layout(o.root)), {
            runId: o.run,
            gates: o.gate,
            require,
            allowWeak: o.allowWeak,
            allowForcePass: o.allowForcePass,
          }),
        );
        process.stdout.write(
          o.json ? JSON.stringify({ passed: r.passed, gates: r.gates, missing: r.missing }, null, 2) + "\n" : r.lines.join("\n") + "\n",
        );
        process.exitCode = r.passed ? 0 : FAILED_EXIT;
      },
    );
}
