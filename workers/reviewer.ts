// Process entrypoint: a reviewer worker for one adapter kind (command, codex, claude, gemini, copilot, http).
import type { ReviewerAdapter } from "../src/adapters/types.js";
import { type WorkerOptions, workerRuntime } from "../src/worker/options.js";
import { reviewGate } from "../src/worker/reviewer.js";
import type { WorkerRuntime } from "../src/worker/runtime.js";

/** `others` are adapters of other kinds this worker may run as configured fallbacks. */
export function createReviewer(kind: string, adapter: ReviewerAdapter, options: WorkerOptions, others: Record<string, ReviewerAdapter> = {}): WorkerRuntime {
  const adapters = { ...others, [kind]: adapter };
  return workerRuntime(
    kind,
    options,
    (ctx, { runId, gate }, signal, log) =>
      reviewGate(ctx, runId, gate, { serves: [kind], adapters, providers: options.providers, claimStaleMs: options.claimStaleMs, log }, signal),
    { concurrency: options.concurrency ?? 4 },
  );
}
