// Every reviewer adapter by kind (what each kind can do: src/core/adapter-kinds.ts). manual is no adapter: a
// human answers through `guild-bus respond`, served by the manual worker; nor is external: a process outside the bus
// answers from the files.
import type { AdapterKind } from "../spec/constants.js";
import { claudeAdapter } from "./claude.js";
import { codexAdapter } from "./codex.js";
import { commandAdapter } from "./command.js";
import { copilotAdapter } from "./copilot.js";
import { geminiAdapter } from "./gemini.js";
import { httpAdapter } from "./http.js";
import type { ReviewerAdapter } from "./types.js";

type ReviewerKind = Exclude<AdapterKind, "manual" | "external">;

export const ADAPTERS: Readonly<Record<ReviewerKind, ReviewerAdapter>> = Object.freeze({
  command: commandAdapter,
  codex: codexAdapter,
  claude: claudeAdapter,
  gemini: geminiAdapter,
  http: httpAdapter,
  copilot: copilotAdapter,
});
