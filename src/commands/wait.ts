// Waiting for a gate to stop moving on its own (a verdict, an escalation, the author's turn), saying what happens
// meanwhile through `note`: the CLI prints the notes, another face may show them its own way.
import { lineSafe } from "../core/terminal-safe.js";
import { setTimeout as sleep } from "node:timers/promises";
import { assertGateExists } from "./gate-exists.js";
import { loadContext } from "../bus/context.js";
import type { Layout } from "../bus/layout.js";
import { gatePolicy, openRound, roundPacket, roundPackets } from "../core/gate-queries.js";
import { type GateView, stateWords, viewGate } from "./gate-view.js";
import { nextStepLine, type NextStep } from "../core/next-step.js";
import type { Settings } from "../spec/schemas.js";

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** A heartbeat line at least this often while nothing changes (default 15 s). */
  heartbeatMs?: number;
  /** One line of progress: a state change, a warning, a hint. */
  note: (line: string) => void;
  /** Stop waiting early (a client that cancelled): answers as a timeout does. */
  signal?: AbortSignal;
}

/** A heartbeat at least this often (ms) while nothing else is said; GUILD_BUS_HEARTBEAT_MS in the CLI overrides it. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;

/** "still waiting: round 2, reviewer codex (gpt-5), elapsed 45s, reviewer timeout 600s, --timeout none — waiting for …". */
function heartbeat(view: GateView, next: NextStep, started: number, timeoutMs: number | undefined, settings: Settings): string {
  const reviewers = roundPackets(view.snapshot, openRound(view.snapshot));
  const p = reviewers[0];
  const reviewer = p
    ? `reviewer ${reviewers.map((r) => `${r.reviewer_provider}${r.reviewer_model ? ` (${r.reviewer_model})` : ""}`).join(", ")}`
    : "no reviewer yet";
  const limit = p ? settings.providers?.[p.reviewer_provider]?.timeout_ms : undefined;
  return (
    `still waiting: round ${view.decision.round}, ${reviewer}, elapsed ${seconds(performance.now() - started)}` +
    `${limit ? `, reviewer timeout ${seconds(limit)}` : ""}, --timeout ${timeoutMs === undefined ? "none" : seconds(timeoutMs)}` +
    ` — ${nextStepLine(next)}`
  );
}

/** The gate's view once it stops moving (`exitCode` set), or when the timeout passes (`timedOut`). */
export async function waitGate(
  layout: Layout,
  runId: string,
  gate: string,
  opts: WaitOptions,
): Promise<{ view: GateView; timedOut: boolean; next: NextStep }> {
  // a gate that does not exist would be "still running" for ever: a typo must be said, whichever face asked
  assertGateExists(layout, runId, gate);
  // monotonic: a wall clock stepped back would hold the timeout for as long, one stepped forward end it early
  const started = performance.now();
  let last = "";
  let hinted = false;
  let warned = false;
  let degradedShown = false;
  let lastStep = "";
  let lastNoteAt = started;
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const note = (text: string) => {
    lastNoteAt = performance.now();
    opts.note(lineSafe(text)); // a detail from a planted file cannot print a progress line of its own
  };
  for (;;) {
    const ctx = loadContext(layout);
    const view = viewGate(ctx, runId, gate);
    const line = `round ${view.decision.round}: ${stateWords(view)}`;
    if (!warned && openRound(view.snapshot) > 0) {
      warned = true;
      if (ctx.codexSkip.blocked && ctx.codexSkip.enforcement === "warn")
        note(`warn: codex-skip streak is blocked (.guild/codex-skip-streak.json): adversarial review is overdue`);
      for (const w of gatePolicy(view.snapshot, ctx.settings).warnings) note(`warn: ${w}`);
    }
    const latest = roundPacket(view.snapshot, openRound(view.snapshot));
    if (!degradedShown && latest && latest.selection_status !== "selected") {
      degradedShown = true;
      // the seed's wording, so tools that grep for it keep working
      note(
        `warn: review-broker degraded — no cross-family reviewer (gate: ${gate}); using WEAK same-host review (${latest.selection_reason})`,
      );
    }
    if (line !== last) {
      note(`[${gate}] ${line}`);
      last = line;
    }
    const { next } = view;
    const steps = [nextStepLine(next), ...next.notes.map((n) => `note: ${n}`)];
    const step = JSON.stringify(steps);
    if (view.exitCode === null && step !== lastStep) {
      for (const l of steps) note(`[${gate}] ${l}`); // each its own line: not split at a break a note's text holds
      lastStep = step;
    }
    // Callers deliver their file first, so the state seen here already accounts for it.
    if (view.exitCode !== null) return { view, timedOut: false, next };
    if (performance.now() - lastNoteAt >= heartbeatMs) note(`[${gate}] ${heartbeat(view, next, started, opts.timeoutMs, ctx.settings)}`);
    if (!hinted && performance.now() - started > 10_000 && openRound(view.snapshot) === 0) {
      note(`[${gate}] nothing has picked this request up yet — is \`guild-bus up\` running in ${layout.root}?`);
      hinted = true;
    }
    if (opts.signal?.aborted || (opts.timeoutMs !== undefined && performance.now() - started > opts.timeoutMs))
      return { view, timedOut: true, next };
    await sleep(opts.intervalMs ?? 150);
  }
}
