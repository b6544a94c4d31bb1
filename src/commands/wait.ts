// Waiting for a gate to stop moving on its own (a verdict, an escalation, the author's turn), saying what happens
// meanwhile through `note`: the CLI prints the notes, another face may show them its own way.
import { type FSWatcher, watch } from "node:fs";
import { lineSafe } from "../core/terminal-safe.js";
import { assertGateExists } from "./gate-exists.js";
import { loadContext } from "../bus/context.js";
import type { Layout } from "../bus/layout.js";
import { gatePolicy, openRound, roundPacket, roundPackets } from "../core/gate-queries.js";
import { type GateView, stateWords, viewGate } from "./gate-view.js";
import { nextStepLine, type NextStep } from "../core/next-step.js";
import type { Settings } from "../spec/schemas.js";
import type { LoadedSettings } from "../bus/settings-file.js";

export interface WaitOptions {
  timeoutMs?: number;
  /** The longest time between two looks at the gate (default 1 s): a change in its directory brings the next sooner. */
  intervalMs?: number;
  /** A heartbeat line at least this often while nothing changes (default 15 s). */
  heartbeatMs?: number;
  /** One line of progress: a state change, a warning, a hint. */
  note: (line: string) => void;
  /** Stop waiting early (a client that cancelled): answers as a timeout does. */
  signal?: AbortSignal;
  /** settings.json as the caller already read it (the CLI's check): the first look's; every later look reads it anew. */
  settings?: LoadedSettings;
}

/**
 * What a wait looks at the gate on: a change in the gate's directory (a hint, as to the workers; a new file there is
 * most of what moves a gate), else the timer, which alone sees the rest (settings, workers coming and going, time). A
 * look reads the whole gate, which costs more the more rounds it has: a timer of 150 ms was 6-10% of a core on a gate
 * of 45 rounds, this one is a tenth of that, and a new file is seen as soon.
 */
const LOOK_EVERY_MS = 1000;
/** Files land in bursts (a result, its verdict, the trail, the next packet): one look after a burst, not one each. */
const SETTLE_MS = 20;

/** Resolves at the next change in `dir` (after SETTLE_MS), at `ms`, or when `signal` aborts, whichever is first. */
function gateWakeups(dir: string) {
  let changed = false;
  let wake: (() => void) | null = null;
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(dir, { persistent: false }, () => {
      changed = true;
      wake?.();
    });
    watcher.on("error", () => watcher?.close()); // the directory removed, no watch left: the timer alone
  } catch {
    watcher = null; // a filesystem without change events (some network ones): the timer alone
  }
  return {
    next(ms: number, signal?: AbortSignal): Promise<void> {
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          wake = null;
          changed = false;
          resolve();
        };
        let timer = setTimeout(done, ms);
        const soon = () => {
          clearTimeout(timer);
          timer = setTimeout(done, Math.min(SETTLE_MS, ms));
          wake = null; // the rest of the burst joins this look
        };
        signal?.addEventListener("abort", done, { once: true });
        if (changed) soon();
        else wake = soon;
      });
    },
    close: () => watcher?.close(),
  };
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
  const wakeups = gateWakeups(layout.gateDir(runId, gate));
  let read = opts.settings;
  try {
    for (;;) {
      const ctx = loadContext(layout, read);
      read = undefined;
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
          `warn: review-broker degraded — no cross-family reviewer (gate: ${gate}); ` +
            `using WEAK same-host review (${latest.selection_reason})`,
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
      // the look after the timeout or the heartbeat comes when it is due, not up to a whole interval late
      const due = [opts.intervalMs ?? LOOK_EVERY_MS, heartbeatMs - (performance.now() - lastNoteAt)];
      if (opts.timeoutMs !== undefined) due.push(opts.timeoutMs - (performance.now() - started) + 1);
      await wakeups.next(Math.max(1, Math.min(...due)), opts.signal);
    }
  } finally {
    wakeups.close();
  }
}
