// The gemini adapter: one headless `gemini -p ""` per dispatch (the packet on stdin, to which the empty -p prompt is
// appended), `--approval-mode default` (headless, that leaves read-only tools: shell and file writes are not even
// registered), in an empty scratch directory (no project GEMINI.md, .gemini/settings.json, MCP servers or hooks reach
// the reviewer; a nightmare packet adds the project root as an --include-directories workspace its read-only tools may
// read, unless the project holds a GEMINI.md, which gemini would take as instructions), with a scratch HOME of its own
// (gemini keeps every session, the packet included, under ~/.gemini), and the JSON report parsed for the final text and
// the model(s) the API reported.
import { mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { readTextBounded } from "../bus/read-bounded.js";
import { isSystemFault } from "../bus/system-fault.js";
import { homedir } from "node:os";
import path from "node:path";
import { capabilityError } from "./capability-errors.js";
import {
  DEFAULT_TIMEOUT_MS,
  dispatchWorkdir,
  resolveBinary,
  runChild,
  scratchStateDir,
  tail,
  unfinishedChild,
  withScratch,
} from "./child.js";
import { providerEndpoint } from "./endpoint.js";
import { childEnv } from "./environment.js";
import { textOf } from "../core/text-of.js";
import type { DispatchInput, ReviewerAdapter } from "./types.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";

/**
 * Defaults for the child's environment; an allow-listed variable of the same name wins. The scratch directory is the
 * whole workspace, so trusting it is safe (headless gemini refuses to run in an untrusted folder), and relaunching
 * itself in a second node process buys nothing here.
 */
const GEMINI_ENV_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
  GEMINI_CLI_TRUST_WORKSPACE: "true",
  GEMINI_CLI_NO_RELAUNCH: "true",
  NO_COLOR: "1",
});

/**
 * The scratch workspace's .gemini/settings.json, which outranks the user's settings: one attempt per dispatch (a
 * retry would send the packet again), no usage statistics, no context file names but GEMINI.md (replacing any the
 * user added, such as AGENTS.md, with a name no repository has) and no boundary markers (the search for GEMINI.md
 * stops at the project root instead of climbing to a git root above it), so geminiContextFiles() knows what loads;
 * and an allow-list of reading tools. With an endpoint or key from settings, the API-key auth type: without a
 * selected type gemini 0.61 takes GOOGLE_GEMINI_BASE_URL for a "gateway" and exits 41 before sending anything. With a
 * telemetry file, local telemetry (a file, nothing sent, no prompts): the only place gemini says how an answer ended.
 */
function geminiWorkspaceSettings(scratch: string, apiKeyAuth = false, telemetryFile?: string): object {
  return {
    general: { maxAttempts: 1 },
    privacy: { usageStatisticsEnabled: false },
    ...(telemetryFile ? { telemetry: { enabled: true, target: "local", outfile: telemetryFile, logPrompts: false } } : {}),
    context: { fileName: [`guild-bus-no-context-${path.basename(scratch)}.md`], memoryBoundaryMarkers: [] },
    tools: { core: [...GEMINI_TOOLS] },
    ...(apiKeyAuth ? { security: { auth: { selectedType: GEMINI_API_KEY_AUTH } } } : {}),
  };
}

/** gemini's AuthType.USE_GEMINI (security.auth.selectedType in its settings schema). */
const GEMINI_API_KEY_AUTH = "gemini-api-key";

/**
 * What a dispatch's scratch home links from the user's gemini directory: the user settings (the auth type an OAuth
 * user selected, model settings) and the OAuth login that detection counts as an auth signal. Nothing else: chats,
 * history and projects.json go to the scratch home and away with it, and the user's global GEMINI.md, extensions and
 * commands do not configure the reviewer.
 */
const GEMINI_USER_FILES = ["settings.json", "oauth_creds.json"] as const;

/** The user's gemini directory: $GEMINI_CLI_HOME/.gemini, else ~/.gemini (as gemini resolves it). */
function geminiUserDir(): string {
  return path.join(process.env.GEMINI_CLI_HOME || homedir(), ".gemini");
}

/** Built-in tools the reviewer may use: reading only (no web search, sub-agents or plan mode; writes are not registered). */
export const GEMINI_TOOLS = ["read_file", "list_directory", "glob", "grep_search"] as const;

/** The context file gemini always loads as instructions (a context.fileName setting adds names, never removes it). */
const GEMINI_CONTEXT_FILE = "GEMINI.md";

/** Directory entries looked at before giving up: past it a project is refused rather than half checked. */
const GEMINI_SCAN_LIMIT = 200_000;

/**
 * The project's GEMINI.md files, which a gemini reviewer would take as its own instructions at nightmare (the one at
 * the root at start, one in a subdirectory when a file in or below it is read; the workspace settings keep the search
 * from climbing above the project root). The author wrote them, so a nightmare dispatch with any is refused. null:
 * more than `limit` entries, not fully checked. Not looked into: .git, and .guild (the bus's own files).
 */
export function geminiContextFiles(root: string, limit = GEMINI_SCAN_LIMIT): string[] | null {
  const found: string[] = [];
  const pending = [root];
  const visited = new Set([realpathOr(root)]);
  let seen = 0;
  while (pending.length && found.length < 5) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if (isSystemFault(error)) return null; // not listed is not checked: refused like a tree past the limit
      continue; // unreadable to anyone (EACCES): gemini cannot read a GEMINI.md there either
    }
    if ((seen += entries.length) > limit) return null;
    for (const e of entries) {
      const at = path.join(dir, e.name);
      if (e.isDirectory() || (e.isSymbolicLink() && linksToDirectory(at))) {
        // a linked directory is read through its link (pnpm's node_modules): looked into once, wherever it points
        const real = realpathOr(at);
        if (!(dir === root && (e.name === ".git" || e.name === ".guild")) && !visited.has(real)) {
          visited.add(real);
          pending.push(at);
        }
      } else if (e.name === GEMINI_CONTEXT_FILE) found.push(at);
    }
  }
  return found;
}

function linksToDirectory(link: string): boolean {
  try {
    return statSync(link).isDirectory();
  } catch {
    return false; // a dangling link reads as nothing
  }
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** The argv for one dispatch. Nothing of the packet or the artifact: the packet goes on stdin. */
export function geminiArgv(config: DispatchInput["config"], binary = config.binary ?? "gemini", readDir: string | null = null): string[] {
  return [
    binary,
    "--prompt",
    "", // headless; the prompt is stdin (+ this empty string)
    "--output-format",
    "json",
    "--approval-mode",
    "default", // never yolo/auto_edit; headless "default" denies anything that needs approval
    ...(config.model ? ["--model", config.model] : []),
    // Not the cwd: a trusted cwd would load the project's .gemini/settings.json (MCP servers, hooks). Note that the
    // CLI still reads GEMINI.md context files from an included directory.
    ...(readDir ? ["--include-directories", readDir] : []),
    ...(config.extra_args ?? []),
  ];
}

/**
 * gemini's fatal exit codes that end the process before it sends anything to a model: authentication not configured
 * (41), bad input (42), sandbox (44), configuration (52), untrusted workspace (55). An API error exits with its HTTP
 * status (mod 256), a turn limit with 53 and a tool failure with 54: those came after a request.
 */
const PRE_REQUEST_EXITS = new Map<number, string>([
  [41, "authentication error"],
  [42, "input error"],
  [44, "sandbox error"],
  [52, "configuration error"],
  [55, "untrusted workspace"],
]);

interface GeminiReport {
  response?: unknown;
  error?: { type?: unknown; message?: unknown; code?: unknown } | null;
  /** Errors the run went on after, or that stopped the model (a loop it detected): the response is what came before. */
  warnings?: unknown;
  stats?: { models?: Record<string, { roles?: Record<string, unknown> } | undefined> };
}

/** The JSON object gemini printed (it may be preceded by stray lines). */
function parseReport(text: string): GeminiReport | null {
  const trimmed = text.trim();
  for (const start of [0, trimmed.indexOf("\n{") + 1]) {
    const candidate = trimmed.slice(start);
    if (!candidate.startsWith("{")) continue;
    try {
      const v = JSON.parse(candidate);
      if (v && typeof v === "object" && !Array.isArray(v)) return v as GeminiReport;
    } catch {
      // try the next candidate
    }
  }
  return null;
}

/** Models the API reported for the main conversation (stats.models is keyed by the response's modelVersion). */
function geminiReportedModels(report: GeminiReport): string[] {
  const models = Object.entries(report.stats?.models ?? {});
  const main = models.filter(([, m]) => m?.roles && Object.hasOwn(m.roles, "main")).map(([name]) => name);
  // Without role information every model counts (a utility router model would then show up as well).
  return main.length ? main : models.map(([name]) => name);
}

/** The most of gemini's telemetry file that is read (a record per event, about 100 KiB per model turn). */
const MAX_TELEMETRY_BYTES = 16 * 1024 * 1024;

/**
 * The first finish reason of a main-conversation API response that is not the model's own end ("stop"), from gemini's
 * local telemetry file (pretty-printed records, one after another, each opening and closing in the first column):
 * MAX_TOKENS is "length", SAFETY and other blocks "content_filter", a malformed call "error". null when every response
 * ended, or when the file says nothing (absent, too large, unreadable).
 */
export function unendedFinish(telemetry: string): string | null {
  let record: string[] | null = null;
  for (const line of telemetry.split("\n")) {
    if (line === "{") record = [line];
    else if (record) {
      record.push(line);
      if (line !== "}") continue;
      const reason = finishOf(record.join("\n"));
      record = null;
      if (reason !== null) return reason;
    }
  }
  return null;
}

function finishOf(text: string): string | null {
  let attributes: { "event.name"?: unknown; role?: unknown; finish_reasons?: unknown } | undefined;
  try {
    attributes = (JSON.parse(text) as { attributes?: typeof attributes } | null)?.attributes;
  } catch {
    return null;
  }
  if (attributes?.["event.name"] !== "gemini_cli.api_response" || (attributes.role ?? "main") !== "main") return null;
  const reasons = Array.isArray(attributes.finish_reasons) ? attributes.finish_reasons : [];
  const unended = reasons.find((r) => r !== "stop");
  return unended === undefined ? null : String(unended);
}

function readTelemetry(file: string): string {
  try {
    return readTextBounded(file, { max: MAX_TELEMETRY_BYTES });
  } catch {
    return "";
  }
}

/** Decide what a finished gemini run means. Exported for unit tests. */
export function classifyGeminiExit(code: number | null, signal: string | null, stdout: string, stderr: string): DispatchOutcome {
  const report = parseReport(stdout);
  if (code === 0 && report && typeof report.response === "string" && !report.error) {
    // as a cut-off answer: the model did not end it itself, and may have been paid for (§9, §15)
    const warnings = Array.isArray(report.warnings) ? report.warnings.map((w) => textOf(w)) : [];
    if (warnings.length)
      return { kind: "ambiguous", reason: `gemini warned during the run (${tail(warnings.join("; "))}); such an answer is not read` };
    const models = geminiReportedModels(report);
    return { kind: "output", text: report.response, reportedModel: models.length ? models.join(", ") : null };
  }
  // Errors go to stderr as {session_id, error: {type, message, code}} in JSON mode.
  const failure = report?.error ? report : parseReport(stderr);
  const said = typeof failure?.error?.message === "string" ? failure.error.message : stderr || stdout;
  const pre = code !== null ? PRE_REQUEST_EXITS.get(code) : undefined;
  if (pre && !(report && typeof report.response === "string")) {
    return { kind: "not-run", reason: `gemini stopped before sending any request (${pre}, exit ${code}): ${tail(said)}` };
  }
  // An API error exits with its status mod 256: 400 → 144, 404 → 148. A refusal naming the model ran nothing.
  const capability = (code === 144 || code === 148) && !(report && typeof report.response === "string") ? capabilityError(said) : undefined;
  if (capability) return { kind: "not-run", capability, reason: `gemini: the API refused the request (exit ${code}): ${tail(said)}` };
  if (code === 127 && !stdout.trim() && interpreterMissing(stderr)) {
    return { kind: "not-run", reason: `gemini's interpreter was not found (exit 127): ${tail(stderr)}` };
  }
  return { kind: "ambiguous", reason: `gemini exited ${code ?? signal}${code === 0 ? " without a response" : ""}: ${tail(said)}` };
}

/** `env: 'node': No such file or directory`. The first "env" of a line decides (one regex would rescan each line
 *  from every "env" of "env env env…": quadratic on a hostile stderr). */
function interpreterMissing(stderr: string): boolean {
  return stderr.split("\n").some((line) => {
    const at = line.search(/\benv\b/i);
    return at !== -1 && /No such file|not found/i.test(line.slice(at));
  });
}

export const geminiAdapter: ReviewerAdapter = {
  async dispatch(input: DispatchInput): Promise<DispatchOutcome> {
    const { config } = input;
    const endpoint = providerEndpoint(input, { baseUrl: "GOOGLE_GEMINI_BASE_URL", apiKey: "GEMINI_API_KEY" });
    if (!endpoint.ok) return endpoint.notRun;
    const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const readDir = dispatchWorkdir(input);
    const planted = readDir ? geminiContextFiles(readDir) : [];
    if (planted === null) {
      return {
        kind: "not-run",
        reason:
          `the project has more than ${GEMINI_SCAN_LIMIT} entries to check for GEMINI.md files, ` +
          "which gemini would take as its own instructions; at nightmare use a codex or claude reviewer",
      };
    }
    if (planted.length) {
      return {
        kind: "not-run",
        reason:
          `gemini would take ${planted.map((f) => path.relative(readDir!, f)).join(", ")} as its own instructions ` +
          "(no gemini 0.61 setting switches project context files off); at nightmare use a codex or claude reviewer, or rename them",
      };
    }
    const argv = geminiArgv(config, resolveBinary(config.binary ?? "gemini", input.project.root), readDir);
    // Two scratch directories, both removed whatever happens: the workspace (cwd) and a home of its own, outside
    // any workspace its tools may read, where gemini keeps the session (the packet) and its history.
    return withScratch("gemini", (scratch) =>
      withScratch("gemini-home", async (home) => {
        scratchStateDir(path.join(home, ".gemini"), geminiUserDir(), GEMINI_USER_FILES);
        mkdirSync(path.join(scratch, ".gemini"));
        // in the scratch home, outside any workspace its tools read
        const telemetry = path.join(home, "telemetry.log");
        writeFileSync(
          path.join(scratch, ".gemini", "settings.json"),
          JSON.stringify(geminiWorkspaceSettings(scratch, Boolean(config.base_url || endpoint.apiKey), telemetry), null, 2),
        );
        const env = childEnv(input, {
          defaults: GEMINI_ENV_DEFAULTS,
          scratch,
          own: {
            ...endpoint.env,
            HOME: home,
            GEMINI_CLI_HOME: home,
          },
        });
        const outcome = await runChild({ argv, stdin: input.prompt, timeoutMs, env, cwd: scratch, signal: input.signal });
        if (outcome.kind !== "exit") return unfinishedChild(outcome, "gemini", argv[0]!, timeoutMs);
        const classified = classifyGeminiExit(outcome.code, outcome.signal, outcome.stdout, outcome.stderr);
        if (classified.kind !== "output") return classified;
        // As the http adapter's rule (§15): an answer the model did not end itself may be the start of one.
        const unended = unendedFinish(readTelemetry(telemetry));
        return unended === null
          ? classified
          : {
              kind: "ambiguous",
              reason: `gemini: the answer may have been cut off (finish reason ${unended}); such an answer is not read`,
            };
      }),
    );
  },
};
