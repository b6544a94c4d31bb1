// What each adapter kind is, in one table (the kinds themselves: ADAPTER_KINDS in src/spec/schemas.ts; their
// implementations: src/adapters/registry.ts).
import { type PacketFrontMatter, type ProviderConfig } from "../spec/schemas.js";
import { ADAPTER_KINDS, type AdapterKind } from "../spec/constants.js";

/** A reviewer CLI that also runs from PATH without settings, and the auth signals detection looks for. */
export interface CliKind {
  binary: string;
  /**
   * Environment variables the pinned CLI itself authenticates with (present = an auth signal; never read). Only those:
   * the child is given exactly these (authVars), so a variable the CLI ignores would be a signal that never works.
   */
  keyVars: readonly string[];
  /** The stored login: `file` in $<dirVar>, else in ~/<dir>. */
  login: { dirVar?: string; dir: string; file: string };
}

interface AdapterKindInfo {
  /**
   * The reviewer can read the repository itself (a CLI agent with read-only tools), which difficulty nightmare
   * requires; the others only ever see the packet text.
   */
  readsFiles: boolean;
  /**
   * The adapter sends a reasoning effort on every call (checked against the pinned CLIs' --help). codex:
   * `-c model_reasoning_effort=<e>`; claude: `--effort <e>`; copilot: `--effort` (or `--reasoning-effort`, as its
   * --help advertises); http: `reasoning_effort` in the body. gemini 0.61 has no effort or thinking flag (only a
   * settings-file model config the adapter does not write), and a command or a human is not told one.
   */
  setsEffort: boolean;
  /** The adapter sends base_url (http's endpoint; a CLI's, on its argv or in its environment): the others never read it. */
  sendsBaseUrl: boolean;
  /** Auto selection: native CLIs first, then HTTP, then generic commands (lower first; ties by id). */
  rank: number;
  cli: CliKind | null;
}

/**
 * The variables that authenticate a CLI provider, one definition for detection (its auth signal) and the child's
 * environment: the one settings name (api_key_env; the adapter hands it on under the CLI's own name), else the CLI's own.
 */
export function authVars(cli: CliKind, config: Pick<ProviderConfig, "api_key_env"> | undefined): readonly string[] {
  return config?.api_key_env ? [config.api_key_env] : cli.keyVars;
}

/**
 * Why a provider's settings can never be dispatched, whatever the environment (no argv for a command, an http adapter
 * without base_url or model, a base_url the adapter sends that is no http(s) URL or holds credentials: settings name
 * the key with api_key_env, and a URL may end up on a child's argv, visible to every local user); null when they can. The adapter
 * refuses on it before anything is spawned or sent, and the settings reader names it at load.
 */
export function providerConfigProblem(config: ProviderConfig): string | null {
  if (config.adapter === "command" && !config.argv?.length) return "the command adapter needs argv";
  if (config.adapter === "http" && !config.base_url) return "the http adapter needs base_url";
  if (config.adapter === "http" && !config.model) return "the http adapter needs model";
  if (config.base_url && ADAPTER_KIND_INFO[config.adapter].sendsBaseUrl) {
    const url = URL.canParse(config.base_url) ? new URL(config.base_url) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return "base_url must be an http(s) URL";
    if (url.username || url.password) return "credentials in base_url are refused (name the key with api_key_env)";
  }
  return null;
}

/** A reviewer worker dispatches this adapter's rounds; a person (manual) or a process outside the bus (external) answers
 * the others. */
export const dispatchedByBus = (adapter: string): boolean => adapter !== "manual" && adapter !== "external";

export const ADAPTER_KIND_INFO: Readonly<Record<AdapterKind, AdapterKindInfo>> = Object.freeze({
  codex: {
    readsFiles: true,
    setsEffort: true,
    sendsBaseUrl: true,
    rank: 0,
    cli: {
      binary: "codex",
      // codex 0.171 authenticates with CODEX_API_KEY; it ignores OPENAI_API_KEY (only a provider's env_key reads it)
      keyVars: ["CODEX_API_KEY"],
      login: { dirVar: "CODEX_HOME", dir: ".codex", file: "auth.json" },
    },
  },
  claude: {
    readsFiles: true,
    setsEffort: true,
    sendsBaseUrl: true,
    rank: 1,
    cli: {
      binary: "claude",
      keyVars: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
      login: { dir: ".claude", file: ".credentials.json" },
    },
  },
  gemini: {
    readsFiles: true,
    setsEffort: false,
    sendsBaseUrl: true,
    rank: 2,
    // GOOGLE_API_KEY alone is Vertex AI's, which needs more: gemini 0.61 exits 41 without GEMINI_API_KEY
    cli: { binary: "gemini", keyVars: ["GEMINI_API_KEY"], login: { dir: ".gemini", file: "oauth_creds.json" } },
  },
  http: { readsFiles: false, setsEffort: true, sendsBaseUrl: true, rank: 3, cli: null },
  command: { readsFiles: false, setsEffort: false, sendsBaseUrl: false, rank: 4, cli: null },
  // copilot runs whatever model its agent profile names: no family of its own (see profileFamilies)
  copilot: {
    readsFiles: true,
    setsEffort: true,
    sendsBaseUrl: false,
    rank: 5,
    cli: {
      binary: "copilot",
      keyVars: ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
      login: { dirVar: "COPILOT_HOME", dir: ".copilot", file: "config.json" },
    },
  },
  manual: { readsFiles: false, setsEffort: false, sendsBaseUrl: false, rank: 7, cli: null },
  // served by a process of its own (SPEC §18 B): what it reads and sends is its own business, so neither is promised
  external: { readsFiles: false, setsEffort: false, sendsBaseUrl: false, rank: 6, cli: null },
});

export function readsFiles(adapter: string): boolean {
  return Object.hasOwn(ADAPTER_KIND_INFO, adapter) && ADAPTER_KIND_INFO[adapter as AdapterKind].readsFiles;
}

export const FILE_READING_KINDS: readonly AdapterKind[] = ADAPTER_KINDS.filter((k) => ADAPTER_KIND_INFO[k].readsFiles);

/** The CLI kinds, each also a provider id of its own when found on PATH without settings. */
export const CLI_KINDS: readonly AdapterKind[] = ADAPTER_KINDS.filter((k) => ADAPTER_KIND_INFO[k].cli);

export function isCliKind(id: string): id is AdapterKind {
  return (CLI_KINDS as readonly string[]).includes(id);
}

export function isNightmare(front: Pick<PacketFrontMatter, "difficulty">): boolean {
  return front.difficulty === "nightmare";
}
