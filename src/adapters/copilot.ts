// The copilot adapter (ARIS's compatibility drive mode): one `copilot --agent <profile> --model <m> --effort <e>
// --allow-tool=read` per dispatch. Copilot has no model family of its own, so the profile is picked opposite the
// author's family from settings (`copilot_profiles`), its `model:` is read from .github/agents/<profile>.agent.md and
// passed explicitly (copilot may ignore a profile's model under an Auto session), and nothing reports which model ran:
// the identity is caller-declared and unverified, and the broker asks a different-family finalizer to confirm a pass.
// The packet goes into a scratch file whose path (never its content) is on argv; the CLI's --help must advertise
// every flag used, or the dispatch is refused before anything runs.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ReadRefused, readTextBounded } from "../bus/read-bounded.js";
import { isSystemFault, retryOnSystemFault } from "../bus/system-fault.js";
import { classifyModel } from "../core/family.js";
import { parseYaml } from "../core/front-matter.js";
import { profileFamilies, profileFamilyFor } from "../core/selection.js";
import { COPILOT_PROFILE_RE, type Family } from "../spec/schemas.js";
import { capabilityError } from "./capability-errors.js";
import { DEFAULT_TIMEOUT_MS, dispatchWorkdir, resolveBinary, runChild, tail, unfinishedChild, withScratch } from "./child.js";
import { providerKey } from "./endpoint.js";
import { childEnv } from "./environment.js";
import { advertisedValues, advertises, cliHelp } from "./help.js";
import type { DispatchInput, ReviewerAdapter } from "./types.js";
import type { DeclaredIdentity, DispatchOutcome } from "../core/dispatch-outcome.js";

/** Flags every dispatch uses besides the effort flag: a CLI whose --help lacks one is refused, never run unpinned. */
export const COPILOT_FLAGS = [
  "--prompt",
  "--silent",
  "--agent",
  "--model",
  "--allow-tool",
  "--deny-tool",
  "--add-dir",
  "--no-custom-instructions",
  "--no-ask-user",
  "--disable-builtin-mcps",
  "--no-auto-update",
  "--no-color",
] as const;

/** `--effort` as ARIS uses it; 1.0.102 lists only `--reasoning-effort` (it still takes --effort as a hidden alias). */
const COPILOT_EFFORT_FLAGS = ["--effort", "--reasoning-effort"] as const;

const COPILOT_ENV_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({ COPILOT_AUTO_UPDATE: "false", NO_COLOR: "1" });

/** An agent profile is a short front matter and instructions; anything larger is not one. */
const PROFILE_MAX_BYTES = 256 * 1024;

interface CopilotProfile {
  profile: string;
  family: Family;
  model: string;
  /** The profile file's bytes: the copy copilot loads is exactly what the model was read from. */
  text: string;
}

/** The profile for this author: a configured one of a known family other than the author's, its model checked. */
export function resolveProfile(
  input: Pick<DispatchInput, "config" | "front" | "project">,
): { ok: true; chosen: CopilotProfile } | { ok: false; reason: string } {
  const { config, front, project } = input;
  const refused = (reason: string) => ({ ok: false as const, reason });
  const families = profileFamilies(config) ?? [];
  const family = profileFamilyFor(families, front.author_family);
  if (family === "unknown") {
    return refused(
      `no copilot_profiles entry of a known family other than the author's (${front.author_family}); ` +
        `configured: ${families.join(", ") || "none"}`,
    );
  }
  const profile = config.copilot_profiles![family]!;
  if (!COPILOT_PROFILE_RE.test(profile)) return refused(`copilot profile name ${JSON.stringify(profile)} is not a plain name`);
  const file = path.join(project.root, ".github", "agents", `${profile}.agent.md`);
  const rel = path.relative(project.root, file);
  let text: string;
  try {
    text = readTextBounded(file, { max: PROFILE_MAX_BYTES });
  } catch (error) {
    if (error instanceof ReadRefused && error.kind === "missing")
      return refused(`custom agent profile ${rel} not found: create it with a model: of the ${family} family`);
    if (error instanceof ReadRefused && (error.kind === "not-regular" || error.kind === "symlink"))
      return refused(`${rel} is not a regular file`);
    if (isSystemFault(error)) throw error; // the system's, not the profile's: the caller tries again
    return refused(`custom agent profile ${rel} refused: ${(error as Error).message}`);
  }
  const model = profileModel(text);
  if (!model) return refused(`${rel} has no model: in its front matter`);
  const actual = classifyModel(model, project.familyAliases);
  if (actual !== family) return refused(`profile ${profile} is configured for ${family} but its model ${model} is ${actual}`);
  return { ok: true, chosen: { profile, family, model, text } };
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
export function copilotHelpCheck(
  help: string,
  effort: string | null | undefined,
): { flag: string | null } | { refused: string; capability?: "effort_unsupported" } {
  const missing = COPILOT_FLAGS.filter((f) => !advertises(help, f));
  if (missing.length) return { refused: `copilot --help does not advertise ${missing.join(", ")}` };
  if (!effort) return { flag: null };
  const flag = COPILOT_EFFORT_FLAGS.find((f) => advertises(help, f));
  if (!flag)
    return { refused: `copilot --help advertises no effort flag (${COPILOT_EFFORT_FLAGS.join(" or ")})`, capability: "effort_unsupported" };
  const levels = advertisedValues(help, flag) ?? [];
  if (levels.length && !levels.includes(effort))
    return { refused: `copilot ${flag} takes ${levels.join(", ")}, not ${effort}`, capability: "effort_unsupported" };
  return { flag };
}

/** The prompt on argv: a pointer to the packet file, never the packet. */
function copilotPrompt(packetFile: string): string {
  return `Your whole task is in the review packet file ${packetFile}. Read all of it with your read tool, then answer exactly as it asks.`;
}

export function copilotArgv(
  binary: string,
  o: {
    profile: string;
    model: string;
    effortFlag: string | null;
    effort: string | null | undefined;
    packetFile: string;
    configDir: string;
    extraArgs?: string[];
  },
): string[] {
  return [
    binary,
    "--prompt",
    copilotPrompt(o.packetFile),
    "--silent", // the agent's answer only
    "--agent",
    o.profile,
    "--model",
    o.model,
    ...(o.effortFlag && o.effort ? [o.effortFlag, o.effort] : []),
    "--allow-tool=read",
    "--deny-tool=shell",
    "--deny-tool=write", // denied outright, whatever a user setting allows
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
const PRE_REQUEST_RE =
  /^(?:Error: No authentication information found|Error: Classic Personal Access Tokens|No such agent: |error: (?:unexpected argument|invalid value|a value is required|unrecognized))/m;

/** Decide what a finished copilot run means. Exported for unit tests. */
export function classifyCopilotExit(
  code: number | null,
  signal: string | null,
  stdout: string,
  stderr: string,
  declared: DeclaredIdentity,
): DispatchOutcome {
  if (code === 0 && stdout.trim()) return { kind: "output", text: stdout, reportedModel: null, declared };
  const said = `${stderr}\n${stdout}`;
  if (code !== null && code !== 0) {
    const capability = capabilityError(said);
    if (capability) return { kind: "not-run", capability, reason: `copilot refused the request (exit ${code}): ${tail(said)}`, declared };
    if (PRE_REQUEST_RE.test(said))
      return { kind: "not-run", reason: `copilot stopped before sending any request (exit ${code}): ${tail(said)}`, declared };
  }
  return {
    kind: "ambiguous",
    reason: `copilot exited ${code ?? signal}${code === 0 ? " without an answer" : ""}: ${tail(said)}`,
    declared,
  };
}

export const copilotAdapter: ReviewerAdapter = {
  async dispatch(input: DispatchInput): Promise<DispatchOutcome> {
    const { config, providerId } = input;
    const profile = await retryOnSystemFault(async () => resolveProfile(input)).catch((error: Error) => ({
      ok: false as const,
      reason: `the custom agent profile cannot be read now: ${error.message}`,
    }));
    if (!profile.ok) return { kind: "not-run", reason: `provider ${providerId}: ${profile.reason}` };
    const { chosen } = profile;
    const declared: DeclaredIdentity = { model: chosen.model, profile: chosen.profile };
    const key = providerKey(input, { apiKey: "COPILOT_GITHUB_TOKEN" }); // copilot takes no base_url
    if (!key.ok) return { ...key.notRun, declared };
    const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const binary = resolveBinary(config.binary ?? "copilot", input.project.root);
    return withScratch("copilot", async (scratch) => {
      const env = childEnv(input, {
        defaults: COPILOT_ENV_DEFAULTS,
        pass: ["COPILOT_HOME"],
        scratch,
        own: key.env,
      });
      const help = await cliHelp(binary, env, scratch, input.signal);
      if (!help.ok) return { kind: "not-run", reason: help.reason, declared };
      const check = copilotHelpCheck(help.text, config.effort);
      if ("refused" in check)
        return { kind: "not-run", reason: check.refused, ...(check.capability ? { capability: check.capability } : {}), declared };
      const agents = path.join(scratch, ".github", "agents");
      mkdirSync(agents, { recursive: true });
      writeFileSync(path.join(agents, `${chosen.profile}.agent.md`), chosen.text);
      const packetFile = path.join(scratch, "packet.md");
      writeFileSync(packetFile, input.prompt);
      const argv = copilotArgv(binary, {
        profile: chosen.profile,
        model: chosen.model,
        effortFlag: check.flag,
        effort: config.effort,
        packetFile,
        configDir: scratch,
        extraArgs: config.extra_args,
      });
      const outcome = await runChild({ argv, stdin: "", timeoutMs, env, cwd: dispatchWorkdir(input) ?? scratch, signal: input.signal });
      if (outcome.kind !== "exit") return { ...unfinishedChild(outcome, "copilot", binary, timeoutMs), declared };
      return classifyCopilotExit(outcome.code, outcome.signal, outcome.stdout, outcome.stderr, declared);
    });
  },
};
