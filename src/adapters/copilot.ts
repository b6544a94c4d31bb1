// The copilot adapter (ARIS's compatibility drive mode): one `copilot --agent <profile> --model <m> --effort <e>
// --allow-tool=read` per dispatch. Copilot has no model family of its own, so the profile is picked opposite the
// author's family from settings (`copilot_profiles`), its `model:` is read from .github/agents/<profile>.agent.md and
// passed explicitly (copilot may ignore a profile's model under an Auto session), and nothing reports which model ran:
// the identity is caller-declared and unverified, and the broker asks a different-family finalizer to confirm a pass.
// The packet goes into a scratch file whose path (never its content) is on argv; the CLI's --help must advertise
// every flag used, or the dispatch is refused before anything runs.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { profileFamilies, profileFamilyFor } from "../core/selection.js";
import { ReadRefused, readTextBounded } from "../bus/read-bounded.js";
import { classifyModel } from "../core/family.js";
import { scrub } from "../core/scrub.js";
import type { Family } from "../spec/schemas.js";
import { capabilityError } from "./capability-errors.js";
import { dispatchWorkdir } from "./capabilities.js";
import { resolveBinary } from "./claude.js";
import { minimalEnv, runChild, unfinishedChild, withScratch } from "./child.js";
import { DEFAULT_TIMEOUT_MS } from "./command.js";
import { advertisedValues, advertises, cliHelp } from "./help.js";
import type { DeclaredIdentity, DispatchInput, DispatchOutcome, ReviewerAdapter } from "./types.js";

/** Flags every dispatch uses besides the effort flag: a CLI whose --help lacks one is refused, never run unpinned. */
export const COPILOT_FLAGS = [
  "--prompt", "--silent", "--agent", "--model", "--allow-tool", "--deny-tool", "--add-dir",
  "--no-custom-instructions", "--no-ask-user", "--disable-builtin-mcps", "--no-auto-update", "--no-color",
] as const;

/** `--effort` as ARIS uses it; 1.0.102 lists only `--reasoning-effort` (it still takes --effort as a hidden alias). */
export const COPILOT_EFFORT_FLAGS = ["--effort", "--reasoning-effort"] as const;

export const COPILOT_ENV_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({ COPILOT_AUTO_UPDATE: "false", NO_COLOR: "1" });

/** An agent profile is a short front matter and instructions; anything larger is not one. */
const PROFILE_MAX_BYTES = 256 * 1024;

export const PROFILE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface CopilotProfile {
  profile: string;
  family: Family;
  model: string;
  /** The profile file's bytes: the copy copilot loads is exactly what the model was read from. */
  text: string;
}

/** The profile for this author: a configured one of a known family other than the author's, its model checked. */
export function resolveProfile(input: Pick<DispatchInput, "config" | "front" | "ctx">): CopilotProfile | string {
  const { config, front, ctx } = input;
  const families = profileFamilies(config) ?? [];
  const family = profileFamilyFor(families, front.author_family);
  if (family === "unknown") {
    return `no copilot_profiles entry of a known family other than the author's (${front.author_family}); configured: ${families.join(", ") || "none"}`;
  }
  const profile = config.copilot_profiles![family]!;
  if (!PROFILE_RE.test(profile)) return `copilot profile name ${JSON.stringify(profile)} is not a plain name`;
  const file = path.join(ctx.layout.root, ".github", "agents", `${profile}.agent.md`);
  let text: string;
  try {
    text = readTextBounded(file, { max: PROFILE_MAX_BYTES });
  } catch (error) {
    const rel = path.relative(ctx.layout.root, file);
    if (error instanceof ReadRefused && error.kind === "missing") return `custom agent profile ${rel} not found: create it with a model: of the ${family} family`;
    if (error instanceof ReadRefused && (error.kind === "not-regular" || error.kind === "symlink")) return `${rel} is not a regular file`;
    return `custom agent profile ${rel} refused: ${(error as Error).message}`;
  }
  const model = profileModel(text);
  if (!model) return `${path.relative(ctx.layout.root, file)} has no model: in its front matter`;
  const actual = classifyModel(model, ctx.settings.family_aliases);
  if (actual !== family) return `profile ${profile} is configured for ${family} but its model ${model} is ${actual}`;
  return { profile, family, model, text };
}

/** The `model:` of an .agent.md YAML front matter, or null. */
export function profileModel(text: string): string | null {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return null;
  try {
    const front = parseYaml(m[1]!) as { model?: unknown } | null;
    return typeof front?.model === "string" && front.model.trim() ? front.model.trim() : null;
  } catch {
    return null;
  }
}

/** Why this CLI cannot run the pinned command line, or the effort flag it takes. */
export function copilotHelpCheck(help: string, effort: string | null | undefined): { flag: string | null } | { refused: string; capability?: "effort_unsupported" } {
  const missing = COPILOT_FLAGS.filter((f) => !advertises(help, f));
  if (missing.length) return { refused: `copilot --help does not advertise ${missing.join(", ")}` };
  if (!effort) return { flag: null };
  const flag = COPILOT_EFFORT_FLAGS.find((f) => advertises(help, f));
  if (!flag) return { refused: `copilot --help advertises no effort flag (${COPILOT_EFFORT_FLAGS.join(" or ")})`, capability: "effort_unsupported" };
  const levels = advertisedValues(help, flag) ?? [];
  if (levels.length && !levels.includes(effort)) return { refused: `copilot ${flag} takes ${levels.join(", ")}, not ${effort}`, capability: "effort_unsupported" };
  return { flag };
}

/** The prompt on argv: a pointer to the packet file, never the packet. */
export function copilotPrompt(packetFile: string): string {
  return `Your whole task is in the review packet file ${packetFile}. Read all of it with your read tool, then answer exactly as it asks.`;
}

export function copilotArgv(binary: string, o: { profile: string; model: string; effortFlag: string | null; effort: string | null | undefined; packetFile: string; configDir: string; extraArgs?: string[] }): string[] {
  return [
    binary,
    "--prompt", copilotPrompt(o.packetFile),
    "--silent", // the agent's answer only
    "--agent", o.profile,
    "--model", o.model,
    ...(o.effortFlag && o.effort ? [o.effortFlag, o.effort] : []),
    "--allow-tool=read",
    "--deny-tool=shell", "--deny-tool=write", // denied outright, whatever a user setting allows
    `--add-dir=${o.configDir}`, // loads the copied profile from its .github/agents and lets the agent read the packet
    "--no-custom-instructions", // no AGENTS.md the author wrote
    "--no-ask-user",
    "--disable-builtin-mcps",
    "--no-auto-update",
    "--no-color",
    ...(o.extraArgs ?? []),
  ];
}

/** What the CLI prints when it stops before sending anything (login, a missing agent, an argument it rejects). */
const PRE_REQUEST_RE = /^(?:Error: No authentication information found|Error: Classic Personal Access Tokens|No such agent: |error: (?:unexpected argument|invalid value|a value is required|unrecognized))/m;

const tail = (s: string, n = 500) => scrub(s.trim().slice(-n));

/** Decide what a finished copilot run means. Exported for unit tests. */
export function classifyCopilotExit(code: number | null, signal: string | null, stdout: string, stderr: string, declared: DeclaredIdentity): DispatchOutcome {
  if (code === 0 && stdout.trim()) return { kind: "output", text: stdout, reportedModel: null, declared };
  const said = `${stderr}\n${stdout}`;
  if (code !== null && code !== 0) {
    const capability = capabilityError(said);
    if (capability) return { kind: "not-run", capability, reason: `copilot refused the request (exit ${code}): ${tail(said)}`, declared };
    if (PRE_REQUEST_RE.test(said)) return { kind: "not-run", reason: `copilot stopped before sending any request (exit ${code}): ${tail(said)}`, declared };
  }
  return { kind: "ambiguous", reason: `copilot exited ${code ?? signal}${code === 0 ? " without an answer" : ""}: ${tail(said)}`, declared };
}

export const copilotAdapter: ReviewerAdapter = {
  async dispatch(input: DispatchInput): Promise<DispatchOutcome> {
    const { config, providerId } = input;
    const chosen = resolveProfile(input);
    if (typeof chosen === "string") return { kind: "not-run", reason: `provider ${providerId}: ${chosen}` };
    const declared: DeclaredIdentity = { model: chosen.model, profile: chosen.profile };
    const apiKey = config.api_key_env ? process.env[config.api_key_env] : undefined;
    if (config.api_key_env && !apiKey) {
      return { kind: "not-run", reason: `provider ${providerId}: environment variable ${config.api_key_env} (api_key_env) is not set`, declared };
    }
    const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const binary = resolveBinary(config.binary ?? "copilot", input.ctx.layout.root);
    return withScratch("copilot", async (scratch) => {
      const allow = [...(input.ctx.settings.secrets_policy?.env_allowlist ?? []), ...(config.env ?? []), "COPILOT_HOME"];
      const env = {
        ...COPILOT_ENV_DEFAULTS,
        ...minimalEnv(allow, process.env, {
          GUILD_BUS_PACKET_ID: input.front.packet_id,
          GUILD_BUS_ROUND: String(input.front.round),
          TMPDIR: scratch,
          ...(apiKey ? { COPILOT_GITHUB_TOKEN: apiKey } : {}),
        }),
      };
      const help = await cliHelp(binary, env, scratch, input.signal);
      if (!help.ok) return { kind: "not-run", reason: help.reason, declared };
      const check = copilotHelpCheck(help.text, config.effort);
      if ("refused" in check) return { kind: "not-run", reason: check.refused, ...(check.capability ? { capability: check.capability } : {}), declared };
      const agents = path.join(scratch, ".github", "agents");
      mkdirSync(agents, { recursive: true });
      writeFileSync(path.join(agents, `${chosen.profile}.agent.md`), chosen.text);
      const packetFile = path.join(scratch, "packet.md");
      writeFileSync(packetFile, input.prompt);
      const argv = copilotArgv(binary, {
        profile: chosen.profile, model: chosen.model, effortFlag: check.flag, effort: config.effort, packetFile, configDir: scratch, extraArgs: config.extra_args,
      });
      const outcome = await runChild({ argv, stdin: "", timeoutMs, env, cwd: dispatchWorkdir(input) ?? scratch, signal: input.signal });
      if (outcome.kind !== "exit") return { ...unfinishedChild(outcome, "copilot", binary, timeoutMs), declared };
      return classifyCopilotExit(outcome.code, outcome.signal, outcome.stdout, outcome.stderr, declared);
    });
  },
};
