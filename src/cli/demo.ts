// guild-bus demo: the whole bus in a temporary project with a SCRIPTED reviewer (clearly labelled; no model is
// called): round 1 finds a blocking issue, the "author" revises and resubmits, round 2 is satisfied.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { constants as osConstants, tmpdir } from "node:os";
import path from "node:path";
import type { Command } from "commander";
import { summary } from "./overview.js";
import { viewGate } from "../commands/gate-view.js";
import { Layout } from "../bus/layout.js";
import { Resubmit } from "../spec/schemas.js";
import { deliver } from "../bus/deliver.js";
import { loadContext } from "../bus/context.js";
import { requestReview } from "../commands/review.js";
import { answered } from "./errors.js";
import { waitForGate } from "./follow.js";
import { BIN } from "./worker.js";
import { packagePath } from "../bus/package-files.js";
import { print } from "./safe-output.js";
import { exited, lookUntil } from "./look-until.js";
import { workerRunning } from "../runtime/peers.js";

const SCRIPTED = packagePath("dist", "src", "cli", "demo-reviewer.js");

const SPEC_V1 =
  '# Spec: export button\n\nThe dashboard gets an "Export CSV" button.\n\n## Acceptance criteria\n- TBD\n\n## Notes\n' +
  "The API token for staging is token=sk-demo-1234567890abcdefghijklmnop (the bus scrubs it before any reviewer sees it).\n";
const SPEC_V2 = SPEC_V1.replace(
  "- TBD",
  "- Clicking Export downloads all visible rows as RFC 4180 CSV within 2 s for 10,000 rows.\n" +
    "- The button is disabled while an export runs.",
);

export function register(program: Command): void {
  program
    .command("demo")
    .description(summary("demo"))
    .option("--keep", "keep the temporary project and print its path")
    .option("--poll", "run the workers in polling mode")
    .action(async (o: { keep?: boolean; poll?: boolean }) => {
      const root = mkdtempSync(path.join(tmpdir(), "guild-bus-demo-"));
      const say = (s: string) => print("stderr", `\n== ${s}\n`);
      // Ctrl-C (or a kill) before the end: the same clean-up as the end's, then the signal's exit code
      const workers: ChildProcess[] = [];
      let stopping: Promise<void> | null = null;
      const stop = () =>
        (stopping ??= (async () => {
          for (const w of workers) w.kill("SIGTERM");
          await Promise.all(workers.map((w) => new Promise((r) => (exited(w) ? r(null) : w.once("exit", r)))));
          if (o.keep) say(`kept: ${root}`);
          else rmSync(root, { recursive: true, force: true, maxRetries: 3 });
        })());
      let signalled = false;
      const onSignal = (signal: NodeJS.Signals) => {
        // a second Ctrl-C while stopping (an impatient user) ends the workers at once; the project is still removed
        if (signalled) return workers.filter((w) => !exited(w)).forEach((w) => w.kill("SIGKILL"));
        signalled = true;
        say(`${signal}: stopping the demo's workers${o.keep ? "" : " and removing its project"}`);
        void stop().finally(() => process.exit(128 + osConstants.signals[signal]));
      };
      const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
      for (const signal of signals) process.on(signal, onSignal);
      const layout = new Layout(root);
      mkdirSync(path.join(root, ".guild"), { recursive: true });
      writeFileSync(
        layout.settings,
        JSON.stringify(
          {
            schema_version: "guild_bus.settings.v1",
            providers: {
              "scripted-demo": { adapter: "command", model: "gpt-scripted-demo", argv: [process.execPath, SCRIPTED], timeout_ms: 30_000 },
            },
          },
          null,
          2,
        ),
      );
      mkdirSync(path.join(root, "docs"));
      const spec = path.join(root, "docs", "export-spec.md");
      writeFileSync(spec, SPEC_V1);
      say(`demo project: ${root}`);
      say("reviewer: SCRIPTED stand-in declared as model gpt-scripted-demo (OpenAI family) — no model is called");
      const kinds = ["broker", "verifier", "command"];
      // the channel makes the demo their supervisor: a demo killed before its cleanup (kill -9) closes it, and they
      // exit rather than watch a project nobody uses for ever. Started once a signal would stop them (above).
      workers.push(
        ...kinds.map((kind) =>
          spawn(process.execPath, [BIN, "worker", kind, "--root", root, "--reconcile-ms", "500", ...(o.poll ? ["--poll"] : [])], {
            stdio: ["ignore", "ignore", "inherit", "ipc"],
          }),
        ),
      );
      let code: number;
      try {
        // a request before the workers are seen reads "no broker worker is running — run: guild-bus up": not the demo's step
        await workersSeen(layout, kinds, workers);
        say("claude (author) requests a G-spec review of docs/export-spec.md");
        const { runId, gate } = answered(
          await requestReview(layout, {
            artifact: "docs/export-spec.md",
            gate: "G-spec",
            author: "claude",
            authorModel: "claude-opus-4",
            runId: "demo-run",
          }),
        );
        code = await waitForGate(layout, runId, gate, {});
        if (code === 3) {
          say("the author fixes the blocking finding and resubmits");
          writeFileSync(spec, SPEC_V2);
          const R = viewGate(loadContext(layout), runId, gate).decision.round;
          await deliver(
            layout.gateFile(runId, gate, `resubmit-${R}.json`),
            JSON.stringify(
              Resubmit.parse({
                schema_version: "guild_bus.resubmit.v1",
                run_id: runId,
                gate,
                after_round: R,
                at: new Date().toISOString(),
              }),
            ) + "\n",
            { guildDir: layout.guild },
          );
          code = await waitForGate(layout, runId, gate, {});
        }
        say(`trail: ${layout.rel(layout.gateFile(runId, gate, "trail.md"))}`);
        print("stdout", "\n" + readFileSync(layout.gateFile(runId, gate, "trail.md"), "utf8"));
        const files = readdirSync(layout.gateDir(runId, gate)).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
        say(`files: ${layout.rel(layout.gateDir(runId, gate))}`);
        print("stdout", `${files.join("\n")}\n`);
        if (!o.keep) say("the demo project is removed now; `guild-bus demo --keep` keeps it to look around");
      } finally {
        await stop();
        for (const signal of signals) process.off(signal, onSignal);
      }
      process.exitCode = code;
    });
}

/** Until every worker started is seen running (its presence file); one that exits first is an error naming it. */
function workersSeen(layout: Layout, kinds: string[], workers: ChildProcess[]): Promise<void> {
  return lookUntil(() => {
    const gone = workers.findIndex(exited);
    if (gone >= 0) throw new Error(`the demo's ${kinds[gone]} worker exited before it started (its output is above)`);
    return kinds.every((kind) => workerRunning(layout, kind));
  }, 60_000);
}
