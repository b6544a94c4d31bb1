// Every worker kind by name, for `guild-bus worker <kind>` and `guild-bus up`.
import { claudeAdapter } from "../src/adapters/claude.js";
import { codexAdapter } from "../src/adapters/codex.js";
import { commandAdapter } from "../src/adapters/command.js";
import { copilotAdapter } from "../src/adapters/copilot.js";
import { geminiAdapter } from "../src/adapters/gemini.js";
import { httpAdapter } from "../src/adapters/http.js";
import type { ReviewerAdapter } from "../src/adapters/types.js";
import type { WorkerOptions } from "../src/worker/options.js";
import type { WorkerRuntime } from "../src/worker/runtime.js";
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
