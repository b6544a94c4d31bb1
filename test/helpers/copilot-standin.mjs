#!/usr/bin/env node
// A scripted stand-in for the `copilot` CLI (the real one needs a GitHub login and calls a model). Tests copy it
// into a project as an executable with plan.json beside it. It prints a --help like copilot 1.0.102's (minus the
// flags the plan omits), loads agents from --add-dir like the real CLI, records every call (argv, cwd, the prompt
// file it was pointed to) under calls/, and answers as the plan says. No model is called.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const plan = JSON.parse(readFileSync(path.join(here, "plan.json"), "utf8"));
const argv = process.argv.slice(2);
const effortFlag = plan.effort_flag ?? "--effort";

const HELP = [
  ["--prompt <text>", "Execute a prompt in non-interactive mode (exits after completion)"],
  ["--silent", "Output only the agent response (no stats), useful for scripting with -p"],
  ["--model <model>", "Set the AI model to use"],
  [`${effortFlag} <level>`, "Set the reasoning effort level [possible values: none, minimal, low, medium, high, xhigh, max]"],
  ["--agent <agent>", "Specify a custom agent to use"],
  ["--allow-tool [<tools>...]", "Tools the CLI has permission to use; will not prompt for permission"],
  ["--deny-tool [<tools>...]", "Tools the CLI does not have permission to use; will not prompt for permission"],
  ["--add-dir <directory>", "Allow file access to a directory and load its .github/skills and .github/agents as trusted configuration"],
  ["--no-custom-instructions", "Disable loading of custom instructions from AGENTS.md and related files"],
  ["--no-ask-user", "Disable the ask_user tool"],
  ["--disable-builtin-mcps", "Disable all built-in MCP servers"],
  ["--no-auto-update", "Disable downloading CLI updates automatically"],
  ["--no-color", "Disable all color output"],
].filter(([flag]) => !(plan.help_omit ?? []).includes(flag.split(" ")[0]));

if (argv.includes("--version")) {
  console.log("GitHub Copilot CLI 1.0.102 (test stand-in).");
  process.exit(0);
}
if (argv.includes("--help")) {
  console.log("Usage: copilot [OPTIONS] [COMMAND]\n\nOptions:");
  for (const [flag, text] of HELP) console.log(`      ${flag}\n          ${text}`);
  process.exit(0);
}

const value = (flag) => {
  const i = argv.indexOf(flag);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`${flag}=`));
  return eq?.slice(flag.length + 1);
};
const prompt = value("--prompt") ?? "";
const packetPath = /review packet file (.+?)\. Read all/.exec(prompt)?.[1] ?? null;
const packet = packetPath && existsSync(packetPath) ? readFileSync(packetPath, "utf8") : null;
const calls = path.join(here, "calls");
mkdirSync(calls, { recursive: true });
const call = JSON.stringify({ argv, cwd: process.cwd(), packetPath, packet, token: Boolean(process.env.COPILOT_GITHUB_TOKEN) }, null, 2);
// the call number is the first free one, taken exclusively ("wx"): two runs side by side never share it
let n = readdirSync(calls).length + 1;
for (; ; n++) {
  try {
    writeFileSync(path.join(calls, `${String(n).padStart(3, "0")}.json`), call, { flag: "wx" });
    break;
  } catch (error) {
    if (error.code !== "EEXIST") throw error;
  }
}

const agent = value("--agent");
const addDir = value("--add-dir");
if (!agent || !addDir || !existsSync(path.join(addDir, ".github", "agents", `${agent}.agent.md`))) {
  console.error(`No such agent: ${agent}, available: `);
  process.exit(1);
}
const effort = value(effortFlag);
if ((plan.reject_efforts ?? []).includes(effort)) {
  console.error(
    `\n400 Unsupported value: 'reasoning.effort' does not support '${effort}' with this model. ` +
      "Supported values are: 'low', 'medium', and 'high'.",
  );
  process.exit(1);
}
const model = value("--model");
if ((plan.reject_models ?? []).includes(model)) {
  console.error(`\nModel '${model}' not found on provider (HTTP 404).\n  Check that the model is available on your provider.`);
  process.exit(1);
}

const behaviour = plan.sequence?.[n - 1] ?? plan.default ?? "satisfied";
const field = (name) =>
  new RegExp(`^${name}: (.+)$`, "m")
    .exec(packet ?? "")?.[1]
    ?.trim()
    .replace(/^"|"$/g, "") ?? "";
switch (behaviour) {
  case "satisfied":
  case "issues": {
    const findings =
      behaviour === "issues"
        ? [{ severity: "blocking", title: "Stand-in blocking finding", detail: "Planned by the copilot stand-in." }]
        : [];
    const result = {
      schema_version: "review_result.v1",
      packet_id: field("packet_id"),
      artifact_sha256_reviewed: field("artifact_sha256"),
      verdict: behaviour,
      summary: "[copilot stand-in — not a real model]",
      findings,
      blocking_findings: findings,
    };
    console.log("Review follows.\n\n```review_result.v1\n" + JSON.stringify(result, null, 2) + "\n```");
    process.exit(0);
  }
  // falls through: never reached, process.exit does not return
  case "rate-limit":
    console.error("Error: 429 Too Many Requests: rate limit exceeded, retry later");
    process.exit(1);
  // falls through: never reached, process.exit does not return
  case "auth":
    console.error("Error: 401 Unauthorized: Bad credentials");
    process.exit(1);
  // falls through: never reached, process.exit does not return
  case "hang":
    setInterval(() => {}, 1000);
    break;
  default:
    console.error(`stand-in: unknown behaviour ${behaviour}`);
    process.exit(3);
}
