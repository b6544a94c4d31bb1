// Process entrypoint: the verifier turns each new result into a deterministic verdict.
import { Layout } from "../src/layout.js";
import { ContextHolder, type WorkerOptions, workerLogger } from "../src/worker/options.js";
import { WorkerRuntime } from "../src/worker/runtime.js";
import { verifyGate } from "../src/worker/verifier.js";

export function createVerifier(options: WorkerOptions): WorkerRuntime {
  const log = workerLogger("verifier");
  const layout = new Layout(options.root);
  const holder = new ContextHolder(layout, log);
  return new WorkerRuntime({
    kind: "verifier",
    layout,
    poll: options.poll,
    reconcileMs: options.reconcileMs,
    fullScanMs: options.fullScanMs,
    log,
    beforePass: () => holder.reload(),
    handleGate: async ({ runId, gate }) => verifyGate(holder.current, runId, gate, log),
  });
}
