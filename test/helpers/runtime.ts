// A reconciler runtime for tests of scheduling: it polls every 20 ms and records each gate it handles, in order.
import { Layout } from "../../src/bus/layout.js";
import { WorkerRuntime, type WorkerSpec } from "../../src/runtime/reconciler.js";

export function recordingRuntime(root: string, options: Partial<WorkerSpec> = {}) {
  const calls: string[] = [];
  const runtime = new WorkerRuntime({
    kind: "test",
    layout: new Layout(root),
    poll: true,
    reconcileMs: 20,
    fullScanMs: 600_000,
    handleGate: async (ref) => {
      calls.push(ref.gate);
      return "active";
    },
    log: () => undefined,
    ...options,
  });
  return { runtime, calls };
}
