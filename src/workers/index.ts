// Every worker kind by name, for `guild-bus worker <kind>` and `guild-bus up`.
import { claudeAdapter } from "../adapters/claude.js";
import { codexAdapter } from "../adapters/codex.js";
import { commandAdapter } from "../adapters/command.js";
import { copilotAdapter } from "../adapters/copilot.js";
import { geminiAdapter } from "../adapters/gemini.js";
import { httpAdapter } from "../adapters/http.js";
import type { ReviewerAdapter } from "../adapters/types.js";
import type { WorkerOptions } from "../runtime/worker-options.js";
import type { WorkerRuntime } from "../runtime/reconciler.js";
import { createBroker } from "./broker.js";
import { createManual } from "./manual.js";
import { createReviewer } from "./reviewer.js";
import { createVerifier } from "./verifier.js";

export const WORKER_KINDS = ["broker", "verifier", "command", "manual", "codex", "http", "claude", "gemini", "copilot"] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];

/** Every reviewer adapter by kind: a worker serves its own kind and may run the others as configured fallbacks. */
export const ADAPTERS: Record<ReviewerKind, ReviewerAdapter> = {
  command: commandAdapter, codex: codexAdapter, http: httpAdapter, claude: claudeAdapter, gemini: geminiAdapter, copilot: copilotAdapter,
};
export type ReviewerKind = "command" | "codex" | "http" | "claude" | "gemini" | "copilot";

export function createWorker(kind: WorkerKind, options: WorkerOptions): WorkerRuntime {
  switch (kind) {
    case "broker": return createBroker(options);
    case "verifier": return createVerifier(options);
    case "manual": return createManual(options);
    default: return createReviewer(kind, ADAPTERS[kind], options, ADAPTERS);
  }
}
