// The examples and exit codes at the end of every command's --help (SPEC §17 is the full table).
import type { Command } from "commander";
import { helpText } from "./format.js";
import { WAIT_EXITS } from "./exit-codes.js";

const AUTHOR_EXITS = `0 written; 1 refused or usage error (nothing written); with --wait: ${WAIT_EXITS}`;

const HELP: Record<string, [string[], string]> = {
  review: [
    [
      "guild-bus review docs/spec.md --gate G-spec --author claude --author-model claude-opus-4 --wait",
      "guild-bus review plan.md --gate G-plan --author codex --stop score --difficulty hard --json",
    ],
    `without --wait: 0 requested, 1 refused or usage error (nothing written); with --wait: ${WAIT_EXITS}`,
  ],
  resubmit: [["guild-bus resubmit <run> G-spec --wait"], AUTHOR_EXITS],
  rebut: [["guild-bus rebut <run> G-plan --file rebuttal.md --wait"], AUTHOR_EXITS],
  decide: [
    [
      "guild-bus decide <run> G-spec force-pass --round 3 --note 'accepted risk'",
      "guild-bus decide <run> G-spec extend-cap 2 --round 3 --wait",
    ],
    AUTHOR_EXITS,
  ],
  respond: [
    [
      "guild-bus respond <run> G-spec --reviewer-model gpt-5 --file review.md",
      "cat review.md | guild-bus respond <run> G-spec --round 2 --reviewer-model gpt-5",
    ],
    "0 accepted (result written); 1 refused or usage error (nothing written)",
  ],
  up: [
    ["guild-bus up &", "guild-bus up --kinds broker,verifier,manual"],
    "0 stopped by a signal; 1 usage error, invalid settings, or every worker given up",
  ],
  worker: [["guild-bus worker broker", "guild-bus worker codex --concurrency 2"], "0 stopped by a signal; 1 usage error"],
  ui: [["guild-bus ui", "guild-bus ui --port 8080 --read-only"], "0 stopped by a signal; 1 usage error"],
  demo: [["guild-bus demo", "guild-bus demo --keep"], "0 the demo gate passed; otherwise the gate's --wait exit code"],
  "verify-gate-pass": [
    ["guild-bus verify-gate-pass --result result-1.json --artifact docs/spec.md --packet-id <id>"],
    "0 pass, 2 fail, 1 usage error or unreadable artifact",
  ],
  family: [
    ["guild-bus family gpt-5 claude-opus-4 qwen2.5-coder", "guild-bus family --json gpt-5", "guild-bus family acme-7b --alias acme=meta"],
    "0; 1 usage error or invalid settings (read when they hold family_aliases)",
  ],
  scrub: [
    ["guild-bus scrub docs/spec.md", "guild-bus scrub - --check < notes.md"],
    "0; 3 with --check when something would be redacted; 1 usage error",
  ],
  mcp: [["guild-bus mcp", "claude mcp add guild-bus -- npx --no-install guild-bus mcp"], "0 when the client closes; 1 usage error"],
  init: [
    ["guild-bus init --dry-run", "guild-bus init --host claude"],
    "0 set up (or nothing to change); 1 usage error or a file it cannot merge (nothing written)",
  ],
  check: [
    [
      "guild-bus check --require G-spec,G-plan",
      "guild-bus check --require-files 'G-spec=docs/spec*.md'",
      "guild-bus check --run <run> --json",
    ],
    "0 every checked gate passed; 2 one did not, or a required gate or a matched file's review is missing; 1 usage error",
  ],
  hook: [["guild-bus hook stop --host claude-code < event.json"], "0 always (the decision is the JSON on stdout); 1 usage error"],
  gate: [["guild-bus gate on --max-blocks 3", "guild-bus gate off"], "0; 1 usage error or a malformed settings file"],
};

/** Add the examples and exit codes to every registered command that does not carry its own. */
export function addHelpTexts(program: Command): void {
  for (const cmd of program.commands) {
    const h = HELP[cmd.name()];
    if (h) cmd.addHelpText("after", helpText(...h));
  }
}
