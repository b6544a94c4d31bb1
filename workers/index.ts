// Every worker kind by name, for `guild-bus worker <kind>` and `guild-bus up`.
import { commandAdapter } from "../src/adapters/command.js";
import type { WorkerOptions } from "../src/worker/options.js";
import type { WorkerRuntime } from "../src/worker/runtime.js";
import { createBroker } from "./broker.js";
import { createManual } from "./manual.js";
import { createReviewer } from "./reviewer.js";
import { createVerifier } from "./verifier.js";

export const WORKER_KINDS = ["broker", "verifier", "command", "manual"] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];

export function createWorker(kind: WorkerKind, options: WorkerOptions): WorkerRuntime {
  switch (kind) {
    case "broker": return createBroker(options);
    case "verifier": return createVerifier(options);
    case "manual": return createManual(options);
    case "command": return createReviewer("command", commandAdapter, options);
  }
}
