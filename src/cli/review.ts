// guild-bus review: deliver request.json for a gate (and run.json for a new run); optionally wait for it.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { Layout } from "../bus/layout.js";
import { GATE_NAMES } from "../spec/ids.js";
import { Difficulty, StopPolicy } from "../spec/schemas.js";
import { nonBlankArg, parseQuorum, secondsArg } from "./options.js";
import { answered, ROOT_HELP, type RootOptions } from "./errors.js";
import { waitForGate } from "./follow.js";
import { userPath } from "../bus/project-root.js";
import { capRefusal, requestReview, type ReviewParams } from "../commands/review.js";
import { MAX_CAP } from "../core/policy.js";
import { lineSafe } from "../core/terminal-safe.js";
import { print } from "./safe-output.js";

/** What commander hands over: the request's fields, with the modes still unchecked strings, and the CLI's own. */
type ReviewOptions = Omit<ReviewParams, "artifact" | "cap" | "stop" | "difficulty" | "quorum"> & {
  cap?: string;
  stop?: string;
  quorum?: string;
  difficulty?: string;
  wait?: boolean;
  json?: boolean;
  timeout?: number;
} & RootOptions;

export function register(program: Command): void {
  program
    .command("review")
    .description(summary("review"))
    .argument("<artifact>", "the artifact, inside the project")
    .requiredOption("--gate <gate>", GATE_NAMES)
    .requiredOption("--author <host>", "the host that wrote it (claude, codex, gemini, …)", nonBlankArg)
    .option("--author-model <model>", "the exact model that wrote it (decides the author family when known)", nonBlankArg)
    .option("--run-id <id>", "run to file it under (default: a new run)")
    .option("--reviewer <provider>", "auto, or a provider id to pin", nonBlankArg, "auto")
    .option("--review <mode>", "cross | local | off")
    .option("--risk <level>", "low | medium | high (high makes review required)")
    .option("--cap <n>", `round cap, 1 to ${MAX_CAP} (default settings max_rounds, else 5, or 4 with --stop score)`)
    .option("--stop <policy>", "verdict | score (score ≥ 6 and readiness ready|almost replace the verdict condition)")
    .option("--difficulty <level>", "medium | hard (reviewer memory, rebuttals) | nightmare (the reviewer reads the repository)")
    .option("--human-checkpoint", "wait for `guild-bus decide continue|stop|rework` after every round that does not end the gate")
    .option(
      "--quorum <rule>",
      "K/N: K of N reviewers of distinct families, none the author's, must pass (2/3); or the families that must (openai+google)",
    )
    .option("--paths <paths...>", "further project-relative paths for the reviewer (read directly at nightmare)")
    .option("--wait", "block until the gate needs the author, needs a human, or ends")
    .option("--json", "print the result as JSON")
    .option(
      "--timeout <seconds>",
      "with --wait: give up after this long (exit 6; the gate goes on, re-attach with `guild-bus wait`)",
      secondsArg,
    )
    .option("--root <dir>", ROOT_HELP)
    .action(async (artifact: string, o: ReviewOptions) => {
      const layout = new Layout(o.root);
      if (o.review && !["cross", "local", "off"].includes(o.review)) throw new Error(`--review must be cross, local or off`);
      if (o.risk && !["low", "medium", "high"].includes(o.risk)) throw new Error(`--risk must be low, medium or high`);
      // the command layer's own words for a cap out of range, not commander's (a bad value is refused before any work)
      const badCap = o.cap === undefined ? null : capRefusal(o.cap);
      if (badCap) throw new Error(badCap);
      if (o.timeout !== undefined && !o.wait) throw new Error("--timeout goes with --wait (it bounds the wait); nothing was requested");
      const stop = o.stop === undefined ? undefined : StopPolicy.safeParse(o.stop).data;
      if (o.stop !== undefined && !stop) throw new Error("--stop must be verdict or score");
      const quorum = o.quorum === undefined ? undefined : parseQuorum(o.quorum);
      const difficulty = o.difficulty === undefined ? undefined : Difficulty.safeParse(o.difficulty).data;
      if (o.difficulty !== undefined && !difficulty) throw new Error("--difficulty must be medium, hard or nightmare");
      const { runId, gate, warnings, idle } = answered(
        await requestReview(
          layout,
          {
            ...o, // the request's own fields; the CLI's (wait, json, root, timeout, checkedSettings) are not read
            artifact: userPath(o.root, process.cwd(), artifact),
            paths: o.paths?.map((p) => userPath(o.root, process.cwd(), p)),
            cap: o.cap === undefined ? undefined : Number(o.cap),
            stop,
            difficulty,
            quorum,
          },
          o.checkedSettings,
        ),
      );
      for (const w of warnings) print("stderr", `${lineSafe(`warning: ${w}`)}\n`);
      print("stderr", `requested: run ${runId}, gate ${gate}, ${layout.rel(layout.gateDir(runId, gate))}\n`);
      if (!o.wait) {
        // --wait prints the next step at once; without it, a first run before `up` must not look as if it moves
        if (idle) print("stderr", `${idle}\n`);
        print(
          "stdout",
          o.json ? JSON.stringify({ run_id: runId, gate, gate_dir: layout.rel(layout.gateDir(runId, gate)) }) + "\n" : `${runId}\n`,
        );
        return;
      }
      process.exitCode = await waitForGate(layout, runId, gate, {
        json: o.json,
        timeoutMs: o.timeout === undefined ? undefined : o.timeout * 1000,
      });
    });
}
