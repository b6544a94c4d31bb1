// guild-bus status [run [gate]]: every gate's state, round, reviewer, independence, last verdict, what it waits for.
import type { Command } from "commander";
import { ROOT_HELP } from "./errors.js";
import { listGates } from "../bus/gate-list.js";
import { reverifyGate, viewGate } from "../commands/gate-view.js";
import { Layout } from "../bus/layout.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { loadContext } from "../bus/context.js";

export function register(program: Command): void {
  program
    .command("status")
    .description("show every gate's state, or one run's, or one gate's")
    .argument("[run]")
    .argument("[gate]")
    .option("--json", "print JSON")
    .option("--verify", "re-derive every ended gate's outcome from its files; exit 2 if one does not hold (SPEC §17)")
    .option("--root <dir>", ROOT_HELP)
    .action((run: string | undefined, gate: string | undefined, o: { json?: boolean; verify?: boolean; root: string }) => {
      const ctx = loadContext(new Layout(o.root));
      const listing = gate
        ? { gates: [{ runId: assertRunId(run), gate: assertGate(gate) }], ignored: [] }
        : listGates(ctx.layout, run === undefined ? undefined : assertRunId(run));
      const refs = listing.gates;
      const rows = refs.map(({ runId, gate: g }) => {
        const v = viewGate(ctx, runId, g);
        const verify = o.verify ? reverifyGate(ctx, v) : null;
        return { ...v.output, rejected: v.snapshot.rejected, problems: v.snapshot.problems, ...(verify ? { verify } : {}) };
      });
      if (rows.some((r) => r.verify && !r.verify.ok)) process.exitCode = 2;
      if (o.json) {
        process.stdout.write(
          JSON.stringify({ settings_problems: ctx.settingsProblems, ignored: listing.ignored, gates: rows }, null, 2) + "\n",
        );
        return;
      }
      for (const p of ctx.settingsProblems) process.stdout.write(`settings: ${p}\n`);
      for (const i of listing.ignored) process.stdout.write(`ignored: ${i.path} — ${i.reason}\n`);
      if (!rows.length) process.stdout.write("no gates under .guild/runs\n");
      for (const r of rows) {
        process.stdout.write(
          `${r.run_id}  ${r.gate}  ${r.status}  round ${r.round}  ${r.state}  ` +
            `reviewer ${r.reviewer_host ?? "-"} (${r.independence ?? "-"})  last verdict: ${r.last_verdict ?? "-"}\n` +
            `    modes: stop ${r.modes.stop}, difficulty ${r.modes.difficulty}${r.modes.human_checkpoint ? ", human checkpoint" : ""}\n` +
            `    waiting for: ${r.waiting_for} — ${r.detail}\n` +
            r.rejected.map((f) => `    rejected: ${f.file} — ${f.reason}\n`).join("") +
            r.problems.map((p) => `    invalid: ${p.file}: ${p.reason}\n`).join("") +
            (r.verify
              ? r.verify.ok
                ? "    verify: ok — the outcome re-derives from the files\n"
                : r.verify.problems.map((p) => `    verify: FAILED — ${p}\n`).join("")
              : ""),
        );
      }
    });
}
