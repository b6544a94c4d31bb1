// Which reviewers can run here: configured providers checked for their binary (on PATH plus a --version probe),
// an auth signal (an environment key or a stored-auth file is *present* — secrets are never read), CLIs found on
// PATH without configuration, and .guild/hosts/**/capability.json declarations (detect-only without an adapter).
import { accessSync, constants, existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { parseJsonAnswer } from "../core/json-answer.js";
import { homedir } from "node:os";
import path from "node:path";
import type { Layout } from "../bus/layout.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { replace } from "../bus/replace.js";
import { ADAPTER_KIND_INFO, authVars, CLI_KINDS, type CliKind } from "../core/adapter-kinds.js";
import { classifyModel, familyOfHost } from "../core/family.js";
import { MANUAL_PROVIDER } from "../core/policy.js";
import { BUILTIN_MANUAL, type Provider, settingsProvider } from "../core/selection.js";
import type { ProviderConfig, Settings } from "../spec/schemas.js";
import { resolveBinary, runChild } from "./child.js";
import { minimalEnv } from "./environment.js";

export interface DetectedProvider extends Provider {
  source: "settings" | "path" | "capability" | "builtin";
  binary: string | null;
  version: string | null;
  auth: string | null;
  why: string[];
}

/** What `<binary> --version` did within its time limit. */
export type VersionProbe = { kind: "ok"; version: string } | { kind: "failed"; reason: string } | { kind: "timeout" };

export interface Probe {
  which(binary: string): string | null;
  version(binary: string, timeoutMs: number): Promise<VersionProbe>;
  /** What identifies this binary for the probe cache (resolved path, size, mtime, inode); null if it cannot be read. */
  stamp(binary: string): string | null;
  env: NodeJS.ProcessEnv;
  fileExists(file: string): boolean;
  home: string;
}

/**
 * The --version time limits: a first short one, then, after a timeout, a long one (a node CLI takes 1.5 s idle and
 * 10-13 s on two loaded cores). A timeout never makes a binary "not found": it is on PATH, only slow.
 */
export const PROBE_TIMEOUTS_MS = [5_000, 30_000] as const;

/** A positive probe this recent, of the same binary, by any process, is not run again. */
export const PROBE_FRESH_MS = 10 * 60_000;

function whichOnPath(binary: string, envPath = process.env.PATH ?? ""): string | null {
  const candidates = binary.includes("/")
    ? [binary]
    : envPath
        .split(path.delimiter)
        .filter(Boolean)
        .map((d) => path.join(d, binary));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      // a directory is "executable" (searchable) too, and would only fail once a round is dispatched to it
      if (statSync(c).isFile()) return c;
    } catch {
      // not here
    }
  }
  return null;
}

const realProbe: Probe = {
  which: (b) => whichOnPath(b),
  version: async (binary, timeoutMs) => {
    const r = await runChild({ argv: [binary, "--version"], stdin: "", timeoutMs, env: minimalEnv([]) });
    if (r.kind === "timeout") return { kind: "timeout" };
    if (r.kind === "exit" && r.code === 0) return { kind: "ok", version: r.stdout.trim().split("\n")[0]!.slice(0, 120) };
    return { kind: "failed", reason: r.kind === "exit" ? `exit ${r.code ?? r.signal}` : r.kind === "spawn-error" ? r.code : r.kind };
  },
  stamp: (binary) => {
    try {
      const real = realpathSync(binary);
      const st = statSync(real);
      return `${real} ${st.size} ${st.mtimeMs} ${st.ino}`;
    } catch {
      return null;
    }
  },
  env: process.env,
  fileExists: (f) => existsSync(f),
  home: homedir(),
};

/**
 * Detection without running any binary: a CLI found on PATH (or where settings say) counts as present with its version
 * unknown, unless a probe of that very binary cached its answer. For what a reviewer worker advertises to other
 * machines (SPEC §18), at each minute of every reviewer worker: its dispatch finds out the rest.
 */
export function detectWithoutRunning(settings: Settings, layout: Layout): Promise<DetectedProvider[]> {
  return detectProviders(settings, layout, { ...realProbe, version: async () => ({ kind: "timeout" }) });
}

function authSignal(cli: CliKind, config: ProviderConfig | undefined, probe: Probe): string | null {
  const key = authVars(cli, config).find((k) => probe.env[k]);
  if (key) return `env ${key} set`;
  const { dirVar, dir, file } = cli.login;
  const login = path.join((dirVar && probe.env[dirVar]) ?? path.join(probe.home, dir), file);
  return probe.fileExists(login) ? `stored auth ${login.replace(probe.home, "~")}` : null;
}

async function checkCli(
  cli: CliKind,
  config: ProviderConfig | undefined,
  probe: Probe,
  cache: ProbeCache,
  root: string,
): Promise<Pick<DetectedProvider, "binary" | "version" | "auth" | "why" | "available">> {
  const name = config?.binary ?? cli.binary;
  // the binary the adapter runs: a relative path is the project root's, wherever the command was started
  const binary = probe.which(resolveBinary(name, root));
  if (!binary) return { binary: null, version: null, auth: null, why: [`${name} not found on PATH`], available: false };
  const probed = await cache.once(binary, () => probeVersion(name, binary, probe, cache));
  const auth = authSignal(cli, config, probe);
  const why = [probed.why, auth ?? "no auth signal (no API key variable, no stored login)"];
  return { binary, version: probed.version, auth, why, available: probed.present && auth !== null };
}

interface ProbedVersion {
  present: boolean;
  version: string | null;
  why: string;
}

const seconds = (ms: number) => `${ms / 1000} s`;

/**
 * `<binary> --version`, so that a slow machine never turns an installed CLI into a missing one. A positive answer
 * for the same binary (path, size, mtime, inode) cached by any process within PROBE_FRESH_MS is used without running
 * it again. Else it is probed; after a timeout, an older cached answer for the same binary is trusted, else it is
 * probed again with the long limit; if that times out too the binary is still present (on PATH), its version
 * unknown. Only a probe that answers with a failure makes it unavailable.
 */
async function probeVersion(name: string, binary: string, probe: Probe, cache: ProbeCache): Promise<ProbedVersion> {
  const [first, second] = PROBE_TIMEOUTS_MS;
  const stamp = probe.stamp(binary);
  const answered = (r: Extract<VersionProbe, { kind: "ok" }>, how: string) => {
    if (stamp) cache.set(binary, stamp, r.version);
    return { present: true, version: r.version, why: `${name} ${r.version}${how}` };
  };
  const failed = (r: Extract<VersionProbe, { kind: "failed" }>) => {
    cache.drop(binary);
    return { present: false, version: null, why: `${name} --version failed (${r.reason})` };
  };
  const fresh = stamp ? cache.get(binary, stamp, PROBE_FRESH_MS) : null;
  if (fresh)
    return { present: true, version: fresh, why: `${name} ${fresh} (same binary answered a probe in the last ${seconds(PROBE_FRESH_MS)})` };
  const r1 = await probe.version(binary, first);
  if (r1.kind === "ok") return answered(r1, "");
  if (r1.kind === "failed") return failed(r1);
  const cached = stamp ? cache.get(binary, stamp) : null;
  if (cached)
    return {
      present: true,
      version: cached,
      why: `${name} ${cached} (from an earlier probe of this same binary: --version timed out after ${seconds(first)})`,
    };
  const r2 = await probe.version(binary, second);
  if (r2.kind === "ok") return answered(r2, ` (answered a second probe: the first timed out after ${seconds(first)})`);
  if (r2.kind === "failed") return failed(r2);
  return {
    present: true,
    version: null,
    why: `${name} --version probe timed out (${seconds(first)}, then ${seconds(second)}): on PATH, version unknown; kept available`,
  };
}

/**
 * Positive --version probes, in .guild/probe-cache.json, keyed by binary path and valid only for the same stamp:
 * a slow probe of a binary that answered before is not a reason to drop it. Only written where .guild/ exists.
 */
class ProbeCache {
  private entries: Record<string, { stamp: string; version: string; at: string }> = {};
  private dirty = false;
  /** This detection's probe of each binary: two providers configured on one CLI share it. */
  private readonly probes = new Map<string, Promise<ProbedVersion>>();
  constructor(private readonly layout: Layout) {
    try {
      // the one JSON reader: a planted cache nested past its depth would overflow every save, which then never lands
      const answer = parseJsonAnswer(readTextBounded(layout.probeCache, { max: 1024 * 1024 }));
      const parsed = answer.ok ? answer.value : null;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) this.entries = parsed as typeof this.entries;
    } catch {
      // none yet, or unreadable: start empty
    }
  }

  once(binary: string, run: () => Promise<ProbedVersion>): Promise<ProbedVersion> {
    if (!this.probes.has(binary)) this.probes.set(binary, run());
    return this.probes.get(binary)!;
  }

  /** The cached answer for this very binary; with `withinMs`, only one given that recently. */
  get(binary: string, stamp: string, withinMs = Infinity): string | null {
    const e = this.entries[binary];
    if (!e || e.stamp !== stamp || typeof e.version !== "string") return null;
    return withinMs === Infinity || Date.now() - Date.parse(e.at) <= withinMs ? e.version : null;
  }

  set(binary: string, stamp: string, version: string): void {
    this.entries[binary] = { stamp, version, at: new Date().toISOString() };
    this.dirty = true;
  }

  drop(binary: string): void {
    if (!(binary in this.entries)) return;
    delete this.entries[binary];
    this.dirty = true;
  }

  async save(): Promise<void> {
    if (!this.dirty) return;
    try {
      await replace(this.layout.probeCache, JSON.stringify(this.entries, null, 2) + "\n", { guildDir: this.layout.guild, durable: false });
      this.dirty = false;
    } catch {
      // a cache: detection stands without it (and a project without .guild, or one removed meanwhile, gets none)
    }
  }
}

// The capability.json files under .guild/hosts, three directories deep at most.
function capabilityFiles(layout: Layout): string[] {
  const out: string[] = [];
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
      else if (e.isFile() && e.name === "capability.json") out.push(p);
    }
  };
  walk(layout.hosts, 0);
  return out;
}

async function capabilityDeclarations(layout: Layout): Promise<Array<{ id: string; model?: string; file: string }>> {
  const files = capabilityFiles(layout);
  if (!files.length) return [];
  const { Capability } = await import("../spec/schemas.js"); // the schemas: only where there is a declaration to judge
  const out: Array<{ id: string; model?: string; file: string }> = [];
  for (const p of files) {
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
  return out;
}

/**
 * What detection found. `onSlow` hears, once per binary, that a --version probe did not answer within the first limit
 * and detection waits on (up to PROBE_TIMEOUTS_MS[1] more): a command a person waits on says so, never half a minute
 * of silence.
 */
export async function detectProviders(
  settings: Settings,
  layout: Layout,
  probe: Probe = realProbe,
  onSlow?: (note: string) => void,
): Promise<DetectedProvider[]> {
  const cache = new ProbeCache(layout);
  const out = await detect(settings, layout, onSlow ? saysWhenSlow(probe, onSlow) : probe, cache);
  await cache.save();
  // selection quotes it when a pinned reviewer is unavailable
  return out.map((p) => (p.available ? p : { ...p, note: p.why.join("; ") }));
}

/** The probe, telling `onSlow` before a binary's second, long --version probe starts. */
function saysWhenSlow(probe: Probe, onSlow: (note: string) => void): Probe {
  const [first, second] = PROBE_TIMEOUTS_MS;
  const told = new Set<string>();
  return {
    ...probe,
    version: (binary, timeoutMs) => {
      if (timeoutMs === second && !told.has(binary)) {
        told.add(binary);
        onSlow(
          `${binary} --version did not answer within ${seconds(first)}; waiting up to ${seconds(second)} more ` +
            "(a slow CLI is not taken for a missing one)",
        );
      }
      return probe.version(binary, timeoutMs);
    },
  };
}

async function configuredProvider(
  id: string,
  config: ProviderConfig,
  aliases: Settings["family_aliases"],
  { probe, cache, root }: { probe: Probe; cache: ProbeCache; root: string },
): Promise<DetectedProvider> {
  const base = { ...settingsProvider(id, config, aliases), source: "settings" as const };
  const found = await reach(config, probe, cache, root);
  const detected: DetectedProvider = { ...base, ...found };
  if (config.adapter === "copilot") {
    detected.why.push(
      base.profileFamilies?.length
        ? `family per author, from copilot_profiles (${base.profileFamilies.join(", ")}); ` +
            "identity caller-declared, a finalizer confirms its passes"
        : "no copilot_profiles: never selected for a strong review",
    );
  } else if (base.family === "unknown" && config.adapter !== "manual")
    detected.why.push("no model configured with a known family: never selected for a strong review");
  return detected;
}

type Reach = Pick<DetectedProvider, "binary" | "version" | "auth" | "why" | "available">;

/** Whether a configured provider can be reached here: its binary, key, program or a human. */
async function reach(config: ProviderConfig, probe: Probe, cache: ProbeCache, root: string): Promise<Reach> {
  const cli = ADAPTER_KIND_INFO[config.adapter].cli;
  if (cli) return checkCli(cli, config, probe, cache, root);
  if (config.adapter === "http") {
    const key = config.api_key_env && probe.env[config.api_key_env] ? `env ${config.api_key_env} set` : null;
    const why = [
      config.base_url ? `base_url ${config.base_url}` : "no base_url",
      key ?? `api key variable ${config.api_key_env ?? "(none named)"} not set`,
    ];
    return { binary: null, version: null, auth: key, why, available: Boolean(config.base_url && key) };
  }
  if (config.adapter === "command") {
    const binary = config.argv?.[0] ? probe.which(resolveBinary(config.argv[0], root)) : null;
    const why = [binary ? `runs ${binary}` : `program ${config.argv?.[0] ?? "(no argv)"} not found`];
    return { binary, version: null, auth: null, why, available: binary !== null };
  }
  if (config.adapter === "external") return { binary: null, version: null, auth: null, why: [EXTERNAL_WHY], available: true };
  return { binary: null, version: null, auth: null, why: ["a human answers"], available: true };
}

const EXTERNAL_WHY = "served by a reviewer process outside the bus (adapter external): the bus starts nothing for it";

async function detect(settings: Settings, layout: Layout, probe: Probe, cache: ProbeCache): Promise<DetectedProvider[]> {
  const aliases = settings.family_aliases;
  const configured = Object.entries(settings.providers ?? {});
  // Every binary is probed at once: one after another, a few slow --version answers on a loaded machine add up
  // to minutes.
  const fromSettings = configured.map(([id, config]) => configuredProvider(id, config, aliases, { probe, cache, root: layout.root }));
  // CLIs on PATH that settings do not configure: usable with the family their host implies; the reported model
  // is still checked after every review.
  const unconfigured = CLI_KINDS.filter((adapter) => !configured.some(([id, c]) => id === adapter || c.adapter === adapter));
  const fromPath = unconfigured.map(async (adapter): Promise<DetectedProvider | null> => {
    const check = await checkCli(ADAPTER_KIND_INFO[adapter].cli!, undefined, probe, cache, layout.root);
    if (!check.binary) return null;
    return {
      id: adapter,
      adapter,
      model: null,
      family: familyOfHost(adapter, settings),
      selectable: true,
      source: "path",
      ...check,
      why: [
        ...check.why,
        adapter === "copilot"
          ? "not configured: no copilot_profiles, never selected for a strong review"
          : "not configured: family from the host map, verified from the reported model",
      ],
    };
  });
  const out: DetectedProvider[] = [...(await Promise.all(fromSettings)), ...(await Promise.all(fromPath)).filter((p) => p !== null)];
  for (const decl of await capabilityDeclarations(layout)) {
    if (out.some((p) => p.id === decl.id)) continue;
    out.push({
      id: decl.id,
      adapter: "manual",
      model: decl.model ?? null,
      family: classifyModel(decl.model, aliases),
      selectable: false,
      available: false,
      source: "capability",
      binary: null,
      version: null,
      auth: null,
      why: [`declared in ${decl.file}`, "detect-only: no adapter configured for it"],
    });
  }
  if (!out.some((p) => p.id === MANUAL_PROVIDER)) {
    out.push({
      ...BUILTIN_MANUAL,
      source: "builtin",
      binary: null,
      version: null,
      auth: null,
      why: ["a human answers (pin reviewer manual to ask one)"],
    });
  }
  return out;
}
