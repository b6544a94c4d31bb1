// A provider's endpoint settings, checked before anything is spawned or sent, so a refusal here proves no review ran.
import type { DispatchInput } from "./types.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";

type NotRun = Extract<DispatchOutcome, { kind: "not-run" }>;
type Input = Pick<DispatchInput, "config" | "providerId">;
/** The variables a CLI takes the endpoint settings in. */
interface EndpointVars {
  baseUrl?: string;
  apiKey: string;
}
/** `env`: base_url and the key under the CLI's own names (empty without `vars`), for the child's environment. */
type Checked = { ok: true; apiKey: string | undefined; env: NodeJS.ProcessEnv } | { ok: false; notRun: NotRun };

/** The key named by api_key_env (undefined when none is named), refused when that variable is not set. */
export function providerKey(input: Input, vars?: EndpointVars): Checked {
  const { config, providerId } = input;
  const apiKey = config.api_key_env ? process.env[config.api_key_env] : undefined;
  if (config.api_key_env && !apiKey) {
    return {
      ok: false,
      notRun: { kind: "not-run", reason: `provider ${providerId}: environment variable ${config.api_key_env} (api_key_env) is not set` },
    };
  }
  const env = {
    ...(vars?.baseUrl && config.base_url ? { [vars.baseUrl]: config.base_url } : {}),
    ...(vars && apiKey ? { [vars.apiKey]: apiKey } : {}),
  };
  return { ok: true, apiKey, env };
}

/**
 * base_url (when set) and the key: an http(s) URL without credentials (settings name the key with api_key_env; a URL
 * may end up on a child's argv, visible to every local user), and a key variable that is set.
 */
export function providerEndpoint(input: Input, vars?: EndpointVars): Checked {
  const { config, providerId } = input;
  if (config.base_url) {
    const refused = (why: string): Checked => ({ ok: false, notRun: { kind: "not-run", reason: `provider ${providerId}: ${why}` } });
    const url = URL.canParse(config.base_url) ? new URL(config.base_url) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return refused("base_url must be an http(s) URL");
    if (url.username || url.password) return refused("credentials in base_url are refused (name the key with api_key_env)");
  }
  return providerKey(input, vars);
}
