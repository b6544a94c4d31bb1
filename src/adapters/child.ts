// Runs a reviewer child process: no shell, input on stdin, its own process group (killed on every exit path, so
// nothing it started outlives it; on Linux what left the group is found by its marker), a bounded stdout, in a
// scratch directory or the project; and what every adapter makes of a child that did not exit on its own.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { StringDecoder } from "node:string_decoder";
import path from "node:path";
import { isNightmare } from "../core/adapter-kinds.js";
import { scrubLine } from "../core/scrub.js";
import type { DispatchInput } from "./types.js";
import { isSystemFault, retryOnSystemFault } from "../bus/system-fault.js";
import type { DispatchOutcome } from "../core/dispatch-outcome.js";
import { DISPATCH_MARKER, killMarked, newMarker, recordGroup } from "../bus/reviewer-groups.js";

type ChildOutcome =
  | { kind: "exit"; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
  | { kind: "spawn-error"; code: string; message: string }
  | { kind: "timeout"; stdout: string; stderr: string }
  | { kind: "aborted" }
  /** stdout passed maxOutputBytes: the group was killed at once and nothing it printed is used. */
  | { kind: "overflow"; limit: number; stderr: string };

/** The most a reviewer may answer (stdout, a file it writes back, an HTTP body); more is malformed, never cut short. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** A dispatch's time limit unless the provider sets timeout_ms. */
export const DEFAULT_TIMEOUT_MS = 15 * 60_000;

interface ChildRequest {
  argv: string[];
  stdin: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  signal?: AbortSignal;
  maxOutputBytes?: number;
  /** A stdout line after which the child has said all it will (codex waiting for ever on a refused connection): its
   *  group is killed then, and the run ends as an exit by SIGKILL with what it printed. */
  stopAfter?: (line: string) => boolean;
}

/** SIGKILL the child's process group; `leader` also tries the child alone (no group, e.g. on Windows). */
function killGroup(pid: number | undefined, leader = true): void {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    if (!leader) return; // after the leader was reaped its pid may already be someone else's
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** A spawn failed by a passing shortage (descriptors, processes, memory) is tried again: nothing ran, so nothing is
 * paid twice, and a shortage is no proof that the reviewer is unavailable. */
export async function runChild(req: ChildRequest): Promise<ChildOutcome> {
  try {
    return await retryOnSystemFault(async () => {
      const outcome = await runChildOnce(req);
      if (outcome.kind === "spawn-error" && !req.signal?.aborted) throw new SpawnFailed(outcome);
      return outcome;
    });
  } catch (error) {
    if (error instanceof SpawnFailed) return error.outcome;
    throw error;
  }
}

/** A failed spawn as an error with its errno code, so retryOnSystemFault can tell a shortage from a missing binary. */
class SpawnFailed extends Error {
  readonly code: string;
  constructor(readonly outcome: Extract<ChildOutcome, { kind: "spawn-error" }>) {
    super(outcome.message);
    this.code = outcome.code;
  }
}

/** How long the pipes may stay open after the child exited: its own last output drains well within it. */
const EXIT_DRAIN_MS = 2_000;
/** How long an aborted or timed-out dispatch waits for its killed child's exit (a process SIGKILL cannot end at once). */
const KILL_WAIT_MS = 5_000;

function runChildOnce(req: ChildRequest): Promise<ChildOutcome> {
  const [program, ...args] = req.argv;
  const max = req.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  return new Promise((resolve) => {
    if (req.signal?.aborted) return resolve({ kind: "aborted" });
    let settled = false;
    let drained: ReturnType<typeof setTimeout> | undefined;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const text = (bufs: Buffer[]) => Buffer.concat(bufs).toString("utf8");
    let forget = () => {};
    const marker = newMarker();
    /** The group, and what left it (setsid) but still carries the dispatch's marker: a paid call must not run on. */
    const killAll = () => {
      killGroup(child?.pid);
      killMarked(marker);
    };
    const finish = (outcome: ChildOutcome) => {
      if (settled) return;
      settled = true;
      forget();
      clearTimeout(timer);
      clearTimeout(drained);
      clearTimeout(killWait);
      req.signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    // An abort or the timeout kills the group, and the child's exit then says what happened: one that had exited on
    // its own before either was seen (its worker was stopped, SIGSTOP or a starved machine, while it finished; an
    // overdue timer runs before the exit is read) keeps its answer.
    let aborted = false;
    let timedOut = false;
    let killWait: ReturnType<typeof setTimeout> | undefined;
    const timeout = (): ChildOutcome => ({ kind: "timeout", stdout: text(out), stderr: text(err) });
    const onAbort = () => {
      aborted = true;
      killAll();
      if (child?.pid === undefined) return finish({ kind: "aborted" });
      killWait ??= setTimeout(() => finish({ kind: "aborted" }), KILL_WAIT_MS);
    };
    /** How the child ended: killed by the abort or the timeout, or on its own (its exit status and output). */
    const ended = (code: number | null, signal: NodeJS.Signals | null): ChildOutcome => {
      if (code === null && aborted) return { kind: "aborted" };
      if (code === null && timedOut) return timeout();
      return { kind: "exit", code, signal, stdout: text(out), stderr: text(err) };
    };
    const spawnError = (error: NodeJS.ErrnoException) =>
      finish({ kind: "spawn-error", code: error.code ?? "EUNKNOWN", message: error.message });
    const timer = setTimeout(() => {
      timedOut = true;
      killAll();
      if (child?.pid === undefined) return finish(timeout());
      killWait ??= setTimeout(() => finish(timeout()), KILL_WAIT_MS);
    }, req.timeoutMs);
    let child: ReturnType<typeof spawn> | undefined;
    try {
      child = spawn(program!, args, {
        cwd: req.cwd,
        env: { ...req.env, [DISPATCH_MARKER]: marker },
        shell: false,
        detached: process.platform !== "win32",
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (error) {
      return spawnError(error as NodeJS.ErrnoException);
    }
    // first: out of descriptors (EMFILE) a child has no pipes, and its "error" event with no listener ends the process
    child.on("error", spawnError);
    // a worker killed with -9 kills nothing: the next janitor on this machine kills the group it recorded
    if (child.pid !== undefined && process.platform !== "win32") forget = recordGroup(child.pid, marker);
    if (!child.stdout || !child.stderr || !child.stdin) return; // that "error" event settles it
    let outBytes = 0;
    let overflow = false;
    const decoder = new StringDecoder("utf8");
    let partial = ""; // the unfinished last line, for stopAfter
    child.stdout!.on("data", (b: Buffer) => {
      if (overflow) return;
      outBytes += b.length;
      if (outBytes <= max) {
        out.push(b);
        if (!req.stopAfter) return;
        const lines = (partial + decoder.write(b)).split("\n");
        partial = lines.pop()!;
        if (lines.some(req.stopAfter)) killAll();
        return;
      }
      // Keeping the first `max` bytes could keep a verdict that the rest contradicts: stop here instead.
      overflow = true;
      out.length = 0;
      killAll();
      child.stdout!.destroy();
      finish({ kind: "overflow", limit: max, stderr: text(err) });
    });
    child.stderr!.on("data", (b: Buffer) => {
      if (err.reduce((n, x) => n + x.length, 0) < 1024 * 1024) err.push(b);
    });
    req.signal?.addEventListener("abort", onAbort, { once: true });
    // The leader is gone: whatever it left behind in its group goes too (a grandchild holding stdout open would
    // otherwise also keep "close" from ever coming).
    child.on("exit", (code, signal) => {
      killGroup(child.pid, false);
      // A descendant that left the group (setsid) can hold the pipes open for ever: once what the leader wrote has
      // drained, its answer stands, rather than waiting out the timeout and losing it; the descendant is killed.
      drained = setTimeout(() => {
        killMarked(marker);
        child.stdout!.destroy();
        child.stderr!.destroy();
        err.push(Buffer.from("\n(guild-bus: a process the reviewer started outlived it and held its output open; killed)\n"));
        finish(ended(code, signal));
      }, EXIT_DRAIN_MS);
    });
    child.on("close", (code, signal) => finish(ended(code, signal)));
    child.stdin!.on("error", () => {
      // the child may exit without reading stdin; its exit status tells the story
    });
    child.stdin!.end(req.stdin);
  });
}

/**
 * How a dispatch ends when its child did not exit on its own: only a failed spawn proves that no review ran; a
 * timeout or an abort (worker stopping) may have been paid for; an answer over the cap is oversized.
 */
export function unfinishedChild(
  outcome: Exclude<ChildOutcome, { kind: "exit" }>,
  name: string,
  program: string,
  timeoutMs: number,
): DispatchOutcome {
  switch (outcome.kind) {
    case "spawn-error":
      return {
        kind: "not-run",
        reason: `cannot start ${program}: ${outcome.code} ${outcome.message}`,
        ...(isSystemFault(outcome) ? { shortage: outcome.code } : {}),
      };
    case "timeout":
      return { kind: "ambiguous", reason: `${name} timed out after ${timeoutMs} ms; process group killed` };
    case "aborted":
      return { kind: "ambiguous", reason: `worker stopped during the ${name} dispatch; process group killed` };
    case "overflow":
      return oversized(outcome.limit);
  }
}

export function oversized(limit: number): DispatchOutcome {
  return { kind: "oversized", reason: `output over ${limit} bytes` };
}

/**
 * The end of what a child said, scrubbed, for a failure reason. The word the cut splits goes: the project's patterns
 * and the providers' keys are applied to the reason later (`failureRecord`), and a piece of a secret matches none.
 */
export const tail = (s: string, n = 500) => scrubLine(s, n, "end").replace(/^…\S+/, "…");

/** A relative binary path is relative to the project root (the child runs in a scratch directory). */
export function resolveBinary(binary: string, root: string): string {
  return binary.includes("/") || binary.includes("\\") ? path.resolve(root, binary) : binary;
}

/**
 * The directory a file-reading adapter must run its reviewer in for this dispatch: the project root for a
 * nightmare packet (read-only, so the reviewer reads the repository itself and the author cannot filter it), and
 * null otherwise (the adapter's own empty scratch directory).
 */
export function dispatchWorkdir(input: Pick<DispatchInput, "project" | "front">): string | null {
  return isNightmare(input.front) ? input.project.root : null;
}

/**
 * A private scratch directory for one dispatch (the CLI's cwd, config and temp files), removed whatever happens. Its
 * name carries this worker's pid, so the janitor can remove what a SIGKILLed worker left (a CLI's session holds the
 * packet): `guild-bus-scratch-<kind>-<pid>-<random>` (SCRATCH_NAME in src/bus/janitor.ts).
 */
export async function withScratch<T>(kind: string, use: (scratch: string) => Promise<T>): Promise<T> {
  const scratch = mkdtempSync(path.join(tmpdir(), `guild-bus-scratch-${kind}-${process.pid}-`));
  try {
    return await use(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A CLI's state directory for one dispatch (inside a scratch directory, so it goes away with it), holding links to
 * the few files of the user's own directory the CLI needs (its settings, its login): linked rather than copied, so no
 * credential is copied anywhere and a token the CLI refreshes lands in the user's file.
 */
export function scratchStateDir(dir: string, userDir: string, names: readonly string[]): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const name of names) {
    const source = path.join(userDir, name);
    try {
      if (!statSync(source).isFile()) continue;
    } catch {
      continue; // the user has none
    }
    symlinkSync(source, path.join(dir, name));
  }
}
