// A provider's endpoint settings, checked before anything is spawned or sent, so a refusal here proves no review ran.
import type { DispatchInput } from "./types.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";
import { providerConfigProblem } from "../core/adapter-kinds.js";

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

/** The provider's settings (providerConfigProblem: base_url among them), then its key. */
export function providerEndpoint(input: Input, vars?: EndpointVars): Checked {
  const problem = providerConfigProblem(input.config);
  if (problem) return { ok: false, notRun: { kind: "not-run", reason: `provider ${input.providerId}: ${problem}` } };
  return providerKey(input, vars);
}
