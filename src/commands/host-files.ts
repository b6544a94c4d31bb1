// What an author host is given to work with guild-bus, written once: the review-loop instructions (a Claude skill,
// a Gemini context file, an AGENTS.md/GEMINI.md section), the slash commands, and the MCP server entry in each
// host's config format. `guild-bus init` writes the project's copies; `npm run integrations` renders the shipped
// Claude plugin (integrations/claude) and Gemini extension (integrations/gemini) from the same functions.

/** How a host starts the server from a project that has guild-bus installed (a dev dependency): no absolute paths. */
export const PROJECT_MCP_COMMAND = { command: "npx", args: ["--no-install", "guild-bus", "mcp"] };

const SKILL_DESCRIPTION =
  "Have a spec, plan, lane receipt or diff reviewed by a model of another family with guild-bus, revise until the gate " +
  "passes, and report the gate's outcome truthfully. Use before calling a spec, plan or change done, or when the user " +
  "asks for a cross-family or adversarial review.";

/** The loop, as the model reads it. */
export const REVIEW_LOOP = `# Cross-family review with guild-bus

guild-bus sends your artifact to a reviewer of a *different* model family and keeps every round as files under
\`.guild/runs/<run>/review/<gate>/\`. The gate passes only when an independent reviewer approved exactly the bytes on
disk. You drive it with the \`guild-bus\` MCP tools.

## Which gate
- \`G-spec\` — a specification or requirements document.
- \`G-plan\` — an implementation plan.
- \`G-quality\` — a finished change (a diff or a lane receipt) before you call it done.
- \`G-operations\`, \`G-diagnose\`, \`G-init\`, \`G-lane:<id>\` — as the project's workflow names them.

## The loop
1. Write the artifact to a file inside the project.
2. \`request_review\` with \`artifact\` (its path), \`gate\`, and \`author_model\` (your exact model id). Keep the \`run_id\`.
3. \`wait\` with the run id and gate. While it answers \`still_running\`, call \`wait\` again: a review can take minutes.
4. When it stops:
   - **needs you** (\`exit_code\` 3): call \`findings\`, fix *every* blocking finding in the file, then \`resubmit\`
     and go back to step 3. At hard or nightmare difficulty you may instead \`rebut\` findings you can show are wrong
     (once per round, the file unchanged), then go back to step 3.
   - **needs a human** (\`exit_code\` 4): tell the user what the escalation is and its options; call \`decide\` only
     with the option the user chose and the escalation's \`round\`. force-pass, and any answer to a human checkpoint
     (continue, stop, rework), are the user's own to run (\`guild-bus decide <run> <gate> <choice> --round <round>\` in
     a terminal; \`decide\` refuses them): never run them yourself.
   - **ended** (\`exit_code\` 0): report the outcome as given (\`satisfied\`, \`force_passed\`, \`skipped\`).
   - **passed other bytes, or unproven** (\`exit_code\` 2): the artifact changed since the gate passed it, or the
     outcome does not re-derive from the gate's files: the artifact as it is now was not passed. Say so, and request a
     new review of it.
   - **unavailable** (\`exit_code\` 5): no reviewer could run; call \`providers\` and tell the user what to enable.

## Never
- Never say a review passed unless \`wait\` returned \`exit_code\` 0 with an outcome of \`satisfied\` (or
  \`force_passed\`, said as such).
- Never edit files under \`.guild/\` yourself, and never answer a packet as its reviewer (\`respond\`) for your own work.
- Never resubmit without changing the artifact: an unchanged resubmit is escalated as stalled.
`;

export function skillMarkdown(name: string): string {
  return `---\nname: ${name}\ndescription: ${SKILL_DESCRIPTION}\n---\n\n${REVIEW_LOOP}`;
}

const SECTION_START = "<!-- guild-bus:start (written by guild-bus init; edit outside these markers) -->";
const SECTION_END = "<!-- guild-bus:end -->";

/**
 * `text` with the guild-bus section (the loop) put in, or replaced in place when it is there already; null when its
 * markers do not pair up (one start line, then one end line), where any choice of what to replace could take the
 * user's own text. A marker quoted inside a line is text, not a marker.
 */
export function withContextSection(text: string): string | null {
  const eol = text.includes("\r\n") ? "\r\n" : "\n"; // the file's own line ends: never a file of mixed ones
  const section = `${SECTION_START}\n${REVIEW_LOOP}${SECTION_END}\n`.replace(/\n/g, eol);
  const lines = text.split("\n");
  const at = (marker: string) => lines.flatMap((l, i) => (l.trim() === marker ? [i] : []));
  const [starts, ends] = [at(SECTION_START), at(SECTION_END)];
  if (!starts.length && !ends.length) return text ? `${text.replace(/(?:\r?\n)*$/, eol + eol)}${section}` : section;
  if (starts.length !== 1 || ends.length !== 1 || ends[0]! < starts[0]!) return null;
  const after = lines.slice(ends[0]! + 1);
  return [...lines.slice(0, starts[0]), section.replace(/\n$/, ""), ...(after.length ? after : [""])].join("\n");
}

/** The review-loop skill's name: in the plugin (integrations/claude), and as `init` writes it into a project. */
export const PLUGIN_SKILL = "review-loop";
export const PROJECT_SKILL = "guild-bus-review";

/**
 * Claude Code slash commands (Markdown with front matter), by name, for where the review-loop skill is `skill`: a
 * command naming the plugin's skill in a project that has only init's would send the model after a skill not there.
 */
export const claudeCommands = (skill: string): Readonly<Record<string, string>> => ({
  review: `---
description: Request a cross-family review of a file at a gate and follow it to its outcome
argument-hint: <file> [gate, default G-spec]
---
Use the ${skill} skill. Request a review of \`$1\` with the guild-bus \`request_review\` tool, at the gate given
second (\`$2\`; G-spec when none is given), giving your exact model as \`author_model\`; then follow the loop until the
gate ends or needs the user. The arguments as typed: $ARGUMENTS
`,
  status: `---
description: Show the guild-bus gates of this project and what each waits for
argument-hint: [run-id] [gate]
---
Call the guild-bus \`status\` tool (with run_id \`$1\` and gate \`$2\` when given) and summarise each gate in one line:
state, round, reviewer and independence, and whom it waits for. Quote the outcome exactly; do not interpret a pass.
`,
  decide: `---
description: Decide a guild-bus escalation with the option the user chose
argument-hint: <run-id> <gate> <force-pass|extend-cap|rework|retry|continue|stop> [rounds]
---
Call the guild-bus \`status\` tool for run \`$1\`, gate \`$2\`, and check that \`$3\` is one of the options its escalation
offers. If it is, call the \`decide\` tool with choice \`$3\`, \`round\` the escalation's round (and \`extend_by\` \`$4\`
for extend-cap). If not, list the options and stop. Never choose an option the user did not give. The \`decide\` tool
refuses force-pass and any answer to a human checkpoint (continue, stop, rework there): they are a person's decisions,
not an AI client's. For them, give the user the command to run in a terminal,
\`guild-bus decide $1 $2 $3 --round <round>\`, and never run it yourself.
`,
});

/** Gemini CLI custom commands (TOML), by name. */
export const GEMINI_COMMANDS: Readonly<Record<string, string>> = {
  review: `description = "Request a cross-family review of a file at a gate and follow it to its outcome"
prompt = """
Follow the guild-bus review loop (its context file). Request a review with the guild-bus \`request_review\` tool for:
{{args}}
(a file path, then optionally a gate; G-spec when none is given). Give your exact model as \`author_model\`, then
call \`wait\` until the gate ends or needs the user.
"""
`,
  status: `description = "Show the guild-bus gates of this project and what each waits for"
prompt = """
Call the guild-bus \`status\` tool (with the run id and gate in "{{args}}" when given) and summarise each gate in one
line: state, round, reviewer and independence, and whom it waits for. Quote the outcome exactly.
"""
`,
  decide: `description = "Decide a guild-bus escalation with the option the user chose"
prompt = """
The user's decision: "{{args}}" (run id, gate, choice, and rounds for extend-cap). Call the guild-bus \`status\` tool
for that gate, check the choice is one of the options its escalation offers, and only then call \`decide\` with the
escalation's \`round\`. Never choose an option the user did not give. The \`decide\` tool refuses force-pass and any
answer to a human checkpoint (continue, stop, rework there): they are a person's decisions, not an AI client's. For
them, give the user the command to run in a terminal, \`guild-bus decide <run> <gate> <choice> --round <round>\`, and
never run it yourself.
"""
`,
};

const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";
const DESCRIPTION =
  "Cross-family adversarial review: a reviewer of another model family reviews your spec, plan or diff until a " +
  "checksum-bound gate passes or a human decides.";

/** The Stop hook's command in a host config, given how that host runs guild-bus. */
export const stopHookCommand = (guildBus: string) => `${guildBus} hook stop --host claude-code`;

/** The Claude Code plugin shipped in the package (integrations/claude; `claude --plugin-dir`), by relative path. */
export function claudePluginFiles(version: string): Record<string, string> {
  const bin = 'node "${CLAUDE_PLUGIN_ROOT}/../../bin/guild-bus.js"';
  return {
    ".claude-plugin/plugin.json": json({ name: "guild-bus", version, description: DESCRIPTION, license: "MIT" }),
    ".mcp.json": json({ mcpServers: { "guild-bus": { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/../../bin/guild-bus.js", "mcp"] } } }),
    "hooks/hooks.json": json({
      description: "guild-bus stop gate (opt-in: `guild-bus gate on`): do not end the turn while a gate you opened waits for you.",
      hooks: { Stop: [{ hooks: [{ type: "command", command: stopHookCommand(bin), timeout: 60 }] }] },
    }),
    [`skills/${PLUGIN_SKILL}/SKILL.md`]: skillMarkdown(PLUGIN_SKILL),
    ...Object.fromEntries(Object.entries(claudeCommands(PLUGIN_SKILL)).map(([name, text]) => [`commands/${name}.md`, text])),
  };
}

export const GEMINI_CONTEXT_FILE = "GUILD-BUS.md";

/** The Gemini CLI extension shipped in the package (integrations/gemini; `gemini extensions link`), by relative path. */
export function geminiExtensionFiles(version: string): Record<string, string> {
  return {
    "gemini-extension.json": json({
      name: "guild-bus",
      version,
      description: DESCRIPTION,
      contextFileName: GEMINI_CONTEXT_FILE,
      mcpServers: {
        "guild-bus": { command: "node", args: ["${extensionPath}${/}..${/}..${/}bin${/}guild-bus.js", "mcp"], cwd: "${workspacePath}" },
      },
    }),
    [GEMINI_CONTEXT_FILE]: REVIEW_LOOP,
    ...Object.fromEntries(Object.entries(GEMINI_COMMANDS).map(([name, text]) => [`commands/guild/${name}.toml`, text])),
  };
}
