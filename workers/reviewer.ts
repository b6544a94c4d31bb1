// Process entrypoint: a reviewer worker for one adapter kind (command; real CLIs plug in the same way).
import type { ReviewerAdapter } from "../src/adapters/types.js";
import { Layout } from "../src/layout.js";
import { ContextHolder, type WorkerOptions, workerLogger } from "../src/worker/options.js";
import { reviewGate } from "../src/worker/reviewer.js";
import { WorkerRuntime } from "../src/worker/runtime.js";

/** `others` are adapters of other kinds this worker may run as configured fallbacks. */
export function createReviewer(kind: string, adapter: ReviewerAdapter, options: WorkerOptions, others: Record<string, ReviewerAdapter> = {}): WorkerRuntime {
  const log = workerLogger(kind);
  const layout = new Layout(options.root);
  const holder = new ContextHolder(layout, log);
  return new WorkerRuntime({
    kind,
    layout,
    poll: options.poll,
    reconcileMs: options.reconcileMs,
    fullScanMs: options.fullScanMs,
    concurrency: options.concurrency ?? 4,
    log,
    beforePass: () => holder.reload(),
    handleGate: ({ runId, gate }, signal) =>
      reviewGate(holder.current, runId, gate, { serves: [kind], adapters: { ...others, [kind]: adapter }, providers: options.providers, claimStaleMs: options.claimStaleMs, log }, signal),
  });
}
