// Constants of the contract, in a module without zod so fast-starting callers (verify-gate-pass) can import them.

/** No gate file is read past this many bytes: a larger one is refused unread. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The largest artifact the bus reviews: its packet, with the template and prior rounds, must stay under 4 MiB. */
export const MAX_ARTIFACT_BYTES = 2 * 1024 * 1024;

/** The wire name of a review result (SPEC §8). */
export const RESULT_WIRE = "review_result.v1";

/**
 * The longest note a decision takes, and the longest rebuttal (UTF-8 bytes). A `continue` note and a rebuttal go
 * into the next packet whole: an instruction or an argument never needs more, and a longer one could push the packet
 * past MAX_FILE_BYTES. Refused, never cut.
 */
export const MAX_NOTE_BYTES = 64 * 1024;

/**
 * The largest round number any face takes (the round an action answers, the round whose findings to show): far past
 * any gate's (its cap is at most 1000), only so that no face takes a number the others refuse.
 */
export const MAX_ROUND = 1_000_000;

/** The most rounds one `decide … extend-cap N` adds. */
export const MAX_EXTEND_BY = 5;

/**
 * Guild's own top-level settings keys (its settings resolver), which share .guild/settings.json with the bus's. The bus
 * reads the ones it shares (`review`, `codex_cap`, `codex_skip_enforcement`, `secrets_policy`) and leaves these to
 * Guild: neither read nor refused as unknown (SPEC §3).
 */
export const GUILD_SETTINGS_KEYS: readonly string[] = Object.freeze([
  "rigor",
  "auto_approve",
  "host",
  "host_mode",
  "roles",
  "host_profiles",
  "initiative_default",
  "index",
  "record_status_runs",
  "agent_mode",
  "workspace",
  "models",
  "model_policy",
  "security",
  "mcp",
  "capability",
  "statusline",
  "adversarial_review_provider",
  "loops",
  "loop_cap",
  "defaults",
]);

/** Guild's own keys inside `secrets_policy` (its fail modes; the bus always fails closed): left to Guild, as above. */
export const GUILD_SECRETS_POLICY_KEY = /^fail_mode_/;

/**
 * The one list of adapter kinds: how a provider is reached (SPEC §13). external: a reviewer process outside the bus
 * serves the packets addressed to it from the files (SPEC §18 B); the bus spawns nothing for it.
 */
export const ADAPTER_KINDS = ["command", "manual", "codex", "claude", "gemini", "http", "copilot", "external"] as const;
export type AdapterKind = (typeof ADAPTER_KINDS)[number];

/** The bus's own workers, then one per adapter kind the bus serves (manual: the human's side). */
export const WORKER_KINDS = [
  "broker",
  "verifier",
  ...ADAPTER_KINDS.filter((k): k is Exclude<AdapterKind, "external"> => k !== "external"),
] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];

/** Vendor families a model is classified into (the Family schema is built from this list). */
export const FAMILIES = [
  "openai",
  "anthropic",
  "google",
  "deepseek",
  "moonshot",
  "qwen",
  "zhipu",
  "minimax",
  "xiaomi",
  "bytedance",
  "xai",
  "meta",
  "mistral",
  "unknown",
] as const;
