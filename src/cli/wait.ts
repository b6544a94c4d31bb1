// `--wait`: follow a gate until it needs the author, needs a human, or ends; progress goes to stderr.
import { type ReviewBrokerOutput } from "../core/status.js";
import { waitGate } from "../commands/wait.js";
import type { Layout } from "../bus/layout.js";

function printOutput(output: ReviewBrokerOutput, json: boolean | undefined): void {
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

/** `--wait`: print progress to stderr, then the gate's output; the exit code says how it stopped (SPEC §17). */
export async function waitForGate(
  layout: Layout,
  runId: string,
  gate: string,
  opts: { json?: boolean; timeoutMs?: number; intervalMs?: number },
): Promise<number> {
  const { view, timedOut } = await waitGate(layout, runId, gate, { ...opts, note: (line) => process.stderr.write(`${line}\n`) });
  printOutput(view.output, opts.json);
  if (!timedOut) return view.exitCode!;
  process.stderr.write(`[${gate}] --timeout reached while ${view.output.waiting_for} was still pending\n`);
  return 1;
}
