// The codex adapter: one `codex exec` per dispatch, non-interactive, read-only sandbox, in an empty scratch directory
// (so no project AGENTS.md reaches the reviewer's prompt) with a scratch CODEX_HOME (codex's state goes away with
// it), the packet on stdin, the final message constrained by a JSON Schema of review_result.v1 and written to a file,
// and the JSONL event stream parsed for what codex reports.
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { ReadRefused, readTextBounded } from "../bus/read-bounded.js";
import { retryOnSystemFault } from "../bus/system-fault.js";
import { capabilityError } from "./capability-errors.js";
import {
  DEFAULT_TIMEOUT_MS,
  dispatchWorkdir,
  MAX_OUTPUT_BYTES,
  oversized,
  resolveBinary,
  runChild,
  scratchStateDir,
  tail,
  unfinishedChild,
  withScratch,
} from "./child.js";
import { providerEndpoint } from "./endpoint.js";
import { childEnv } from "./environment.js";
import { provesNotSent } from "./not-sent.js";
import { reviewOutputSchema } from "./result-schema.js";
import type { DispatchInput, ReviewerAdapter } from "./types.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";

/**
 * What a dispatch's scratch CODEX_HOME links from the user's: the login (auth.json, which detection counts, and where
 * a refreshed token must land) and config.toml (the user's providers and profiles when settings name no endpoint).
 * Not the user's global AGENTS.md, skills, sessions or databases.
 */
const CODEX_USER_FILES = ["auth.json", "config.toml"] as const;

/** The user's CODEX_HOME: $CODEX_HOME, else ~/.codex (as codex and detection resolve it). */
function codexUserHome(): string {
  return process.env.CODEX_HOME || path.join(homedir(), ".codex");
}

/** The custom model_provider id the adapter defines when a provider has base_url or api_key_env. */
const CODEX_PROVIDER_ID = "guild_bus";
const OPENAI_BASE_URL = "https://api.openai.com/v1";

const toml = (s: string) => JSON.stringify(s); // a JSON string is a valid TOML basic string

/** codex's default model provider, one of its built-ins, which refuse any setting (their retries included). */
const OPENAI_BUILTIN = "openai";
/** A model_providers id that a dotted -c key can name. */
const BARE_KEY_RE = /^[A-Za-z0-9_-]+$/;
/** extra_args that would choose codex's model provider after the adapter did. */
const PROVIDER_ARG_RE = /^(?:--profile|-p|--oss|--local-provider)(?:=|$)|^(?:model_providers?|profile)\b/;

/**
 * The -c arguments that choose the model provider a dispatch runs on and turn its retries off: one request per
 * dispatch (by default codex sends the packet again after a 5xx or a dropped stream, up to 4 + 5 times). With
 * base_url or api_key_env, a provider of the adapter's own. Otherwise the one the user's config.toml selects (its
 * `profile`'s model_provider, else model_provider, else codex's built-in "openai"): a provider the user defined takes
 * the retry settings; the built-in "openai", which takes no settings, is replaced by an equivalent of the adapter's own
 * (the same login and endpoint choice: api.openai.com, or ChatGPT's backend for a ChatGPT login); any other built-in
 * (ollama, lmstudio, amazon-bedrock) is refused.
 */
export function codexProviderArgs(
  config: DispatchInput["config"],
  userConfig: string | null,
): { ok: true; args: string[] } | { ok: false; reason: string } {
  const refused = (why: string) => ({ ok: false as const, reason: `codex: ${why}` });
  if ((config.extra_args ?? []).some((a) => PROVIDER_ARG_RE.test(a)))
    return refused(
      "extra_args choose the model provider, whose retries the adapter then cannot turn off; choose it in config.toml or settings",
    );
  let user: Record<string, unknown>;
  try {
    user = userConfig === null ? {} : parseToml(userConfig);
  } catch (error) {
    return refused(`the user's config.toml does not parse (${(error as Error).message.split("\n")[0]})`);
  }
  const active = typeof user.profile === "string" ? user.profile : null;
  const profile = active ? (user.profiles as Record<string, { model_provider?: unknown } | undefined> | undefined)?.[active] : undefined;
  // the active profile's model_provider outranks the top-level one: an own provider is pinned there too
  const profilePin = profile?.model_provider !== undefined ? active! : null;
  if (profilePin !== null && !BARE_KEY_RE.test(profilePin))
    return refused(`the profile ${toml(profilePin)} cannot be given settings on the command line; rename it`);
  const pin = (id: string) => [
    "-c",
    `model_provider=${toml(id)}`,
    ...(profilePin ? ["-c", `profiles.${profilePin}.model_provider=${toml(id)}`] : []),
  ];
  const own = (fields: string[]) => {
    const all = [...fields, `wire_api=${toml("responses")}`, "request_max_retries=0", "stream_max_retries=0"];
    return [...pin(CODEX_PROVIDER_ID), "-c", `model_providers.${CODEX_PROVIDER_ID}={${all.join(",")}}`];
  };
  if (config.base_url || config.api_key_env) {
    return {
      ok: true,
      args: own([
        `name=${toml("guild-bus")}`,
        `base_url=${toml(config.base_url ?? OPENAI_BASE_URL)}`,
        ...(config.api_key_env ? [`env_key=${toml(config.api_key_env)}`] : []),
      ]),
    };
  }
  const id = profile?.model_provider ?? user.model_provider ?? OPENAI_BUILTIN;
  if (typeof id !== "string") return refused("the user's config.toml names a model_provider that is not a string");
  const defined = user.model_providers && typeof user.model_providers === "object" && Object.hasOwn(user.model_providers, id);
  if (defined) {
    if (!BARE_KEY_RE.test(id)) return refused(`the model provider id ${toml(id)} cannot be given settings on the command line; rename it`);
    return { ok: true, args: ["-c", `model_providers.${id}.request_max_retries=0`, "-c", `model_providers.${id}.stream_max_retries=0`] };
  }
  if (id === OPENAI_BUILTIN) {
    const baseUrl = typeof user.openai_base_url === "string" ? [`base_url=${toml(user.openai_base_url)}`] : [];
    return { ok: true, args: own([`name=${toml("OpenAI")}`, ...baseUrl, "requires_openai_auth=true"]) };
  }
  return refused(
    `the model provider ${toml(id)} is one of codex's built-ins, whose retries cannot be turned off (each would send the ` +
      "packet again); define it under [model_providers] in config.toml with an id of its own, or set base_url in settings",
  );
}

/** The argv for one dispatch (no packet content: the packet goes on stdin, read by codex through "-"). */
export function codexArgv(
  input: Pick<DispatchInput, "config">,
  files: { schema: string; lastMessage: string },
  provider: readonly string[] = [],
): string[] {
  const { config } = input;
  const argv = [
    config.binary ?? "codex",
    "exec",
    "--json",
    "--color",
    "never",
    "--sandbox",
    "read-only",
    "--skip-git-repo-check",
    "--ephemeral",
    "--output-schema",
    files.schema,
    "--output-last-message",
    files.lastMessage,
    // Nothing of the repository becomes the reviewer's instructions (at nightmare the cwd is the project the author
    // wrote): no AGENTS.md, and no skills from .agents/ or .codex/ listed in its developer message.
    "-c",
    "project_doc_max_bytes=0",
    "-c",
    "skills.include_instructions=false",
    // A reviewer reads and answers: no web search (queries built from the packet), no sub-agents (more paid requests
    // than the one dispatch), no goals.
    "-c",
    `web_search=${toml("disabled")}`,
    "-c",
    "features.multi_agent=false",
    "-c",
    "features.goals=false",
    // codex snapshots the shell environment, the key variable included, into $CODEX_HOME/shell_snapshots/*.sh (mode
    // 0644) and deletes it only on a normal exit: a killed dispatch would leave the key on disk.
    "-c",
    "features.shell_snapshot=false",
  ];
  if (config.model) argv.push("--model", config.model);
  // explicit on every call: the catalog default effort may be far below a review's floor
  if (config.effort) argv.push("-c", `model_reasoning_effort=${toml(config.effort)}`);
  argv.push(...provider, ...(config.extra_args ?? []), "-");
  return argv;
}

interface CodexEvents {
  turnStarted: boolean;
  turnCompleted: boolean;
  turnFailed: string | null;
  /** Completed items other than error notices (messages, reasoning, commands): signs that a model answered. */
  workItems: number;
  lastAgentMessage: string | null;
  reroutedTo: string | null;
  errors: string[];
  /** How many of `errors` came before the turn started (warnings: codex sends nothing to a model before a turn). */
  errorsBeforeTurn: number;
}

const REROUTE_RE = /^model rerouted: (.+?) -> (\S+)/;

function parseCodexEvents(stdout: string): CodexEvents {
  const ev: CodexEvents = {
    turnStarted: false,
    turnCompleted: false,
    turnFailed: null,
    workItems: 0,
    lastAgentMessage: null,
    reroutedTo: null,
    errors: [],
    errorsBeforeTurn: 0,
  };
  for (const line of stdout.split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    let e: {
      type?: unknown;
      item?: { type?: unknown; text?: unknown; message?: unknown };
      message?: unknown;
      error?: { message?: unknown };
    };
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    switch (e.type) {
      case "turn.started":
        if (!ev.turnStarted) ev.errorsBeforeTurn = ev.errors.length;
        ev.turnStarted = true;
        break;
      case "turn.completed":
        ev.turnCompleted = true;
        break;
      case "turn.failed":
        ev.turnFailed = typeof e.error?.message === "string" ? e.error.message : "turn failed";
        break;
      case "error":
        if (typeof e.message === "string") ev.errors.push(e.message);
        break;
      case "item.completed": {
        const item = e.item ?? {};
        if (item.type === "error") {
          const m = typeof item.message === "string" ? REROUTE_RE.exec(item.message) : null;
          if (m) ev.reroutedTo = m[2]!;
          else if (typeof item.message === "string") ev.errors.push(item.message);
        } else {
          ev.workItems++;
          if (item.type === "agent_message" && typeof item.text === "string") ev.lastAgentMessage = item.text;
        }
        break;
      }
    }
  }
  return ev;
}

/** The message of a JSONL `error` event, else null. */
function errorEventMessage(line: string): string | null {
  if (!line.includes('"error"')) return null;
  try {
    const e = JSON.parse(line) as { type?: unknown; message?: unknown };
    return e.type === "error" && typeof e.message === "string" ? e.message : null;
  } catch {
    return null;
  }
}

/** The user's config.toml (which the scratch CODEX_HOME links), or null when there is none to read. */
function userConfigToml(): string | null {
  try {
    return readTextBounded(path.join(codexUserHome(), "config.toml"), { max: 1024 * 1024 });
  } catch {
    return null;
  }
}

/** Failures codex reports before it sends a request (no key); any server status counts as sent (ambiguous). */
const PRE_GENERATION_RE = /^Missing environment variable/;

export const codexAdapter: ReviewerAdapter = {
  async dispatch(input: DispatchInput): Promise<DispatchOutcome> {
    const { config } = input;
    const endpoint = providerEndpoint(input); // base_url goes on argv
    if (!endpoint.ok) return endpoint.notRun;
    const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    // Two scratch directories, both removed whatever happens: the cwd (schema, last message) and a CODEX_HOME of its
    // own for codex's state (sqlite databases, logs, snapshots), linking the user's login and config.
    return withScratch("codex", (scratch) =>
      withScratch("codex-home", async (codexHome) => {
        scratchStateDir(codexHome, codexUserHome(), CODEX_USER_FILES);
        const files = { schema: path.join(scratch, "review_result.v1.schema.json"), lastMessage: path.join(scratch, "last-message.txt") };
        writeFileSync(files.schema, JSON.stringify(reviewOutputSchema(), null, 2));
        // a relative binary is the project root's, as every adapter and the probe take it (codex runs in a scratch dir)
        const binary = resolveBinary(input.config.binary ?? "codex", input.project.root);
        const provider = codexProviderArgs(config, userConfigToml());
        if (!provider.ok) return { kind: "not-run", reason: provider.reason };
        const argv = codexArgv({ config: { ...input.config, binary } }, files, provider.args);
        const outcome = await runChild({
          argv,
          stdin: input.prompt,
          timeoutMs,
          // a connection that was never made leaves codex waiting for the network until the timeout: its first word
          // of it is enough (SPEC §15)
          stopAfter: (line) => provesNotSent("codex", errorEventMessage(line) ?? ""),
          // codex reads the key variable itself (env_key)
          env: childEnv(input, { pass: config.api_key_env ? [config.api_key_env] : [], own: { CODEX_HOME: codexHome } }),
          cwd: dispatchWorkdir(input) ?? scratch, // nightmare: the repository itself, still in the read-only sandbox
          signal: input.signal,
        });
        if (outcome.kind !== "exit") return unfinishedChild(outcome, "codex", argv[0]!, timeoutMs);
        const ev = parseCodexEvents(outcome.stdout);
        if (outcome.code === 0) {
          let text = "";
          try {
            // the answer is paid for: a read the system failed (EMFILE, EIO) is tried again before it counts
            text = await retryOnSystemFault(async () => readTextBounded(files.lastMessage, { max: MAX_OUTPUT_BYTES }));
          } catch (error) {
            const kind = error instanceof ReadRefused ? error.kind : "unreadable";
            if (kind === "too-large") return oversized(MAX_OUTPUT_BYTES);
            // no last-message file: fall back to the event stream; anything else there is not codex's answer
            if (kind !== "missing")
              return { kind: "ambiguous", reason: `codex's last-message file was refused: ${(error as Error).message}` };
          }
          if (!text.trim() && ev.lastAgentMessage) text = ev.lastAgentMessage;
          if (!text.trim() && !ev.turnCompleted)
            return { kind: "ambiguous", reason: `codex exited 0 without completing a turn: ${tail(outcome.stderr)}` };
          return { kind: "output", text, reportedModel: ev.reroutedTo };
        }
        const said = ev.turnFailed ?? ev.errors.at(-1) ?? tail(outcome.stderr);
        // The turn met only connections that were never made, and nothing else: nothing was sent.
        const inTurn = [...ev.errors.slice(ev.errorsBeforeTurn), ...(ev.turnFailed ? [ev.turnFailed] : [])];
        if (ev.turnStarted && ev.workItems === 0 && inTurn.length && inTurn.every((m) => provesNotSent("codex", m)))
          return { kind: "not-run", reason: `codex could not connect, nothing was sent: ${tail(inTurn.at(-1)!)}` };
        if (outcome.code !== null && !ev.turnStarted) {
          // codex sends nothing to a model before it starts a turn (argument, config or login errors end here).
          const capability = capabilityError(said);
          return {
            kind: "not-run",
            reason: `codex exited ${outcome.code} before starting a turn: ${tail(said)}`,
            ...(capability ? { capability } : {}),
          };
        }
        if (ev.turnFailed && ev.workItems === 0 && PRE_GENERATION_RE.test(ev.turnFailed)) {
          return { kind: "not-run", reason: `codex: ${tail(ev.turnFailed)} (refused before any generation)` };
        }
        // The endpoint refused the request itself, naming the effort or the model: nothing was generated.
        const capability = ev.turnFailed && ev.workItems === 0 ? capabilityError(ev.turnFailed) : undefined;
        if (capability) return { kind: "not-run", capability, reason: `codex: ${tail(ev.turnFailed!)} (refused before any generation)` };
        return { kind: "ambiguous", reason: `codex exited ${outcome.code ?? outcome.signal}: ${tail(said)}` };
      }),
    );
  },
};
