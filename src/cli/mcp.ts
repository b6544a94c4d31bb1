// guild-bus mcp: serve the bus to an author host over MCP (stdio), starting the workers when the tree has none.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { Layout } from "../bus/layout.js";
import { intArg } from "./options.js";
import { BIN } from "./worker.js";
import { packageVersion } from "./version.js";

/** The instructions an MCP client shows its model: the loop, and the one rule that matters. */
const INSTRUCTIONS =
  "guild-bus runs cross-family adversarial review. To have an artifact reviewed: request_review, then wait until it " +
  "stops (call wait again while it answers still_running). If it needs you, read the findings, revise the artifact, " +
  "resubmit, wait again. Report the gate's outcome exactly as wait gives it: never claim a pass the gate did not give.";

/** `up` for this tree, as a child tied to this server by an IPC channel: it stops when the server goes. */
function startWorkers(layout: Layout): ChildProcess {
  mkdirSync(layout.logs, { recursive: true });
  const log = openSync(path.join(layout.logs, "mcp-up.log"), "a");
  const child = spawn(process.execPath, [BIN, "up", "--root", layout.root], { stdio: ["ignore", log, log, "ipc"] });
  child.on("error", (error) => process.stderr.write(`guild-bus mcp: could not start the workers: ${error.message}\n`));
  return child;
}

export function register(program: Command): void {
  program
    .command("mcp")
    .description("serve the bus to an author host over MCP on stdin/stdout (tools: request_review, wait, status, findings, …)")
    .option("--root <dir>", "project root (holds .guild/)", process.cwd())
    .option("--no-up", "do not start the workers (`guild-bus up` runs elsewhere)")
    .option("--wait-seconds <s>", "default time budget of a wait call: keep it below the host's MCP tool timeout", intArg(1, 3600), 45)
    .action(async (o: { root: string; up: boolean; waitSeconds: number }) => {
      const layout = new Layout(o.root);
      const { createMcpServer, serveStdio } = await import("../mcp/server.js");
      const workers = o.up ? startWorkers(layout) : null;
      process.stderr.write(
        workers
          ? `guild-bus mcp: serving ${layout.root}; workers started (log: ${path.relative(layout.root, layout.logs)}/mcp-up.log)\n`
          : `guild-bus mcp: serving ${layout.root}; start the workers with \`guild-bus up --root ${layout.root}\`\n`,
      );
      try {
        await serveStdio(createMcpServer(layout, { version: packageVersion(), instructions: INSTRUCTIONS, waitSeconds: o.waitSeconds }));
      } finally {
        workers?.kill("SIGTERM");
      }
    });
}
