// Every command's usage and one-line description, in the order --help lists them. Each command's module takes its
// description from here, and the top-level --help is printed from this table without loading any command module.
import { MAX_EXTEND_BY, WORKER_KINDS } from "../spec/constants.js";

export const COMMAND_SUMMARIES: Record<string, { usage: string; description: string }> = {
  review: {
    usage: "[options] <artifact>",
    description: "request a review of an artifact at a gate (workers started by `guild-bus up` carry it out)",
  },
  status: {
    usage: "[options] [run] [gate]",
    description: "show the open and recent gates' state (--all: every gate), or one run's, or one gate's, and what each waits for",
  },
  up: {
    usage: "[options]",
    description:
      "start and supervise the workers (restarting any that die; one that keeps failing at start is given up), one up per project; " +
      "Ctrl-C waits for the reviews in flight, a second Ctrl-C (or SIGTERM) stops at once",
  },
  wait: {
    usage: "[options] <run> <gate>",
    description: "re-attach to a gate: follow it until it needs the author, needs a human, or ends (as `review --wait`)",
  },
  resubmit: {
    usage: "[options] <run> <gate>",
    description: "tell the broker the artifact was revised after the findings; it issues the next round",
  },
  rebut: {
    usage: "[options] <run> <gate>",
    description: "contest the findings of the round waiting for you, once (difficulty hard or nightmare); the reviewer rules on each",
  },
  decide: {
    usage: "[options] <run> <gate> <choice> [n]",
    description: `answer an escalation: force-pass | extend-cap <1-${MAX_EXTEND_BY}> | rework | retry | override | continue | stop`,
  },
  respond: { usage: "[options] <run> <gate>", description: "answer a packet addressed to the manual reviewer" },
  providers: {
    usage: "[options]",
    description: "show the reviewers detected here (settings, CLIs on PATH, capability declarations), why, and how to enable the rest",
  },
  ui: { usage: "[options]", description: "serve the local review console: gates, timelines, answers and decisions in a browser" },
  demo: {
    usage: "[options]",
    description: "run the whole bus in a temp dir with a scripted reviewer (labelled as scripted) and print the trail",
  },
  worker: { usage: "[options] <kind>", description: `run one worker: ${WORKER_KINDS.join(" | ")}` },
  "verify-gate-pass": { usage: "[args...]", description: "evaluate the five checksum-bound gate-pass conditions (--help for options)" },
  family: { usage: "[options] <model...>", description: "classify model ids into vendor families (exactly one match, else unknown)" },
  scrub: { usage: "[options] <file>", description: "print the file with secrets redacted, exactly as the bus would put it in a packet" },
  mcp: {
    usage: "[options]",
    description: "serve the bus to an author host over MCP on stdin/stdout (tools: request_review, wait, status, findings, …)",
  },
  check: {
    usage: "[options]",
    description: "re-derive from the files that each gate passed for the artifact bytes now in the tree (for CI and git hooks)",
  },
  init: {
    usage: "[options]",
    description: "set up guild-bus in this project: .guild/settings.json, .gitignore, and the author hosts' MCP, skills, commands, hook",
  },
  hook: {
    usage: "[options] <event>",
    description: "author-host hooks: `hook stop` keeps the host from ending its turn while a gate it opened waits for it",
  },
  gate: { usage: "[options] <switch>", description: "turn the author hosts' stop gate on or off, or show it" },
};

/** The description of a command named in the table above. */
export const summary = (name: string): string => COMMAND_SUMMARIES[name]!.description;
