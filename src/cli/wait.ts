// `--wait`: follow a gate until it needs the author, needs a human, or ends; progress goes to stderr.
import { setTimeout as sleep } from "node:timers/promises";
import { type ReviewBrokerOutput } from "../core/status.js";
import { viewGate } from "../commands/gate-view.js";
import type { BusContext } from "../bus/context.js";
import { loadContext } from "../bus/context.js";
import type { Layout } from "../bus/layout.js";
import { gatePolicy, openRound } from "../core/gate-queries.js";

export interface WaitOptions {
  json?: boolean;
  timeoutMs?: number;
  intervalMs?: number;
}

export function printOutput(output: ReviewBrokerOutput, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(output, null, 2) + "\n");
    return;
  }
  process.stdout.write(
    [
      `${output.run_id} ${output.gate}: ${output.status}`,
      `  state: ${output.state} — ${output.detail}`,
      `  reviewer: ${output.reviewer_host ?? "none"} (independence ${output.independence ?? "n/a"}); rounds: ${output.rounds}`,
      output.satisfied_at_round ? `  satisfied at round ${output.satisfied_at_round}` : null,
      `  waiting for: ${output.waiting_for}`,
      `  trail: ${output.trail_path}`,
    ]
      .filter(Boolean)
      .join("\n") + "\n",
  );
}

export async function waitForGate(layout: Layout, runId: string, gate: string, opts: WaitOptions): Promise<number> {
  const started = Date.now();
  let last = "";
  let hinted = false;
  let warned = false;
  let degradedShown = false;
  for (;;) {
    const ctx: BusContext = loadContext(layout);
    const view = viewGate(ctx, runId, gate);
    const line = `round ${view.decision.round}: ${view.decision.state} — ${view.decision.detail}`;
    if (!warned && view.snapshot.packets.size) {
      warned = true;
      if (ctx.codexSkip.blocked && ctx.codexSkip.enforcement === "warn")
        process.stderr.write(`warn: codex-skip streak is blocked (.guild/codex-skip-streak.json): adversarial review is overdue\n`);
      for (const w of gatePolicy(view.snapshot, ctx.settings).warnings) process.stderr.write(`warn: ${w}\n`);
    }
    const latest = view.snapshot.packets.get(openRound(view.snapshot));
    if (!degradedShown && latest && latest.selection_status !== "selected") {
      degradedShown = true;
      // the seed's wording, so tools that grep for it keep working
      process.stderr.write(
        `warn: review-broker degraded — no cross-family reviewer (gate: ${gate}); using WEAK same-host review (${latest.selection_reason})\n`,
      );
    }
    if (line !== last) {
      process.stderr.write(`[${gate}] ${line}\n`);
      last = line;
    }
    // Callers deliver their file first, so the state seen here already accounts for it.
    if (view.exitCode !== null) {
      printOutput(view.output, opts.json);
      return view.exitCode;
    }
    if (!hinted && Date.now() - started > 10_000 && view.snapshot.packets.size === 0) {
      process.stderr.write(`[${gate}] nothing has picked this request up yet — is \`guild-bus up\` running in ${layout.root}?\n`);
      hinted = true;
    }
    if (opts.timeoutMs !== undefined && Date.now() - started > opts.timeoutMs) {
      printOutput(view.output, opts.json);
      process.stderr.write(`[${gate}] --timeout reached while ${view.output.waiting_for} was still pending\n`);
      return 1;
    }
    await sleep(opts.intervalMs ?? 150);
  }
}
