// The lines `guild-bus status` prints under each gate's table row.
import type { StatusRow } from "../commands/status.js";
import { nextStepLine } from "../core/next-step.js";
import { lineSafe } from "../core/terminal-safe.js";

/**
 * The lines under a gate's table row: whom it waits on and how to unblock it, then anything wrong with its files.
 * Each is one line: a planted file's name or reason holding a newline cannot print a gate row of its own.
 */
export function gateLines(r: StatusRow): string[] {
  const e = r.next.escalation;
  const lines = [
    r.state === "done" ? r.detail : r.waiting_for.startsWith("a human:") ? `waiting for ${r.waiting_for}` : nextStepLine(r.next),
    // an ended pass the bytes now in the tree no longer hold is the author's to review again
    ...(r.state === "done" && r.exit_code === 2 ? [nextStepLine(r.next)] : []),
    ...(e ? [`escalation (round ${e.round}): ${e.reason} — ${e.detail}; options: ${e.options.join(", ")}`] : []),
    ...r.next.notes.map((n) => `note: ${n}`),
    ...(r.last_verdict ? [`last verdict: ${r.last_verdict}`] : []),
    ...(r.state === "done" ? [] : [`state: ${r.state} — ${r.detail}`]),
    ...r.rejected.map((f) => `rejected: ${f.file} — ${f.reason}`),
    ...r.problems.map((p) => `invalid: ${p.file}: ${p.reason}`),
    ...(r.verify
      ? r.verify.ok
        ? ["verify: ok — the outcome re-derives from the files"]
        : r.verify.problems.map((p) => `verify: FAILED — ${p}`)
      : []),
  ];
  return lines.map(lineSafe);
}
