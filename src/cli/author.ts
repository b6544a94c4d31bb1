// The author's and the human's answers to a waiting gate: resubmit, rebut, decide, respond.
import { Argument, type Command } from "commander";
import { viewGate } from "../commands/gate-view.js";
import { Layout } from "../bus/layout.js";
import { acceptManualResponse } from "../core/manual-answer.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { Decision, DecisionChoice, Resubmit } from "../spec/schemas.js";
import { scrub, scrubOptions } from "../core/scrub.js";
import { deliver } from "../bus/deliver.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { loadContext } from "../bus/context.js";
import { deliverResult } from "../workers/deliver-result.js";
import { resultRefusal } from "../core/result-slot.js";
import { readUserText } from "./input.js";
import { intArg } from "./options.js";
import { waitForGate } from "./wait.js";
import { contestRefusal, gatePolicy, offers, openRound } from "../core/gate-queries.js";

const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";

function open(root: string, run: string, gate: string) {
  const layout = new Layout(root);
  const ctx = loadContext(layout);
  const view = viewGate(ctx, assertRunId(run), assertGate(gate));
  return { layout, ctx, view };
}

function delivered(status: string, what: string): void {
  if (status === "conflict") throw new Error(`${what} already exists with other content; nothing changed`);
}

export function register(program: Command): void {
  program
    .command("resubmit")
    .description("tell the broker the artifact was revised after the findings; it issues the next round")
    .argument("<run>")
    .argument("<gate>")
    .option("--wait", "then wait like `review --wait`")
    .option("--json", "print the result as JSON")
    .option("--root <dir>", "project root", process.cwd())
    .action(async (run: string, gate: string, o: { wait?: boolean; json?: boolean; root: string }) => {
      const { layout, view } = open(o.root, run, gate);
      if (view.decision.state !== "awaiting_author") {
        throw new Error(`${run} ${gate} is not waiting for the author (state: ${view.decision.state} — ${view.decision.detail})`);
      }
      const R = view.decision.round;
      const record = Resubmit.parse({
        schema_version: "guild_bus.resubmit.v1",
        run_id: run,
        gate,
        after_round: R,
        at: new Date().toISOString(),
      });
      delivered(
        deliver(layout.gateFile(run, gate, `resubmit-${R}.json`), json(record), { guildDir: layout.guild }).status,
        `resubmit-${R}.json`,
      );
      process.stderr.write(`resubmitted after round ${R}\n`);
      if (o.wait) process.exitCode = await waitForGate(layout, run, gate, { json: o.json });
    });

  program
    .command("rebut")
    .description("contest the findings of the round waiting for you, once (difficulty hard or nightmare); the reviewer rules on each")
    .argument("<run>")
    .argument("<gate>")
    .requiredOption("--file <file>", "your argument about the findings; the reviewer sees it, labelled as the author's")
    .option("--wait", "then wait like `review --wait`")
    .option("--json", "print the result as JSON")
    .option("--root <dir>", "project root", process.cwd())
    .action(async (run: string, gate: string, o: { file: string; wait?: boolean; json?: boolean; root: string }) => {
      const { layout, ctx, view } = open(o.root, run, gate);
      const s = view.snapshot;
      const latest = openRound(s);
      if (s.rebuttals.has(latest)) throw new Error(`one rebuttal per round: rebuttal-${latest}.md already exists`);
      if (view.decision.state !== "awaiting_author") {
        throw new Error(`${run} ${gate} is not waiting for the author (state: ${view.decision.state} — ${view.decision.detail})`);
      }
      const R = view.decision.round;
      const refused = contestRefusal(s, R, gatePolicy(s, ctx.settings));
      if (refused) throw new Error(refused);
      const text = await readUserText(o.file, MAX_FILE_BYTES);
      if (!text.trim()) throw new Error("the rebuttal is empty");
      const body = scrub(text, scrubOptions(ctx.settings)).replace(/\n*$/, "\n");
      delivered(deliver(layout.gateFile(run, gate, `rebuttal-${R}.md`), body, { guildDir: layout.guild }).status, `rebuttal-${R}.md`);
      process.stderr.write(`rebuttal recorded for round ${R}; the reviewer rules on each contested finding next\n`);
      if (o.wait) process.exitCode = await waitForGate(layout, run, gate, { json: o.json });
    });

  program
    .command("decide")
    .description("answer an escalation: force-pass | extend-cap <1-5> | rework | retry | override | continue | stop")
    .argument("<run>")
    .argument("<gate>")
    .addArgument(new Argument("<choice>").choices(DecisionChoice.options))
    .argument("[n]", "rounds to add, with extend-cap (1-5)", intArg(1, 5))
    .option(
      "--note <text>",
      "instructions or rationale recorded in the trail (with continue, also given to the reviewer next round, labelled as yours)",
    )
    .option("--wait", "then wait like `review --wait`")
    .option("--json", "print the result as JSON")
    .option("--root <dir>", "project root", process.cwd())
    .action(
      async (
        run: string,
        gate: string,
        choice: DecisionChoice,
        n: number | undefined,
        o: { note?: string; wait?: boolean; json?: boolean; root: string },
      ) => {
        if ((choice === "extend-cap") !== (n !== undefined))
          throw new Error("a number of rounds (1-5) goes with extend-cap, and only with it");
        const { layout, view } = open(o.root, run, gate);
        if (view.decision.state !== "awaiting_decision") {
          throw new Error(`${run} ${gate} is not waiting for a decision (state: ${view.decision.state} — ${view.decision.detail})`);
        }
        const R = view.decision.round;
        const escalation = view.snapshot.escalations.get(R)!;
        if (!offers(escalation, choice)) {
          throw new Error(`${choice} is not an option for ${escalation.reason}; choose one of: ${escalation.options.join(", ")}`);
        }
        const extendBy = n;
        const record = Decision.parse({
          schema_version: "guild_bus.decision.v1",
          run_id: run,
          gate,
          round: R,
          choice,
          ...(extendBy ? { extend_by: extendBy } : {}),
          ...(o.note ? { note: o.note } : {}),
          decided_by: process.env.USER ?? "human",
          at: new Date().toISOString(),
        });
        delivered(
          deliver(layout.gateFile(run, gate, `decision-${R}.json`), json(record), { guildDir: layout.guild }).status,
          `decision-${R}.json`,
        );
        process.stderr.write(`decision recorded: ${choice}${extendBy ? ` ${extendBy}` : ""} (round ${R}, ${escalation.reason})\n`);
        if (o.wait) process.exitCode = await waitForGate(layout, run, gate, { json: o.json });
      },
    );

  program
    .command("respond")
    .description("answer a packet addressed to the manual reviewer")
    .argument("<run>")
    .argument("<gate>")
    .requiredOption("--reviewer-model <id>", "the exact model id that produced this review (its family must differ from the author's)")
    .option("--file <file>", "the review (review_result.v1 JSON, or prose ending in ## SATISFIED); default stdin")
    .option("--root <dir>", "project root", process.cwd())
    .action(async (run: string, gate: string, o: { reviewerModel: string; file?: string; root: string }) => {
      const { ctx, view } = open(o.root, run, gate);
      const R = openRound(view.snapshot);
      const packet = view.snapshot.packets.get(R);
      if (!packet || packet.reviewer_adapter !== "manual")
        throw new Error(`${run} ${gate} has no open packet addressed to the manual reviewer`);
      if (view.snapshot.results.has(R)) throw new Error(`round ${R} already has a result`);
      const closed = resultRefusal(view.snapshot, R);
      if (closed) throw new Error(`round ${R} cannot take an answer: ${closed}`);
      const text = await readUserText(o.file, MAX_FILE_BYTES);
      const verdict = acceptManualResponse(text, packet, ctx.settings, o.reviewerModel);
      if (!verdict.ok) {
        process.stderr.write(`rejected: ${verdict.reason}\nNothing was written; answer again.\n`);
        process.exitCode = 1;
        return;
      }
      // The answer is acknowledged only once it is in a round that can still use it (SPEC §15).
      const delivery = deliverResult(ctx, packet, verdict.result);
      if (!delivery.ok) throw new Error(`not accepted: ${delivery.reason}; nothing was written`);
      delivered(delivery.status, `result-${R}.json`);
      process.stderr.write(`accepted: result-${R}.json (${verdict.result.verdict}, reviewer ${verdict.model})\n`);
    });
}
