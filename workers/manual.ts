// Process entrypoint: the manual worker, the human reviewer's side of the bus.
import { Layout } from "../src/layout.js";
import { manualGate } from "../src/worker/manual.js";
import { ContextHolder, type WorkerOptions, workerLogger } from "../src/worker/options.js";
import { WorkerRuntime } from "../src/worker/runtime.js";

export function createManual(options: WorkerOptions): WorkerRuntime {
  const log = workerLogger("manual");
  const layout = new Layout(options.root);
  const holder = new ContextHolder(layout, log);
  const announce = (message: string) => process.stdout.write(message + "\n");
  return new WorkerRuntime({
    kind: "manual",
    layout,
    poll: options.poll,
    reconcileMs: options.reconcileMs,
    fullScanMs: options.fullScanMs,
    log,
    beforePass: () => holder.reload(),
    handleGate: async ({ runId, gate }) => manualGate(holder.current, runId, gate, log, announce),
  });
}
