// Which reviewers can run here: configured providers checked for their binary (on PATH plus a --version probe),
// an auth signal (an environment key or a stored-auth file is *present* — secrets are never read), CLIs found on
// PATH without configuration, and .guild/hosts/**/capability.json declarations (detect-only without an adapter).
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { familyOfHost, classifyModel } from "../family.js";
import type { Layout } from "../layout.js";
import type { ProviderConfig, Settings } from "../spec/schemas.js";
import { Capability } from "../spec/schemas.js";
import { minimalEnv, runChild } from "../adapters/child.js";
import { MANUAL_PROVIDER, profileFamilies, type Provider } from "../broker/selection.js";
import { MAX_FILE_BYTES, readTextBounded } from "../store/read-bounded.js";

export interface DetectedProvider extends Provider {
  source: "settings" | "path" | "capability" | "builtin";
  binary: string | null;
  version: string | null;
  auth: string | null;
  why: string[];
}

type CliAdapter = "codex" | "claude" | "gemini" | "copilot";

const CLI: Record<CliAdapter, { binary: string; envKeys: string[]; authFiles: (home: string, env: NodeJS.ProcessEnv) => string[] }> = {
  codex: {
    binary: "codex",
    envKeys: ["OPENAI_API_KEY", "CODEX_API_KEY"],
    authFiles: (home, env) => [path.join(env.CODEX_HOME ?? path.join(home, ".codex"), "auth.json")],
  },
  claude: {
    binary: "claude",
    envKeys: ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"],
    authFiles: (home) => [path.join(home, ".claude", ".credentials.json")],
  },
  gemini: {
    binary: "gemini",
    envKeys: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    authFiles: (home) => [path.join(home, ".gemini", "oauth_creds.json")],
  },
  // copilot runs whatever model its agent profile names: no family of its own (see profileFamilies)
  copilot: {
    binary: "copilot",
    envKeys: ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
    authFiles: (home, env) => [path.join(env.COPILOT_HOME ?? path.join(home, ".copilot"), "config.json")],
  },
};

export interface Probe {
  which(binary: string): string | null;
  version(binary: string): Promise<string | null>;
  env: NodeJS.ProcessEnv;
  fileExists(file: string): boolean;
  home: string;
}

export function whichOnPath(binary: string, envPath = process.env.PATH ?? ""): string | null {
  const candidates = binary.includes("/") ? [binary] : envPath.split(path.delimiter).filter(Boolean).map((d) => path.join(d, binary));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // not here
    }
  }
  return null;
}

export const realProbe: Probe = {
  which: (b) => whichOnPath(b),
  version: async (binary) => {
    // generous: a cold gemini start takes 10 s and more on a loaded 2-core machine
    const r = await runChild({ argv: [binary, "--version"], stdin: "", timeoutMs: 20_000, env: minimalEnv([]) });
    return r.kind === "exit" && r.code === 0 ? r.stdout.trim().split("\n")[0]!.slice(0, 120) : null;
  },
  env: process.env,
  fileExists: (f) => existsSync(f),
  home: homedir(),
};

function authSignal(adapter: CliAdapter, config: ProviderConfig | undefined, probe: Probe): string | null {
  const keys = [...(config?.api_key_env ? [config.api_key_env] : []), ...CLI[adapter].envKeys];
  const key = keys.find((k) => probe.env[k]);
  if (key) return `env ${key} set`;
  const file = CLI[adapter].authFiles(probe.home, probe.env).find((f) => probe.fileExists(f));
  return file ? `stored auth ${file.replace(probe.home, "~")}` : null;
}

async function checkCli(adapter: CliAdapter, config: ProviderConfig | undefined, probe: Probe): Promise<Pick<DetectedProvider, "binary" | "version" | "auth" | "why" | "available">> {
  const name = config?.binary ?? CLI[adapter].binary;
  const binary = probe.which(name);
  if (!binary) return { binary: null, version: null, auth: null, why: [`${name} not found on PATH`], available: false };
  const version = await probe.version(binary);
  const auth = authSignal(adapter, config, probe);
  const why = [version ? `${name} ${version}` : `${name} --version failed`, auth ?? "no auth signal (no API key variable, no stored login)"];
  return { binary, version, auth, why, available: version !== null && auth !== null };
}

function capabilityDeclarations(layout: Layout): Array<{ id: string; model?: string; file: string }> {
  const out: Array<{ id: string; model?: string; file: string }> = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && depth < 3) walk(p, depth + 1);
      else if (e.isFile() && e.name === "capability.json") {
        try {
          const c = Capability.safeParse(JSON.parse(readTextBounded(p, { max: MAX_FILE_BYTES })));
          if (!c.success) continue;
          const id = c.data.provider ?? c.data.id ?? c.data.host;
          if (id) out.push({ id, model: c.data.model, file: layout.rel(p) });
          for (const sub of c.data.providers ?? []) out.push({ id: sub.id, model: sub.model, file: layout.rel(p) });
        } catch {
          // an unreadable declaration declares nothing
        }
      }
    }
  };
  walk(layout.hosts, 0);
  return out;
}

export async function detectProviders(settings: Settings, layout: Layout, probe: Probe = realProbe): Promise<DetectedProvider[]> {
  const out: DetectedProvider[] = [];
  const aliases = settings.family_aliases;
  const configured = Object.entries(settings.providers ?? {});
  for (const [id, config] of configured) {
    const base = {
      id, adapter: config.adapter, model: config.model ?? null, family: classifyModel(config.model, aliases),
      selectable: config.selectable !== false && config.adapter !== "manual", source: "settings" as const,
      ...(config.adapter === "copilot" ? { profileFamilies: profileFamilies(config) } : {}),
    };
    if (config.adapter === "codex" || config.adapter === "claude" || config.adapter === "gemini" || config.adapter === "copilot") {
      out.push({ ...base, ...(await checkCli(config.adapter, config, probe)) });
    } else if (config.adapter === "http") {
      const key = config.api_key_env && probe.env[config.api_key_env] ? `env ${config.api_key_env} set` : null;
      const why = [config.base_url ? `base_url ${config.base_url}` : "no base_url", key ?? `api key variable ${config.api_key_env ?? "(none named)"} not set`];
      out.push({ ...base, binary: null, version: null, auth: key, why, available: Boolean(config.base_url && key) });
    } else if (config.adapter === "command") {
      const binary = config.argv?.[0] ? probe.which(config.argv[0]) : null;
      out.push({ ...base, binary, version: null, auth: null, why: [binary ? `runs ${binary}` : `program ${config.argv?.[0] ?? "(no argv)"} not found`], available: binary !== null });
    } else {
      out.push({ ...base, binary: null, version: null, auth: null, why: ["a human answers"], available: true });
    }
    if (config.adapter === "copilot") {
      out[out.length - 1]!.why.push(base.profileFamilies?.length
        ? `family per author, from copilot_profiles (${base.profileFamilies.join(", ")}); identity caller-declared, a finalizer confirms its passes`
        : "no copilot_profiles: never selected for a strong review");
    } else if (base.family === "unknown" && config.adapter !== "manual") out[out.length - 1]!.why.push("no model configured with a known family: never selected for a strong review");
  }
  // CLIs on PATH that settings do not configure: usable with the family their host implies; the reported model
  // is still checked after every review.
  for (const adapter of Object.keys(CLI) as CliAdapter[]) {
    if (configured.some(([id, c]) => id === adapter || c.adapter === adapter)) continue;
    const check = await checkCli(adapter, undefined, probe);
    if (!check.binary) continue;
    out.push({
      id: adapter, adapter, model: null, family: familyOfHost(adapter), selectable: true, source: "path", ...check,
      why: [...check.why, adapter === "copilot" ? "not configured: no copilot_profiles, never selected for a strong review" : "not configured: family from the host map, verified from the reported model"],
    });
  }
  for (const decl of capabilityDeclarations(layout)) {
    if (out.some((p) => p.id === decl.id)) continue;
    out.push({
      id: decl.id, adapter: "manual", model: decl.model ?? null, family: classifyModel(decl.model, aliases), selectable: false,
      available: false, source: "capability", binary: null, version: null, auth: null,
      why: [`declared in ${decl.file}`, "detect-only: no adapter configured for it"],
    });
  }
  if (!out.some((p) => p.id === MANUAL_PROVIDER)) {
    out.push({ id: MANUAL_PROVIDER, adapter: "manual", model: null, family: "unknown", selectable: false, available: true, source: "builtin", binary: null, version: null, auth: null, why: ["a human answers (pin with --reviewer manual)"] });
  }
  return out;
}
