// A reviewer child's environment: a few base variables and what is allow-listed by name, never the whole of ours.
import { ADAPTER_KIND_INFO } from "../core/adapter-kinds.js";
import type { DispatchInput } from "./types.js";

/** Variables a child always gets (no secrets); everything else must be allow-listed by name. */
const BASE_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ", "TERM", "SYSTEMROOT", "USER"];

export function minimalEnv(names: readonly string[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of [...BASE_ENV, ...names]) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}

interface ChildEnvOptions {
  /** The CLI's own defaults; an allow-listed variable of the same name wins. */
  defaults?: NodeJS.ProcessEnv;
  /** Names passed through besides the allow-lists (a key variable the CLI reads itself, a CLI's home). */
  pass?: readonly string[];
  /** The dispatch's scratch directory, the child's TMPDIR: spilled files go away with it. */
  scratch?: string;
  /** The adapter's own variables (endpoint variables derived from settings, a scratch home): they win. */
  own?: NodeJS.ProcessEnv;
}

/**
 * A dispatch's environment: the CLI's defaults, overridden by allow-listed variables (secrets_policy.env_allowlist,
 * the provider's `env`, and the CLI's own key variables that detection counts as its auth signal when settings name no
 * api_key_env: authVars), then the bus's own (the packet and round) and the adapter's own.
 */
export function childEnv(input: Pick<DispatchInput, "project" | "config" | "front">, o: ChildEnvOptions = {}): NodeJS.ProcessEnv {
  const cli = ADAPTER_KIND_INFO[input.config.adapter]?.cli;
  // with api_key_env the adapter hands that key on under the CLI's own name (own), and no other key goes along
  const keys = cli && !input.config.api_key_env ? cli.keyVars : [];
  const allow = [...input.project.envAllowlist, ...(input.config.env ?? []), ...keys, ...(o.pass ?? [])];
  return {
    ...o.defaults,
    ...minimalEnv(allow, {
      GUILD_BUS_PACKET_ID: input.front.packet_id,
      GUILD_BUS_ROUND: String(input.front.round),
      ...(o.scratch ? { TMPDIR: o.scratch } : {}),
      ...o.own,
    }),
  };
}
