// Process entrypoint: the verifier turns each new result into a deterministic verdict.
import { type WorkerOptions, workerRuntime } from "../src/worker/options.js";
import type { WorkerRuntime } from "../src/worker/runtime.js";
import { verifyGate } from "../src/worker/verifier.js";

export function createVerifier(options: WorkerOptions): WorkerRuntime {
  return workerRuntime("verifier", options, async (ctx, { runId, gate }, _signal, log) => verifyGate(ctx, runId, gate, log));
}
