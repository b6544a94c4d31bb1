// `guild-bus providers`: for every host it looks for, whether it can review here, why not, and the one line that
// would enable it. Pure: it reads only what detection found.
import { ADAPTER_KIND_INFO } from "./adapter-kinds.js";

/** The hosts detection looks for, in the order `providers` lists them. */
export const LOOKED_FOR = ["codex", "claude", "gemini", "copilot", "http"] as const;
type Host = (typeof LOOKED_FOR)[number];

const INSTALL: Record<Exclude<Host, "http">, string> = {
  codex: "npm i -g @openai/codex",
  claude: "npm i -g @anthropic-ai/claude-code",
  gemini: "npm i -g @google/gemini-cli",
  copilot: "npm i -g @github/copilot",
};

const LOGIN: Record<Exclude<Host, "http">, string> = {
  codex: "run `codex login`",
  claude: "run `claude` and /login",
  gemini: "run `gemini` and sign in",
  copilot: "run `copilot` and /login",
};

const HTTP_EXAMPLE =
  'add to .guild/settings.json: "providers": {"gpt": {"adapter": "http", "model": "gpt-5", ' +
  '"base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY"}} and export OPENAI_API_KEY';

export interface FoundProvider {
  id: string;
  adapter: string;
  available: boolean;
  binary: string | null;
  auth: string | null;
  why: string[];
}

export interface HostReport {
  host: Host;
  usable: boolean;
  /** The provider ids of this host that detection found (configured or on PATH). */
  providers: string[];
  /** Why it cannot review here: not on PATH, no login or key found, the probe failed; null when usable. */
  why: string | null;
  /** The one line that would enable it; null when usable. */
  enable: string | null;
}

function keyHint(host: Exclude<Host, "http">): string {
  return `export ${ADAPTER_KIND_INFO[host].cli!.keyVars[0]}`;
}

/** Each looked-for host: usable, or why not and how to enable it. */
export function hostReports(found: FoundProvider[]): HostReport[] {
  return LOOKED_FOR.map((host): HostReport => {
    const mine = found.filter((p) => p.adapter === host);
    const providers = mine.map((p) => p.id);
    if (mine.some((p) => p.available)) return { host, usable: true, providers, why: null, enable: null };
    if (host === "http") {
      const why = mine.length ? mine.flatMap((p) => p.why).join("; ") : "no http provider configured in .guild/settings.json";
      const enable = mine.length ? `set base_url and export the variable api_key_env names for ${providers.join(", ")}` : HTTP_EXAMPLE;
      return { host, usable: false, providers, why, enable };
    }
    const onPath = mine.find((p) => p.binary !== null);
    if (!onPath) return { host, usable: false, providers, why: `${host} not on PATH`, enable: `${INSTALL[host]}, then ${LOGIN[host]}` };
    if (onPath.auth === null)
      return { host, usable: false, providers, why: "no login or key found", enable: `${LOGIN[host]} (or ${keyHint(host)}=…)` };
    return {
      host,
      usable: false,
      providers,
      why: `probe failed: ${onPath.why.join("; ")}`,
      enable: `check that \`${onPath.binary} --version\` runs, then ${LOGIN[host]}`,
    };
  });
}
