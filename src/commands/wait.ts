// Waiting for a gate to stop moving on its own (a verdict, an escalation, the author's turn), saying what happens
// meanwhile through `note`: the CLI prints the notes, another face may show them its own way.
import { setTimeout as sleep } from "node:timers/promises";
import { loadContext } from "../bus/context.js";
import type { Layout } from "../bus/layout.js";
import { gatePolicy, openRound } from "../core/gate-queries.js";
import { type GateView, viewGate } from "./gate-view.js";

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** One line of progress: a state change, a warning, a hint. */
  note: (line: string) => void;
  /** Stop waiting early (a client that cancelled): answers as a timeout does. */
  signal?: AbortSignal;
}

/** The gate's view once it stops moving (`exitCode` set), or when the timeout passes (`timedOut`). */
export async function waitGate(
  layout: Layout,
  runId: string,
  gate: string,
  opts: WaitOptions,
): Promise<{ view: GateView; timedOut: boolean }> {
  const started = Date.now();
  let last = "";
  let hinted = false;
  let warned = false;
  let degradedShown = false;
  for (;;) {
    const ctx = loadContext(layout);
    const view = viewGate(ctx, runId, gate);
    const line = `round ${view.decision.round}: ${view.decision.state} — ${view.decision.detail}`;
    if (!warned && view.snapshot.packets.size) {
      warned = true;
      if (ctx.codexSkip.blocked && ctx.codexSkip.enforcement === "warn")
        opts.note(`warn: codex-skip streak is blocked (.guild/codex-skip-streak.json): adversarial review is overdue`);
      for (const w of gatePolicy(view.snapshot, ctx.settings).warnings) opts.note(`warn: ${w}`);
    }
    const latest = view.snapshot.packets.get(openRound(view.snapshot));
    if (!degradedShown && latest && latest.selection_status !== "selected") {
      degradedShown = true;
      // the seed's wording, so tools that grep for it keep working
      opts.note(
        `warn: review-broker degraded — no cross-family reviewer (gate: ${gate}); using WEAK same-host review (${latest.selection_reason})`,
      );
    }
    if (line !== last) {
      opts.note(`[${gate}] ${line}`);
      last = line;
    }
    // Callers deliver their file first, so the state seen here already accounts for it.
    if (view.exitCode !== null) return { view, timedOut: false };
    if (!hinted && Date.now() - started > 10_000 && view.snapshot.packets.size === 0) {
      opts.note(`[${gate}] nothing has picked this request up yet — is \`guild-bus up\` running in ${layout.root}?`);
      hinted = true;
    }
    if (opts.signal?.aborted || (opts.timeoutMs !== undefined && Date.now() - started > opts.timeoutMs)) return { view, timedOut: true };
    await sleep(opts.intervalMs ?? 150);
  }
}
