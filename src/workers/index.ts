// Every worker kind by name, for `guild-bus worker <kind>` and `guild-bus up`.
import { ADAPTERS } from "../adapters/registry.js";
import type { WorkerOptions } from "../runtime/worker-options.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import { ADAPTER_KINDS } from "../spec/schemas.js";
import { createBroker } from "./broker.js";
import { createManual } from "./manual.js";
import { createReviewer } from "./reviewer.js";
import { createVerifier } from "./verifier.js";

/** The bus's own workers, then one per adapter kind (manual: the human answers). */
export const WORKER_KINDS = ["broker", "verifier", ...ADAPTER_KINDS] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];

export function createWorker(kind: WorkerKind, options: WorkerOptions): WorkerRuntime {
  switch (kind) {
    case "broker":
      return createBroker(options);
    case "verifier":
      return createVerifier(options);
    case "manual":
      return createManual(options);
    // a reviewer worker serves its own kind and may run the others as configured fallbacks
    default:
      return createReviewer(kind, ADAPTERS[kind], options, ADAPTERS);
  }
}
