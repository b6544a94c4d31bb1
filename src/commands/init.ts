// `guild-bus init [--host claude|codex|gemini|all]`: wires guild-bus into a project and its author hosts — the MCP
// server entry in each host's own config, the review-loop instructions and slash commands, the Stop hook (inert until
// `guild-bus gate on`), .guild/settings.json from the providers detected here, and .gitignore lines. Every change is
// computed first (a plan with before/after texts: `--dry-run` prints it as a diff) and merged into what is there, so a
// second run changes nothing. A file it cannot merge (malformed JSON) is refused by name, and nothing is written.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { detectProviders } from "../adapters/probe.js";
import type { Layout } from "../bus/layout.js";
import { ReadRefused, readTextBounded } from "../bus/read-bounded.js";
import { loadSettings } from "../bus/settings.js";
import type { LoadedSettings } from "../bus/settings-file.js";
import { userFileTarget } from "../bus/no-symlinks.js";
import { replace } from "../bus/replace.js";
import { parse as parseToml } from "smol-toml";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { type Answer, refuse } from "./answer.js";
import { parseJsonAnswer } from "../core/json-answer.js";
import type { FormattingOptions, JSONPath } from "jsonc-parser";
import {
  claudeCommands,
  GEMINI_COMMANDS,
  PROJECT_MCP_COMMAND,
  PROJECT_SKILL,
  skillMarkdown,
  stopHookCommand,
  withContextSection,
} from "./host-files.js";

export const HOSTS = ["claude", "codex", "gemini"] as const;
export type Host = (typeof HOSTS)[number];

export interface FileChange {
  /** Project-relative path. */
  path: string;
  before: string | null;
  after: string;
  /** Where it is written: the project file, or the file in the project a link on its path leads to. */
  target: string;
  /** Why the change cannot be written (a link on its path leads out of the project or into .guild/), or null. */
  refused: string | null;
}

export interface InitPlan {
  changes: FileChange[];
  /** What the user should know or do next (one line each). */
  notes: string[];
}

type Json = Record<string, unknown>;
// the editor is required from the package's CommonJS build, as json-answer.ts does with its parser (no ES build loads)
const { applyEdits, modify, stripComments } = createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser");
const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";
const GUILD_BUS_CLI = `${PROJECT_MCP_COMMAND.command} ${PROJECT_MCP_COMMAND.args.slice(0, -1).join(" ")}`;

/** Files are read once and changed in memory, so several edits of one file (two hosts, one .gitignore) compose. */
class Workspace {
  private readonly files = new Map<string, { before: string | null; after: string | null }>();
  private readonly own = new Set<string>();
  constructor(private readonly root: string) {}

  read(rel: string): string | null {
    const held = this.files.get(rel);
    if (held) return held.after ?? held.before;
    let before: string | null = null;
    try {
      // a project file may be a link; a FIFO, device or huge file is refused, never waited on or read whole
      before = readTextBounded(path.join(this.root, rel), { max: MAX_FILE_BYTES, followSymlink: true });
    } catch (error) {
      if (!(error instanceof ReadRefused && error.kind === "missing")) throw error;
    }
    this.files.set(rel, { before, after: null });
    return before;
  }

  write(rel: string, text: string): void {
    const before = this.read(rel);
    this.files.set(rel, { before, after: text });
  }

  /** A file of guild-bus's own (a skill, a command), written whole: never through a link, which would replace another file. */
  writeOwn(rel: string, text: string): void {
    this.write(rel, text);
    this.own.add(rel);
  }

  /** Merge into a JSON object file; a file that is not a JSON object is refused rather than overwritten. */
  /** `comments`: the host reads the file with comments allowed (gemini strips them), so they are the user's to keep. */
  editJson(rel: string, edit: (value: Json) => void, o: { comments?: boolean } = {}): void {
    const text = this.read(rel);
    let value: unknown = {};
    if (text !== null && text.trim()) {
      // the one JSON reader: nesting past its depth would overflow the clone and the comparison below; comments become
      // spaces, so a position it names is still the file's (jsonc-parser's edits keep them in the text written)
      const answer = parseJsonAnswer(o.comments ? stripComments(text, " ") : text);
      if (!answer.ok)
        throw new InitRefused(`${rel} is ${answer.reason}; fix it or move it aside, then run init again (nothing was written)`);
      value = answer.value;
    }
    if (!value || typeof value !== "object" || Array.isArray(value))
      throw new InitRefused(`${rel} is not a JSON object (nothing was written)`);
    const copy = structuredClone(value) as Json;
    try {
      edit(copy);
    } catch (error) {
      if (error instanceof UnmergeableValue)
        throw new InitRefused(`${rel}: ${error.message}; fix it, then run init again (nothing was written)`);
      throw error;
    }
    if (text === null || !text.trim()) this.write(rel, json(copy));
    else if (JSON.stringify(copy) !== JSON.stringify(value)) this.write(rel, withEdits(text, value as Json, copy));
  }

  changes(): FileChange[] {
    return [...this.files.entries()]
      .filter(([, f]) => f.after !== null && f.after !== f.before)
      .map(([rel, f]) => {
        const target = userFileTarget(this.root, rel, "init", { whole: this.own.has(rel) });
        const where = "refused" in target ? { target: "", refused: target.refused } : { target: target.path, refused: null };
        return { path: rel, before: f.before, after: f.after!, ...where };
      });
  }
}

/**
 * The user's JSON text with only what init changed written into it (jsonc-parser's edits): their formatting, and the
 * numbers JSON.parse cannot hold (1e400, 12345678901234567890), stay as they were. A list init extends keeps its entries.
 */
function withEdits(text: string, before: unknown, after: unknown, at: JSONPath = []): string {
  const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
  const formattingOptions = formattingOf(text);
  const edit =
    (value: unknown, o: { isArrayInsertion?: boolean } = {}) =>
    (t: string, p: JSONPath) =>
      applyEdits(t, modify(t, p, value, { ...o, formattingOptions }));
  if (isObject(before) && isObject(after)) {
    let out = text;
    for (const [key, value] of Object.entries(after))
      if (JSON.stringify(value) !== JSON.stringify(before[key]))
        out = Object.hasOwn(before, key) ? withEdits(out, before[key], value, [...at, key]) : edit(value)(out, [...at, key]);
    return out;
  }
  const extended = Array.isArray(before) && Array.isArray(after) && before.every((v, i) => JSON.stringify(v) === JSON.stringify(after[i]));
  if (extended)
    return (after as unknown[])
      .slice(before.length)
      .reduce<string>((t, v, i) => edit(v, { isArrayInsertion: true })(t, [...at, before.length + i]), text);
  return edit(after)(text, at);
}

/** The layout a JSON file already has (its line ends, its first indent), so what init adds reads like the rest of it. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^[ \t]+(?=\S)/m.exec(text)?.[0] ?? "  ";
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return indent.startsWith("\t") ? { insertSpaces: false, tabSize: 1, eol } : { insertSpaces: true, tabSize: indent.length, eol };
}

class InitRefused extends Error {}
/** A value of the user's that init would have to replace to merge (never done: it is theirs). */
class UnmergeableValue extends Error {}

/** The guild-bus section of a host's context file (AGENTS.md, GEMINI.md), put in or replaced in place. */
function contextSection(ws: Workspace, rel: string): void {
  const merged = withContextSection(ws.read(rel) ?? "");
  if (merged === null)
    throw new InitRefused(
      `${rel}: its guild-bus section markers do not pair up (one start line, then one end line); fix them (nothing was written)`,
    );
  ws.write(rel, merged);
}

/** The object at `key`, made when absent; any other value there is the user's, and refused rather than replaced. */
const objectAt = (o: Json, key: string): Json => {
  if (o[key] === undefined) o[key] = {};
  const value = o[key];
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new UnmergeableValue(`"${key}" is not an object`);
  return value as Json;
};

function addLines(ws: Workspace, rel: string, lines: string[], header: string): void {
  const text = ws.read(rel) ?? "";
  const have = new Set(text.split("\n").map((l) => l.trim()));
  const missing = lines.filter((l) => !have.has(l));
  if (missing.length) ws.write(rel, `${text.replace(/\n*$/, text ? "\n\n" : "")}${header}\n${missing.join("\n")}\n`);
}

/**
 * The project's guild-bus MCP server, added when absent. One already there that runs another command is refused, not
 * kept: init approves claude's server by name (enabledMcpjsonServers) and tells gemini's user to restart into it, and a
 * cloned repository's file could have put any program under that name. (codex's own table is left as it is, and named: init
 * approves no tool of a server it did not write there.)
 */
function addMcpServer(servers: Json): void {
  const have = servers["guild-bus"];
  if (have === undefined) {
    servers["guild-bus"] = PROJECT_MCP_COMMAND;
    return;
  }
  const entry = (have ?? {}) as { command?: unknown; args?: unknown };
  if (!runsGuildBusMcp(entry.command, entry.args))
    throw new UnmergeableValue(
      `its "guild-bus" MCP server runs ${JSON.stringify([entry.command, ...(Array.isArray(entry.args) ? entry.args : [])])}, ` +
        `not guild-bus's (${JSON.stringify([PROJECT_MCP_COMMAND.command, ...PROJECT_MCP_COMMAND.args])}): ` +
        "init neither keeps nor approves a server it did not write; remove that entry (or make it that command)",
    );
}

/** A Stop entry that already runs guild-bus's hook, in any form (npx, the plugin's node path): another tool's is not. */
function runsGuildBusStop(entry: unknown): boolean {
  const hooks = (entry as { hooks?: unknown } | null)?.hooks;
  return (
    Array.isArray(hooks) &&
    hooks.some((h) => {
      const command = (h as { command?: unknown } | null)?.command;
      return typeof command === "string" && /guild-bus(?:\.js)?["']?\s+hook stop\b/.test(command);
    })
  );
}

/** `guild-bus mcp` as installed (`guild-bus mcp`) or through npx (`npx [flags] guild-bus[@version] mcp`), nothing else. */
function runsGuildBusMcp(command: unknown, args: unknown): boolean {
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) return false;
  if (command === "guild-bus") return args.length === 1 && args[0] === "mcp";
  if (command !== "npx" || args.length < 2 || args.at(-1) !== "mcp") return false;
  const pkg = args.at(-2) as string;
  return (pkg === "guild-bus" || pkg.startsWith("guild-bus@")) && args.slice(0, -2).every((a) => a.startsWith("-"));
}

/**
 * What a user types for a command init writes: Claude Code names a project command by its file alone
 * (`.claude/commands/guild-review.md` is `/guild-review`), gemini by its path (`.gemini/commands/guild/review.toml` is
 * `/guild:review`). The notes and the files come from these two, so a note never names a command that does not exist.
 */
const claudeCommand = (name: string): string => `guild-${name}`;
const geminiCommand = (name: string): string => `guild:${name}`;

function claude(ws: Workspace, notes: string[]): void {
  ws.editJson(".mcp.json", (o) => addMcpServer(objectAt(o, "mcpServers")));
  ws.editJson(".claude/settings.json", (o) => {
    if (o.enabledMcpjsonServers !== undefined && !Array.isArray(o.enabledMcpjsonServers))
      throw new UnmergeableValue('"enabledMcpjsonServers" is not a list');
    const enabled = (o.enabledMcpjsonServers as unknown[] | undefined) ?? [];
    if (!enabled.includes("guild-bus")) o.enabledMcpjsonServers = [...enabled, "guild-bus"];
    const hooks = objectAt(o, "hooks");
    if (hooks.Stop !== undefined && !Array.isArray(hooks.Stop)) throw new UnmergeableValue('"hooks.Stop" is not a list');
    const stop = (hooks.Stop as unknown[] | undefined) ?? [];
    const command = stopHookCommand(GUILD_BUS_CLI);
    if (!stop.some(runsGuildBusStop)) hooks.Stop = [...stop, { hooks: [{ type: "command", command, timeout: 60 }] }];
  });
  ws.writeOwn(`.claude/skills/${PROJECT_SKILL}/SKILL.md`, skillMarkdown(PROJECT_SKILL));
  // top-level names: Claude Code names a project command by its file alone (a subdirectory is only a label), and
  // /review, /status are its own commands
  for (const [name, text] of Object.entries(claudeCommands(PROJECT_SKILL))) ws.writeOwn(`.claude/commands/${claudeCommand(name)}.md`, text);
  notes.push(
    `claude: restart Claude Code in this project; /${claudeCommand("review")} <file> starts a review ` +
      `(the skill ${PROJECT_SKILL} teaches the loop)`,
  );
}

const LOOP_TOOLS = ["request_review", "wait", "status", "findings", "resubmit", "rebut", "providers", "check"];

/** A TOML file as a table, or a refusal: init never writes a file codex would then load none of. */
function tomlTable(text: string, rel: string, what: string): Record<string, unknown> {
  try {
    return parseToml(text);
  } catch (error) {
    throw new InitRefused(`${rel} ${what} (${(error as Error).message.split("\n")[0]}); fix it, then run init again (nothing was written)`);
  }
}

function codex(ws: Workspace, notes: string[]): void {
  const rel = ".codex/config.toml";
  const text = ws.read(rel) ?? "";
  // the server may be declared in any spelling TOML allows (a table, a dotted key, an inline table): the parser tells
  const servers = tomlTable(text, rel, "is not valid TOML").mcp_servers;
  // [[mcp_servers]] (an array of tables): a [mcp_servers.guild-bus] table added after it would nest in its last entry
  if (servers !== undefined && (servers === null || typeof servers !== "object" || Array.isArray(servers)))
    throw new InitRefused(`${rel} declares mcp_servers as something other than a table; fix it, then run init again (nothing was written)`);
  if (!(servers && typeof servers === "object" && Object.hasOwn(servers, "guild-bus"))) {
    // The loop's own tools run without a prompt; decide and respond (a human's part) keep codex's approval prompt.
    const approved = LOOP_TOOLS.map((t) => `[mcp_servers.guild-bus.tools.${t}]\napproval_mode = "approve"\n`).join("\n");
    const block =
      `[mcp_servers.guild-bus]\ncommand = ${JSON.stringify(PROJECT_MCP_COMMAND.command)}\n` +
      `args = [${PROJECT_MCP_COMMAND.args.map((a) => JSON.stringify(a)).join(", ")}]\n` +
      "required = true # wait for it at start: an optional server still starting is left out of the first turn\n" +
      "startup_timeout_sec = 60 # npx and node start slowly on a loaded machine\n" +
      "tool_timeout_sec = 120 # above guild-bus mcp's 45 s wait budget\n\n" +
      approved;
    const merged = `${text.replace(/\n*$/, text ? "\n\n" : "")}${block}`;
    // an inline `mcp_servers = { … }` cannot take a table added after it: refused, never a file that no longer parses
    tomlTable(merged, rel, "declares mcp_servers in a form the [mcp_servers.guild-bus] table cannot be added to");
    ws.write(rel, merged);
  } else {
    // left as it is, but never in silence: codex would run whatever it names under guild-bus's name, or fail on none
    const have = (servers as Record<string, { command?: unknown; args?: unknown } | undefined>)["guild-bus"] ?? {};
    if (!runsGuildBusMcp(have.command, have.args ?? []))
      notes.push(
        `codex: ${rel} already declares a guild-bus MCP server that runs ` +
          `${JSON.stringify([have.command ?? null, ...(Array.isArray(have.args) ? have.args : [])])}, not guild-bus's ` +
          `(${JSON.stringify([PROJECT_MCP_COMMAND.command, ...PROJECT_MCP_COMMAND.args])}): left as it is; make it that command`,
      );
  }
  contextSection(ws, "AGENTS.md");
  notes.push("codex: the project's .codex/config.toml is read once you trust the project in codex (it asks on first start)");
}

function gemini(ws: Workspace, notes: string[]): void {
  ws.editJson(".gemini/settings.json", (o) => addMcpServer(objectAt(o, "mcpServers")), { comments: true });
  contextSection(ws, "GEMINI.md");
  for (const [name, text] of Object.entries(GEMINI_COMMANDS))
    ws.writeOwn(`.gemini/commands/${geminiCommand(name).replace(":", "/")}.toml`, text);
  notes.push(`gemini: restart gemini in this project; /${geminiCommand("review")} <file> starts a review`);
}

/**
 * Whether `npx --no-install guild-bus`, as the host entries run it, finds guild-bus for the project: in a
 * node_modules/.bin at its root or above, or on PATH — not in npx's own cache, where `npx guild-bus init` itself runs
 * from without an install.
 */
function runsFromProject(root: string): boolean {
  const bins = [];
  for (let dir = root; ; dir = path.dirname(dir)) {
    bins.push(path.join(dir, "node_modules", ".bin"));
    if (path.dirname(dir) === dir) break;
  }
  const onPath = (process.env.PATH ?? "").split(path.delimiter).filter((d) => d && !d.split(/[\\/]/).includes("_npx"));
  return [...bins, ...onPath].some((d) => existsSync(path.join(d, "guild-bus")) || existsSync(path.join(d, "guild-bus.cmd")));
}

/** What under .guild/ belongs to one machine (README "Install"): never committed. */
const MACHINE_FILES = [
  ".guild/tmp/",
  ".guild/logs/",
  ".guild/probe-cache.json",
  ".guild/finished-runs/",
  ".guild/workers/",
  ".guild/up.lock",
  ".guild/stop-gate.json",
  ".guild/codex-skip-streak.json",
];

const HOST_SETUP: Record<Host, (ws: Workspace, notes: string[]) => void> = { claude, codex, gemini };

/** The changes `init` would make for these hosts (none written yet); `checked`: settings.json as the caller already read
 * it (the CLI's check), else it is read here. */
export async function planInit(
  layout: Layout,
  hosts: readonly Host[],
  onSlow?: (note: string) => void,
  checked?: LoadedSettings,
): Promise<Answer<InitPlan>> {
  const ws = new Workspace(layout.root);
  const notes: string[] = [];
  try {
    const { settings, problems } = checked ?? loadSettings(layout);
    if (problems.length) return refuse(`fix .guild/settings.json first: ${problems.join("; ")}`);
    const found = await detectProviders(settings, layout, undefined, onSlow);
    const usable = found.filter((p) => p.available && p.source === "path" && p.adapter !== "manual");
    // A CLI found on PATH reviews as found, with its host's family (verified from the model it reports). It is not
    // written into settings: a configured provider without a model has no family and is never selected for a strong
    // review (SPEC §12), so writing `{"adapter": "claude"}` turned the reviewer it found into none, and reviews fell
    // to a person.
    ws.editJson(".guild/settings.json", (o) => {
      o.schema_version ??= "guild_bus.settings.v1";
      objectAt(o, "providers");
    });
    notes.push(
      usable.length
        ? `reviewers found here: ${usable.map((p) => `${p.id} (${p.family})`).join(", ")}, used as found on PATH; ` +
            'to pin a model, add it to .guild/settings.json: "providers": {"<id>": {"adapter": "<id>", "model": "<model>"}}'
        : "no reviewer CLI found here: reviews will wait for a human (`guild-bus providers` says what would enable one)",
    );
    addLines(ws, ".gitignore", MACHINE_FILES, "# guild-bus: this machine's state");
    notes.push("commit .guild/runs/ if you want the reviews as an audit trail (`guild-bus check` re-derives them in CI); else ignore it");
    for (const host of hosts) HOST_SETUP[host](ws, notes);
    if (hosts.length && !runsFromProject(layout.root)) {
      const others = hosts.filter((h) => h !== "codex");
      const until = [
        ...(hosts.includes("codex") ? ["codex does not start here (it requires the server)"] : []),
        ...(others.length ? [`${others.join(" and ")} ${others.length > 1 ? "run" : "runs"} without the guild-bus tools`] : []),
      ];
      notes.push(
        `guild-bus is not installed in this project: the hosts run \`${GUILD_BUS_CLI}\`, which fails until ` +
          `\`npm i -D guild-bus\` (and on each checkout until \`npm install\`): until then ${until.join(", and ")}`,
      );
    }
  } catch (error) {
    if (error instanceof InitRefused || error instanceof ReadRefused) return refuse(error.message);
    throw error;
  }
  return { ok: true, changes: ws.changes(), notes };
}

/** Writes the plan's changes, or none of them when one cannot be written. */
export async function applyInit(layout: Layout, plan: InitPlan): Promise<Answer<object>> {
  const refused = plan.changes.flatMap((c) => (c.refused ? [c.refused] : []));
  if (refused.length) return refuse(`${refused.join("; ")}; then run init again (nothing was written; --dry-run shows the change)`);
  for (const c of plan.changes) await replace(c.target, c.after, { guildDir: layout.guild, durable: false, makeDirs: true });
  return { ok: true };
}
