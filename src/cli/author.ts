// guild-bus resubmit | rebut | decide | respond: parse, call the command (src/commands/author.ts), print.
import { Argument, type Command } from "commander";
import { summary } from "./overview.js";
import { loadContext } from "../bus/context.js";
import { Layout } from "../bus/layout.js";
import { decideEscalation, landedNote, rebut, resubmit, respond } from "../commands/author.js";
import { MAX_EXTEND_BY, MAX_FILE_BYTES, MAX_ROUND } from "../spec/constants.js";
import { DecisionChoice } from "../spec/schemas.js";
import { answered, ROOT_HELP, type RootOptions } from "./errors.js";
import { readUserText } from "./input.js";
import { intArg, secondsArg } from "./options.js";
import { waitForGate } from "./follow.js";
import { print } from "./safe-output.js";

type Follow = { wait?: boolean; json?: boolean; timeout?: number };
type Seen = { round?: number };

/** --round: the round the person read; the command refuses, writing nothing, once the gate has moved on to another. */
const ROUND_HELP = "the round you read (status): refused, nothing written, if the gate has moved on to another";
const roundArg = intArg(0, MAX_ROUND);

/** --wait, --json and --timeout as `review` has them: after writing, an author command follows the gate the same way. */
function following(command: Command): Command {
  return command
    .option("--wait", "then wait like `review --wait`")
    .option("--json", "print the result as JSON")
    .option(
      "--timeout <seconds>",
      "with --wait: give up after this long (exit 6; the gate goes on, re-attach with `guild-bus wait`)",
      secondsArg,
    );
}

async function follow(layout: Layout, run: string, gate: string, o: Follow): Promise<void> {
  if (!o.wait) return;
  process.exitCode = await waitForGate(layout, run, gate, {
    json: o.json,
    timeoutMs: o.timeout === undefined ? undefined : o.timeout * 1000,
  });
}

export function register(program: Command): void {
  following(program.command("resubmit").description(summary("resubmit")).argument("<run>").argument("<gate>"))
    .option("--round <n>", ROUND_HELP, roundArg)
    .option("--root <dir>", ROOT_HELP)
    .action(async (run: string, gate: string, o: Follow & Seen & RootOptions) => {
      const layout = new Layout(o.root);
      const r = answered(await resubmit(loadContext(layout, o.checkedSettings), run, gate, o.round));
      print("stderr", `resubmitted after round ${r.round}${landedNote(r)}\n`);
      await follow(layout, run, gate, o);
    });

  following(
    program
      .command("rebut")
      .description(summary("rebut"))
      .argument("<run>")
      .argument("<gate>")
      .requiredOption("--file <file>", "your argument about the findings; the reviewer sees it, labelled as the author's"),
  )
    .option("--round <n>", ROUND_HELP, roundArg)
    .option("--root <dir>", ROOT_HELP)
    .action(async (run: string, gate: string, o: Follow & Seen & RootOptions & { file: string }) => {
      const layout = new Layout(o.root);
      const text = await readUserText(o.file, MAX_FILE_BYTES);
      const r = answered(await rebut(loadContext(layout, o.checkedSettings), run, gate, text, o.round));
      print("stderr", `rebuttal recorded for round ${r.round}${landedNote(r)}; the reviewer rules on each contested finding next\n`);
      await follow(layout, run, gate, o);
    });

  following(
    program
      .command("decide")
      .description(summary("decide"))
      .argument("<run>")
      .argument("<gate>")
      .addArgument(new Argument("<choice>").choices(DecisionChoice.options))
      .argument("[n]", `rounds to add, with extend-cap (1-${MAX_EXTEND_BY})`, intArg(1, MAX_EXTEND_BY))
      .option(
        "--note <text>",
        "instructions or rationale recorded in the trail (with continue, also given to the reviewer next round, labelled as yours)",
      ),
  )
    .option(
      "--round <n>",
      "the round whose escalation you read (status; needed past round 1): refused, nothing written, if the gate has moved on to another",
      roundArg,
    )
    .option("--root <dir>", ROOT_HELP)
    .action(
      async (
        run: string,
        gate: string,
        choice: DecisionChoice,
        n: number | undefined,
        o: Follow & Seen & RootOptions & { note?: string },
      ) => {
        const layout = new Layout(o.root);
        const decidedBy = process.env.USER ?? "human";
        const decision = { choice, extendBy: n, note: o.note, decidedBy, round: o.round };
        const d = answered(await decideEscalation(loadContext(layout, o.checkedSettings), run, gate, decision));
        print("stderr", `decision recorded: ${choice}${n ? ` ${n}` : ""} (round ${d.round}, ${d.reason})${landedNote(d)}\n`);
        await follow(layout, run, gate, o);
      },
    );

  program
    .command("respond")
    .description(summary("respond"))
    .argument("<run>")
    .argument("<gate>")
    .requiredOption("--reviewer-model <id>", "the exact model id that produced this review (its family must differ from the author's)")
    .option("--file <file>", "the review (review_result.v1 JSON, or prose ending in ## SATISFIED); default stdin")
    .option(
      "--round <n>",
      "the round whose packet you reviewed (needed past round 1): refused, nothing written, if the gate has moved on to another",
      roundArg,
    )
    .option("--root <dir>", ROOT_HELP)
    .action(async (run: string, gate: string, o: Seen & RootOptions & { reviewerModel: string; file?: string }) => {
      const ctx = loadContext(new Layout(o.root), o.checkedSettings);
      const read = () => readUserText(o.file, MAX_FILE_BYTES);
      const typed = (o.file === undefined || o.file === "-") && process.stdin.isTTY === true;
      const r = answered(await respond(ctx, run, gate, { read, reviewerModel: o.reviewerModel, round: o.round, typed }));
      print("stderr", `accepted: result-${r.round}.json (${r.verdict}, reviewer ${r.model})${landedNote(r)}\n`);
    });
}
