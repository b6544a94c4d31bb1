// The codex adapter: one `codex exec` per dispatch, non-interactive, read-only sandbox, in an empty scratch directory
// (so no project AGENTS.md reaches the reviewer's prompt) with a scratch CODEX_HOME (codex's state goes away with
// it), the packet on stdin, the final message constrained by a JSON Schema of review_result.v1 and written to a file,
// and the JSONL event stream parsed for what codex reports.
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
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

/** The argv for one dispatch (no packet content: the packet goes on stdin, read by codex through "-"). */
export function codexArgv(input: Pick<DispatchInput, "config">, files: { schema: string; lastMessage: string }): string[] {
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
  if (config.base_url || config.api_key_env) {
    // A provider of our own, so the endpoint, the key variable and "no retries" (one request per dispatch) are ours.
    const fields = [
      `name=${toml("guild-bus")}`,
      `base_url=${toml(config.base_url ?? OPENAI_BASE_URL)}`,
      `wire_api=${toml("responses")}`,
      ...(config.api_key_env ? [`env_key=${toml(config.api_key_env)}`] : []),
      "request_max_retries=0",
      "stream_max_retries=0",
    ];
    argv.push("-c", `model_provider=${toml(CODEX_PROVIDER_ID)}`, "-c", `model_providers.${CODEX_PROVIDER_ID}={${fields.join(",")}}`);
  }
  argv.push(...(config.extra_args ?? []), "-");
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
        const argv = codexArgv({ config: { ...input.config, binary } }, files);
        const outcome = await runChild({
          argv,
          stdin: input.prompt,
          timeoutMs,
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
