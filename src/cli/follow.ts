// `--wait` and `guild-bus wait`: follow a gate until it needs the author, needs a human, or ends; progress goes to
// stderr, with a heartbeat while nothing changes, and how to re-attach when the wait stops early.
import { type ReviewBrokerOutput } from "../core/status.js";
import { waitGate, type WaitOptions } from "../commands/wait.js";
import { STILL_MOVING_EXIT } from "../commands/status-scope.js";
import type { Layout } from "../bus/layout.js";
import { nextStepLine, type NextStep } from "../core/next-step.js";
import { lineSafe } from "../core/terminal-safe.js";
import { print } from "./safe-output.js";
import { shellWord } from "./format.js";

/** Exit code of a wait interrupted by Ctrl-C (128 + SIGINT, as shells report it). */
const INTERRUPTED_EXIT = 130;

function printOutput(output: ReviewBrokerOutput, next: NextStep, json: boolean | undefined): void {
  if (json) {
    print("stdout", JSON.stringify({ ...output, next }, null, 2) + "\n");
    return;
  }
  print(
    "stdout",
    [
      `${output.run_id} ${output.gate}: ${output.status}`,
      `  state: ${output.state} — ${output.detail}`,
      `  reviewer: ${output.reviewer_host ?? "none"} (independence ${output.independence ?? "n/a"}); rounds: ${output.rounds}`,
      output.satisfied_at_round ? `  satisfied at round ${output.satisfied_at_round}` : null,
      `  waiting for: ${output.waiting_for}`,
      output.state === "done" ? null : `  next: ${nextStepLine(next)}`,
      ...(next.escalation ? [`  options: ${next.escalation.options.join(", ")}`] : []),
      `  trail: ${output.trail_path}`,
    ]
      .filter((line): line is string => Boolean(line))
      .map(lineSafe) // one line each: a detail from a planted file cannot print a gate line of its own
      .join("\n") + "\n",
  );
}

/** GUILD_BUS_HEARTBEAT_MS, when a whole number of ms (tests observe a heartbeat without waiting 15 s). */
function heartbeatMs(): number | undefined {
  const raw = process.env.GUILD_BUS_HEARTBEAT_MS;
  return raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;
}

/** Wait, print progress to stderr, then the gate's output; the exit code says how it stopped (SPEC §17). */
export async function waitForGate(
  layout: Layout,
  runId: string,
  gate: string,
  opts: { json?: boolean } & Pick<WaitOptions, "timeoutMs" | "intervalMs" | "settings">,
): Promise<number> {
  const reattach = `re-attach with: guild-bus wait ${runId} ${gate} --root ${shellWord(layout.root)}`;
  const onInterrupt = () => {
    print("stderr", `\n[${gate}] interrupted; the gate goes on without you — ${reattach}\n`);
    process.exit(INTERRUPTED_EXIT);
  };
  process.once("SIGINT", onInterrupt);
  try {
    const { view, timedOut, next } = await waitGate(layout, runId, gate, {
      ...opts,
      heartbeatMs: heartbeatMs(),
      note: (line) => print("stderr", `${line}\n`),
    });
    printOutput(view.output, next, opts.json);
    if (!timedOut) return view.exitCode!;
    print("stderr", `[${gate}] --timeout reached while waiting for ${next.waiting_on}; ${reattach}\n`);
    return STILL_MOVING_EXIT;
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}
