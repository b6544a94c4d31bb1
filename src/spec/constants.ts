// Constants of the contract, in a module without zod so fast-starting callers (verify-gate-pass) can import them.

/** No gate file is read past this many bytes: a larger one is refused unread. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The wire name of a review result (SPEC §8). */
export const RESULT_WIRE = "review_result.v1";

/** The one list of adapter kinds: how a provider is reached (SPEC §13). */
export const ADAPTER_KINDS = ["command", "manual", "codex", "claude", "gemini", "http", "copilot"] as const;
export type AdapterKind = (typeof ADAPTER_KINDS)[number];

/** The bus's own workers, then one per adapter kind (manual: the human's side). */
export const WORKER_KINDS = ["broker", "verifier", ...ADAPTER_KINDS] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];
