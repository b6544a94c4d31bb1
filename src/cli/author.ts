// The author's and the human's answers to a waiting gate: resubmit, decide, respond.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { viewGate } from "../broker/view.js";
import { Layout } from "../layout.js";
import { acceptManualResponse } from "../manual.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { Decision, DecisionChoice, Resubmit } from "../spec/schemas.js";
import { scrubResult } from "../scrub-result.js";
import { deliver } from "../store/deliver.js";
import { loadContext } from "../worker/context.js";
import { waitForGate } from "./wait.js";

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
    .argument("<run>").argument("<gate>")
    .option("--wait", "then wait like `review --wait`")
    .option("--json", "print the result as JSON")
    .option("--root <dir>", "project root", process.cwd())
    .action(async (run: string, gate: string, o: { wait?: boolean; json?: boolean; root: string }) => {
      const { layout, view } = open(o.root, run, gate);
      if (view.decision.state !== "awaiting_author") {
        throw new Error(`${run} ${gate} is not waiting for the author (state: ${view.decision.state} — ${view.decision.detail})`);
      }
      const R = view.decision.round;
      const record = Resubmit.parse({ schema_version: "guild_bus.resubmit.v1", run_id: run, gate, after_round: R, at: new Date().toISOString() });
      delivered(deliver(layout.gateFile(run, gate, `resubmit-${R}.json`), json(record), { guildDir: layout.guild }).status, `resubmit-${R}.json`);
      process.stderr.write(`resubmitted after round ${R}\n`);
      if (o.wait) process.exitCode = await waitForGate(layout, run, gate, { json: o.json });
    });

  program
    .command("decide")
    .description("answer an escalation: force-pass | extend-cap <1-5> | rework | retry | override")
    .argument("<run>").argument("<gate>").argument("<choice>").argument("[n]", "rounds to add, with extend-cap")
    .option("--note <text>", "instructions or rationale recorded in the trail")
    .option("--wait", "then wait like `review --wait`")
    .option("--json", "print the result as JSON")
    .option("--root <dir>", "project root", process.cwd())
    .action(async (run: string, gate: string, choiceArg: string, n: string | undefined, o: { note?: string; wait?: boolean; json?: boolean; root: string }) => {
      const { layout, view } = open(o.root, run, gate);
      const choice = DecisionChoice.parse(choiceArg);
      if (view.decision.state !== "awaiting_decision") {
        throw new Error(`${run} ${gate} is not waiting for a decision (state: ${view.decision.state} — ${view.decision.detail})`);
      }
      const R = view.decision.round;
      const escalation = view.snapshot.escalations.get(R)!;
      if (!escalation.options.includes(choice)) {
        throw new Error(`${choice} is not an option for ${escalation.reason}; choose one of: ${escalation.options.join(", ")}`);
      }
      const extendBy = choice === "extend-cap" ? Number(n ?? "") : undefined;
      if (extendBy !== undefined && (!Number.isInteger(extendBy) || extendBy < 1 || extendBy > 5)) throw new Error("extend-cap takes a number of rounds from 1 to 5");
      const record = Decision.parse({
        schema_version: "guild_bus.decision.v1", run_id: run, gate, round: R, choice,
        ...(extendBy ? { extend_by: extendBy } : {}), ...(o.note ? { note: o.note } : {}),
        decided_by: process.env.USER ?? "human", at: new Date().toISOString(),
      });
      delivered(deliver(layout.gateFile(run, gate, `decision-${R}.json`), json(record), { guildDir: layout.guild }).status, `decision-${R}.json`);
      process.stderr.write(`decision recorded: ${choice}${extendBy ? ` ${extendBy}` : ""} (round ${R}, ${escalation.reason})\n`);
      if (o.wait) process.exitCode = await waitForGate(layout, run, gate, { json: o.json });
    });

  program
    .command("respond")
    .description("answer a packet addressed to the manual reviewer")
    .argument("<run>").argument("<gate>")
    .requiredOption("--reviewer-model <id>", "the exact model id that produced this review (its family must differ from the author's)")
    .option("--file <file>", "the review (review_result.v1 JSON, or prose ending in ## SATISFIED); default stdin")
    .option("--root <dir>", "project root", process.cwd())
    .action((run: string, gate: string, o: { reviewerModel: string; file?: string; root: string }) => {
      const { layout, ctx, view } = open(o.root, run, gate);
      const R = Math.max(0, ...view.snapshot.packets.keys());
      const packet = view.snapshot.packets.get(R);
      if (!packet || packet.reviewer_adapter !== "manual") throw new Error(`${run} ${gate} has no open packet addressed to the manual reviewer`);
      if (view.snapshot.results.has(R)) throw new Error(`round ${R} already has a result`);
      const text = readFileSync(o.file ?? 0, "utf8");
      const verdict = acceptManualResponse(text, packet, ctx.settings, o.reviewerModel);
      if (!verdict.ok) {
        process.stderr.write(`rejected: ${verdict.reason}\nNothing was written; answer again.\n`);
        process.exitCode = 1;
        return;
      }
      const result = scrubResult(verdict.result, ctx.settings.secrets_policy?.redaction_patterns);
      const status = deliver(layout.gateFile(run, gate, `result-${R}.json`), json(result), { guildDir: layout.guild }).status;
      delivered(status, `result-${R}.json`);
      process.stderr.write(`accepted: result-${R}.json (${verdict.result.verdict}, reviewer ${verdict.model})\n`);
    });
}
