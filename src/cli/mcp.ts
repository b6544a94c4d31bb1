// guild-bus mcp: serve the bus to an author host over MCP (stdio), starting the workers when the tree has none.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, renameSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { summary } from "./overview.js";
import { Layout } from "../bus/layout.js";
import { lostGuildLink } from "../bus/project-root.js";
import { refuseSymlinks } from "../bus/no-symlinks.js";
import { makeDirsBelow } from "../bus/make-dirs.js";
import { notWritableInPlace } from "../bus/append-lines.js";
import { runningSupervisor } from "../runtime/supervisor-lock.js";
import { ROOT_HELP } from "./errors.js";
import { intArg } from "./options.js";
import { BIN } from "./worker.js";
import { packageVersion } from "./version.js";
import { print } from "./safe-output.js";
import { exited, lookUntil } from "./look-until.js";
import { shellWord } from "./format.js";

/** The instructions an MCP client shows its model: the loop, and the one rule that matters. */
const INSTRUCTIONS =
  "guild-bus runs cross-family adversarial review. To have an artifact reviewed: request_review, then wait until it " +
  "stops (call wait again while it answers still_running). If it needs you, read the findings, revise the artifact, " +
  "resubmit, wait again. Report the gate's outcome exactly as wait gives it: never claim a pass the gate did not give.";

/** How often the server checks that the tree still has a supervisor (another server's `up` may have gone with it). */
const SUPERVISOR_CHECK_MS = 10_000;
/** How long a first wait or status waits for the `up` this server started to take its lock (it starts in about a second). */
const STARTED_WAIT_MS = 10_000;

/** Past this size the workers' log is moved to `mcp-up.log.1` (replacing the one before) when `up` is next started. */
export const MAX_UP_LOG_BYTES = 8 * 1024 * 1024;

/** The workers' log, appended to; null when its place holds no file we may write (a FIFO would block the open). */
function openUpLog(layout: Layout): number | null {
  const file = path.join(layout.logs, "mcp-up.log");
  let fd: number;
  try {
    refuseSymlinks(layout.guild, layout.logs);
    makeDirsBelow(layout.guild, layout.logs); // only inside the .guild that is there: a removed one is not made again
    // every round, every start and every refused try (each 10 s while settings are broken) adds lines: a host left
    // open for months must not fill the disk
    try {
      if ((lstatSync(file, { throwIfNoEntry: false })?.size ?? 0) >= MAX_UP_LOG_BYTES) renameSync(file, `${file}.1`);
    } catch {
      // another server moved it first, or the directory refuses: appended to as it is
    }
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  } catch {
    return null; // a symlink, a file where the directory should be, a read-only tree: the workers run without it
  }
  if (!notWritableInPlace(fstatSync(fd))) return fd; // a hard link would carry the log out of .guild
  closeSync(fd);
  return null;
}

/**
 * Keep `up` running for this tree while the server serves: start one unless one runs already (one supervisor per
 * tree), as a child tied to this server by an IPC channel, and start one again if the tree is left with none. A tree
 * without .guild/ gets none until a review is requested there (`ready({ create: true })`) or .guild/ appears: a host
 * loads this server in every project (a user-wide plugin or extension), and a project that never used guild-bus must
 * not be given a .guild/ and workers by opening a session in it; nor one a person removed (SPEC §4). Returns how to let
 * it go (the child drains: reviews in flight finish) and `ready`, which settles once the workers can be seen (see
 * supervisorSeen).
 */
function keepWorkers(
  layout: Layout,
  say: (line: string) => void,
): { release: () => void; ready: (o?: { create?: boolean }) => Promise<void> } {
  let child: ChildProcess | null = null;
  let seen: Promise<void> = Promise.resolve();
  let releasing = false;
  let lastExit = "";
  let toldUnused = false;
  const logName = `${path.relative(layout.root, layout.logs)}/mcp-up.log`;
  const alive = () => child !== null && child.exitCode === null && child.signalCode === null;
  const ensure = () => {
    if (alive()) {
      // a try that has run since the last check after workers that exited: they run again, and a later exit is news
      if (lastExit) say("the workers are running again");
      lastExit = "";
      return;
    }
    // nor again once a person removed it (a reset) and the workers ended: `up` would make .guild anew
    if (!existsSync(layout.guild)) {
      const lost = lostGuildLink(layout.root); // a link there that leads nowhere is not a project without a bus
      const why = child ? ".guild/ is gone: the workers start again" : "no .guild/ here yet: the workers start";
      if (!toldUnused) say(lost ?? `${why} with the first request_review (or once .guild/ exists)`);
      toldUnused = true;
      return;
    }
    toldUnused = false; // said again if it goes
    const running = runningSupervisor(layout);
    if (running) {
      if (!child) say(`workers already supervised by guild-bus up (pid ${running.pid} on ${running.host})`);
      return;
    }
    const log = openUpLog(layout);
    try {
      child = spawn(process.execPath, [BIN, "up", "--root", layout.root], { stdio: ["ignore", log ?? "ignore", log ?? "ignore", "ipc"] });
    } finally {
      if (log !== null) closeSync(log); // the child has its own copy
    }
    seen = supervisorSeen(layout, child);
    child.on("error", (error) => say(`could not start the workers: ${error.message}`));
    // `up` may refuse at once (settings broken since this server started, another supervisor won the lock): say so,
    // once per way it ended; the retries after it are quiet until one runs
    child.on("exit", (code, signal) => {
      const ended = signal ?? `code ${code}`;
      if (releasing || ended === lastExit) return;
      lastExit = ended;
      say(`the workers exited (${ended}; see ${logName}): trying again every ${SUPERVISOR_CHECK_MS / 1000} s`);
    });
    if (!lastExit) say(`starting the workers (log: ${log === null ? `none: ${logName} is not a file we may write` : logName})`);
  };
  // a tree that refuses the workers (an unreadable lock, a file where .guild/logs should be) is said, never a crash
  const tryEnsure = () => {
    try {
      ensure();
    } catch (error) {
      say(`could not start the workers: ${(error as Error).message}`);
    }
  };
  tryEnsure();
  const timer = setInterval(tryEnsure, SUPERVISOR_CHECK_MS).unref();
  return {
    release: () => {
      releasing = true;
      clearInterval(timer);
      if (child?.connected) child.disconnect();
    },
    ready: (o = {}) => {
      if (o.create && !releasing && !alive()) {
        try {
          mkdirSync(layout.guild);
        } catch {
          // there already, or not makeable here: `up` and the request say why
        }
        tryEnsure();
      }
      return seen;
    },
  };
}

/**
 * Settles once the tree's `up` can be seen (its lock), the one started here ended, or STARTED_WAIT_MS passed: until
 * then a gate reads "no broker worker is running — run: guild-bus up", which is not the step to take.
 */
function supervisorSeen(layout: Layout, child: ChildProcess): Promise<void> {
  return lookUntil(() => {
    try {
      return runningSupervisor(layout) !== null || exited(child);
    } catch {
      return true; // a lock that cannot be read: the status says so, waiting longer would not change it
    }
  }, STARTED_WAIT_MS);
}

export function register(program: Command): void {
  program
    .command("mcp")
    .description(summary("mcp"))
    .option("--root <dir>", ROOT_HELP)
    .option("--no-up", "do not start the workers (`guild-bus up` runs elsewhere)")
    .option("--wait-seconds <s>", "default time budget of a wait call: keep it below the host's MCP tool timeout", intArg(1, 3600), 45)
    .action(async (o: { root: string; up: boolean; waitSeconds: number }) => {
      const layout = new Layout(o.root);
      const { createMcpServer, serveStdio } = await import("../mcp/server.js");
      const say = (line: string) => print("stderr", `guild-bus mcp: ${line}\n`);
      say(`serving ${layout.root}`);
      if (!o.up) say(`start the workers with \`guild-bus up --root ${shellWord(layout.root)}\``);
      const workers = o.up ? keepWorkers(layout, say) : null;
      const release = workers?.release ?? (() => undefined);
      try {
        await serveStdio(
          createMcpServer(layout, {
            version: packageVersion(),
            instructions: INSTRUCTIONS,
            waitSeconds: o.waitSeconds,
            workers: workers?.ready,
          }),
        );
      } finally {
        release();
      }
    });
}
