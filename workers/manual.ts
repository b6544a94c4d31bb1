// Process entrypoint: the manual worker, the human reviewer's side of the bus.
import { manualGate } from "../src/worker/manual.js";
import { type WorkerOptions, workerRuntime } from "../src/worker/options.js";
import type { WorkerRuntime } from "../src/worker/runtime.js";

export function createManual(options: WorkerOptions): WorkerRuntime {
  const announce = (message: string) => process.stdout.write(message + "\n");
  return workerRuntime("manual", options, async (ctx, { runId, gate }, _signal, log) => manualGate(ctx, runId, gate, log, announce));
}
