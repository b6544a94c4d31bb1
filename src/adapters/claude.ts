// The claude adapter: one `claude -p` (print mode) per dispatch, the packet on stdin, read-only tools, no project or
// local settings, CLAUDE.md, hooks or MCP servers (so nothing the author wrote into the project configures the
// reviewer), in an empty scratch directory — or, for a nightmare packet, the project root, which its read-only tools
// may then read — and the stream-json event stream parsed for the final text and the model the API reported.
import { capabilityError } from "./capability-errors.js";
import { DEFAULT_TIMEOUT_MS, dispatchWorkdir, resolveBinary, runChild, tail, unfinishedChild, withScratch } from "./child.js";
import { providerEndpoint } from "./endpoint.js";
import { childEnv } from "./environment.js";
import { provesNotSent } from "./not-sent.js";
import { advertisedValues, cliHelp } from "./help.js";
import type { DispatchInput, ReviewerAdapter } from "./types.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";

/** Built-in tools the reviewer may use: reading only (confined to its working directory by `dontAsk`). */
const CLAUDE_TOOLS = ["Read", "Grep", "Glob"];
/** Denied outright as well, in case a user setting or a later CLI version adds them back. */
const CLAUDE_DENIED_TOOLS = ["Bash", "Edit", "Write", "NotebookEdit", "WebFetch", "WebSearch"];

/**
 * Defaults for the child's environment: no auto-update, telemetry, error reporting or other non-essential traffic,
 * and none of the CLI's own resends, each of which would send the packet again: no API retries, no non-streaming
 * retry of a failed stream, no retry of a refusal and no switch to another model after one. A variable of the same
 * name passed through the allow-list (secrets_policy.env_allowlist or the provider's `env`) wins.
 */
const CLAUDE_ENV_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  CLAUDE_CODE_MAX_RETRIES: "0",
  CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK: "1",
  CLAUDE_CODE_DISABLE_REFUSAL_RETRY: "1",
  CLAUDE_CODE_DISABLE_REFUSAL_FALLBACK: "1",
});

/** The argv for one dispatch. Nothing of the packet or the artifact: the packet goes on stdin. */
export function claudeArgv(config: DispatchInput["config"], binary = config.binary ?? "claude"): string[] {
  return [
    binary,
    "-p",
    "--output-format",
    "stream-json",
    "--verbose", // required by stream-json in print mode; the events carry the model the API reported
    "--tools",
    CLAUDE_TOOLS.join(","),
    "--disallowedTools",
    CLAUDE_DENIED_TOOLS.join(","),
    "--permission-mode",
    "dontAsk", // anything not pre-approved (edits, reads outside the scratch dir) is denied
    "--setting-sources",
    "user", // no project/local settings (hooks, env, permissions) and no project CLAUDE.md
    "--strict-mcp-config", // no MCP servers from .mcp.json or settings
    "--no-session-persistence",
    ...(config.model ? ["--model", config.model] : []),
    ...(config.effort ? ["--effort", config.effort] : []),
    ...(config.extra_args ?? []),
  ];
}

/**
 * Whether this claude CLI takes the effort: it warns about an unknown --effort value and runs at its default effort
 * instead, so the value is checked against the levels its --help lists (2.1.332: low, medium, high, xhigh, max).
 */
export function claudeEffortRefusal(help: string, effort: string): string | null {
  const levels = advertisedValues(help, "--effort");
  if (levels === null) return "this claude CLI has no --effort flag";
  if (levels.length && !levels.includes(effort)) return `claude --effort takes ${levels.join(", ")}, not ${effort}`;
  return null;
}

interface ClaudeEvents {
  /** The last `result` event, when the CLI finished its turn loop. */
  result: {
    isError: boolean;
    text: string | null;
    apiErrorStatus: number | null;
    subtype: string | null;
    durationApiMs: number | null;
  } | null;
  /** Models named by assistant messages that came from the API (not the CLI's own "<synthetic>" error messages). */
  models: string[];
  /** Assistant messages the CLI made up itself (errors it reports as if they were model output). */
  syntheticMessages: number;
}

const SYNTHETIC = "<synthetic>";

function parseClaudeEvents(stdout: string): ClaudeEvents {
  const ev: ClaudeEvents = { result: null, models: [], syntheticMessages: 0 };
  for (const line of stdout.split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (e.type === "assistant") {
      const model = (e.message as { model?: unknown } | undefined)?.model;
      if (model === SYNTHETIC) ev.syntheticMessages++;
      else if (typeof model === "string" && model.trim() && !ev.models.includes(model.trim())) ev.models.push(model.trim());
    } else if (e.type === "result") {
      ev.result = {
        isError: e.is_error === true,
        text: typeof e.result === "string" ? e.result : null,
        apiErrorStatus: typeof e.api_error_status === "number" ? e.api_error_status : null,
        subtype: typeof e.subtype === "string" ? e.subtype : null,
        durationApiMs: typeof e.duration_api_ms === "number" ? e.duration_api_ms : null,
      };
    }
  }
  return ev;
}

/** What the CLI says when it has no credentials: it stops before building any request. */
const NOT_LOGGED_IN_RE = /^(?:Not logged in|Invalid API key)\b.*(?:\/login|log in)/i;
/** Commander rejecting the argv (an extra_args typo, a flag this CLI version lacks): nothing ran. */
const USAGE_ERROR_RE =
  /^error: (?:unknown option|option '[^']*' argument|required option|missing required argument|too many arguments|unknown command)/m;

/** Decide what a finished `claude -p` run means. Exported for unit tests. */
export function classifyClaudeExit(code: number | null, signal: string | null, stdout: string, stderr: string): DispatchOutcome {
  const ev = parseClaudeEvents(stdout);
  const r = ev.result;
  if (r && !r.isError && code === 0 && r.text !== null) {
    return { kind: "output", text: r.text, reportedModel: ev.models.length ? ev.models.join(", ") : null };
  }
  if (
    r?.isError &&
    r.apiErrorStatus === null &&
    ev.models.length === 0 &&
    !r.durationApiMs &&
    r.text &&
    NOT_LOGGED_IN_RE.test(r.text.trim())
  ) {
    return { kind: "not-run", reason: `claude reported before sending any request: ${tail(r.text)}` };
  }
  // Its connection was never made (refused, unknown host), and no model message came back from an earlier request.
  if (r?.isError && r.apiErrorStatus === null && ev.models.length === 0 && r.text && provesNotSent("claude", r.text)) {
    return { kind: "not-run", reason: `claude could not connect, nothing was sent: ${tail(r.text)}` };
  }
  if (!r && !stdout.trim() && code !== null && code !== 0 && USAGE_ERROR_RE.test(stderr)) {
    return { kind: "not-run", reason: `claude rejected its arguments (exit ${code}): ${tail(stderr)}` };
  }
  // The API refused the request itself (400/404) naming the effort or the model, and no model message came back.
  const capability =
    r?.isError && (r.apiErrorStatus === 400 || r.apiErrorStatus === 404) && ev.models.length === 0 && r.text
      ? capabilityError(r.text)
      : undefined;
  if (capability)
    return { kind: "not-run", capability, reason: `claude: the API refused the request (status ${r!.apiErrorStatus}): ${tail(r!.text!)}` };
  if (r?.isError) {
    // an error result whose turn loop ended on its own is subtype "success": only another subtype says more
    const what =
      r.apiErrorStatus !== null ? `API status ${r.apiErrorStatus}, ` : r.subtype && r.subtype !== "success" ? `${r.subtype}, ` : "";
    return { kind: "ambiguous", reason: `claude reported an error (${what}exit ${code ?? signal}): ${tail(r.text ?? stderr)}` };
  }
  if (r && code === 0) return { kind: "ambiguous", reason: `claude finished without a final text (${r.subtype ?? "no subtype"})` };
  return { kind: "ambiguous", reason: `claude exited ${code ?? signal} without a result: ${tail(stderr || stdout)}` };
}

export const claudeAdapter: ReviewerAdapter = {
  async dispatch(input: DispatchInput): Promise<DispatchOutcome> {
    const { config } = input;
    const endpoint = providerEndpoint(input, { baseUrl: "ANTHROPIC_BASE_URL", apiKey: "ANTHROPIC_API_KEY" });
    if (!endpoint.ok) return endpoint.notRun;
    const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const argv = claudeArgv(config, resolveBinary(config.binary ?? "claude", input.project.root));
    return withScratch("claude", async (scratch) => {
      const workdir = dispatchWorkdir(input) ?? scratch;
      const env = childEnv(input, { defaults: CLAUDE_ENV_DEFAULTS, scratch, own: endpoint.env });
      if (config.effort) {
        const help = await cliHelp(argv[0]!, env, scratch, input.signal);
        if (!help.ok) return { kind: "not-run", reason: help.reason };
        const refused = claudeEffortRefusal(help.text, config.effort);
        if (refused) return { kind: "not-run", capability: "effort_unsupported", reason: refused };
      }
      const outcome = await runChild({ argv, stdin: input.prompt, timeoutMs, env, cwd: workdir, signal: input.signal });
      if (outcome.kind !== "exit") return unfinishedChild(outcome, "claude", argv[0]!, timeoutMs);
      return classifyClaudeExit(outcome.code, outcome.signal, outcome.stdout, outcome.stderr);
    });
  },
};
