// Every worker kind by name, for `guild-bus worker <kind>` and `guild-bus up`.
import { ADAPTERS } from "../adapters/registry.js";
import type { WorkerOptions } from "../runtime/worker-options.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import type { WorkerKind } from "../spec/constants.js";
import { createBroker } from "./broker.js";
import { createManual } from "./manual.js";
import { createReviewer } from "./reviewer.js";
import { createVerifier } from "./verifier.js";

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
