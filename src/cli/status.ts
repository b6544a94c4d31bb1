// guild-bus status [run [gate]]: every gate as a table, then for each what it waits for and the command that moves it.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { ROOT_HELP, type RootOptions, answered } from "./errors.js";
import { formatAge, helpText, table } from "./format.js";
import { lineSafe } from "../core/terminal-safe.js";
import { print } from "./safe-output.js";

export function register(program: Command): void {
  program
    .command("status")
    .description(summary("status"))
    .argument("[run]")
    .argument("[gate]")
    .option("--json", "print JSON (per gate: next step, escalation options, last round's findings, packet and result paths)")
    .option("--all", "every gate: also those that ended over a day ago and have not changed since (left out by default)")
    .option(
      "--verify",
      "re-derive every ended gate's outcome from its files (every gate, as --all); exit 2 if one does not hold (SPEC §17)",
    )
    .option(
      "--exit-status",
      "exit with the most urgent code of every gate: 5 unavailable, 4 decision, 3 author, 2 pass of other bytes, 6 moving, 0 done",
    )
    .option("--root <dir>", ROOT_HELP)
    .addHelpText(
      "after",
      helpText(
        [
          "guild-bus status",
          "guild-bus status <run> G-spec --json",
          "guild-bus status --all",
          "guild-bus status --verify",
          "guild-bus status --exit-status || echo needs you",
        ],
        "0; 2 with --verify when an outcome does not re-derive or a directory the bus refuses hides gates; " +
          "with --exit-status 2, 3, 4, 5 or 6 (above); 1 usage error, no such gate",
      ),
    )
    .action(
      async (
        run: string | undefined,
        gate: string | undefined,
        o: RootOptions & { json?: boolean; all?: boolean; verify?: boolean; exitStatus?: boolean },
      ) => {
        const [{ Layout }, { loadContextSoon }, { listedGates, historyNote, statusExitCode }] = await Promise.all([
          import("../bus/layout.js"),
          import("../bus/load-soon.js"),
          import("../commands/status-scope.js"),
        ]);
        const ctx = await loadContextSoon(new Layout(o.root), o.checkedSettings);
        // a script's exit code covers every gate: an old rework, or a pass whose artifact was edited since, still counts
        const all = o.all || o.exitStatus;
        const listed = answered(listedGates(ctx.layout, { run, gate, verify: o.verify, all }));
        // reading, deciding and proving a gate's packets (and telling history) is loaded only when a gate is listed
        const status = listed.gates.length ? await import("../commands/status.js") : null;
        const { gates, ignored, history } = status?.withoutHistory(ctx.layout, listed) ?? { ...listed, history: 0 };
        const { rows } = status && gates.length ? answered(status.gateRows(ctx, gates, o.verify)) : { rows: [] };
        const historyLine = historyNote(history, "guild-bus status --all");
        if (o.exitStatus) process.exitCode = statusExitCode(rows, ignored);
        // --verify re-derives every gate: one a directory the bus refuses hides was not, as `check` counts it
        if (rows.some((r) => r.verify && !r.verify.ok) || (o.verify && ignored.some((i) => i.hides))) process.exitCode = 2;
        if (o.json) {
          print(
            "stdout",
            JSON.stringify({ settings_problems: ctx.settingsProblems, ignored, ended_not_shown: history, gates: rows }, null, 2) + "\n",
          );
          return;
        }
        for (const i of ignored) print("stdout", `${lineSafe(`ignored: ${i.path} — ${i.reason}`)}\n`);
        if (!rows.length) {
          print(
            "stdout",
            historyLine ? `no open or recent gate; ${historyLine}\n` : `no gates under ${ctx.layout.rel(ctx.layout.runs)} (${o.root})\n`,
          );
          return;
        }
        const header = ["RUN", "GATE", "STATE", "ROUND", "REVIEWER", "INDEPENDENCE", "AGE"];
        const cells = rows.map((r) =>
          [
            r.run_id,
            r.gate,
            r.state === "done" ? r.status : r.state,
            `${r.rounds}/${r.cap}`, // counted against the cap, as the console shows (a retried round is not)
            r.reviewer_host ? `${r.reviewer_host}${r.reviewer_model ? ` (${r.reviewer_model})` : ""}` : "-",
            r.independence ?? "-",
            formatAge(r.requested_at),
          ].map(lineSafe),
        );
        const lines = table(header, cells);
        const { gateLines } = await import("./gate-lines.js");
        print("stdout", `${lines[0]}\n`);
        rows.forEach((r, i) =>
          print(
            "stdout",
            `${lines[i + 1]}\n${gateLines(r)
              .map((l) => `    ${l}\n`)
              .join("")}`,
          ),
        );
        if (historyLine) print("stdout", `${historyLine}\n`);
      },
    );
}
