// Integration harness: a temp project with settings, real worker processes spawned from bin/guild-bus.js,
// and helpers to drive the CLI and wait for a gate state by reading the files (never by sleeping blindly).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach } from "vitest";
import { sweepOrphanGroups } from "../../src/bus/reviewer-groups.js";
import { Layout } from "../../src/bus/layout.js";
import { THIS_MACHINE } from "../../src/bus/this-machine.js";
import { lastLooks } from "../../src/runtime/peers.js";
import { scaled } from "./machine.js";
import { tempRoot } from "./tmp.js";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = path.join(REPO, "bin", "guild-bus.js");
export const SCRIPTED = path.join(REPO, "dist", "src", "cli", "demo-reviewer.js");
/** Integration suites run once with native watching and once in polling mode (as on NFS, SMB, 9p, FUSE). */
export const MODES = [
  { mode: "watch", poll: false },
  { mode: "poll", poll: true },
] as const;

const live = new Set<ChildProcess>();
/** Every worker the test started, stopped or killed since. */
const started = new Set<number>();

afterEach(async () => {
  await Promise.all([...live].map((c) => stopChild(c)));
  // a worker the test SIGKILLed left its reviewer running (in a scratch directory: not found under the project)
  sweepOrphanGroups(tmpdir(), started);
  started.clear();
});

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    live.delete(child);
    return;
  }
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
  live.delete(child);
}

export interface Project {
  root: string;
  logs: string[];
  settings(value: object): void;
  write(rel: string, text: string): string;
  startWorker(kind: string, extra?: string[], env?: NodeJS.ProcessEnv): ChildProcess;
  cli(args: string[], input?: string): { code: number; stdout: string; stderr: string };
  gateDir(run: string, gate: string): string;
  files(run: string, gate: string): string[];
  readJson<T = Record<string, unknown>>(run: string, gate: string, name: string): T;
  waitFor(run: string, gate: string, predicate: (files: string[]) => boolean, what: string, timeoutMs?: number): Promise<string[]>;
  status(run: string, gate: string): Record<string, unknown> & { state: string; status: string; round: number };
  waitState(run: string, gate: string, states: string[], timeoutMs?: number): Promise<ReturnType<Project["status"]>>;
  /**
   * Until every worker of this project still running has looked at everything after `since` (Date.now() once the test
   * planted what they must see): what they would do about it is done. Their presence files say when (SPEC §18).
   */
  waitLooked(since: number, timeoutMs?: number): Promise<void>;
}

/** A scripted command provider for settings.providers; its plan is src/cli/demo-reviewer.ts's Plan. */
export function scriptedProvider(root: string, name: string, model: string, plan: object = {}, extra: Record<string, unknown> = {}) {
  const planPath = path.join(root, `plan-${name}.json`);
  writeFileSync(planPath, JSON.stringify(plan));
  const logDir = path.join(root, `received-${name}`);
  return { adapter: "command", model, argv: [process.execPath, SCRIPTED, planPath, logDir], timeout_ms: 20_000, ...extra };
}

/** Packets a scripted provider received, in dispatch order. */
export function received(root: string, name: string): string[] {
  const dir = path.join(root, `received-${name}`);
  try {
    return readdirSync(dir)
      .sort()
      .map((f) => readFileSync(path.join(dir, f), "utf8"));
  } catch {
    return [];
  }
}

export function makeProject(options: { poll?: boolean } = {}): Project {
  const root = tempRoot("guild-bus-it-");
  mkdirSync(path.join(root, ".guild", "runs"), { recursive: true });
  const logs: string[] = [];
  const workers: Array<{ kind: string; child: ChildProcess }> = [];
  const project: Project = {
    root,
    logs,
    settings(value) {
      writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify(value, null, 2));
    },
    write(rel, text) {
      const file = path.join(root, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    startWorker(kind, extra = [], env = {}) {
      // a flag in `extra` replaces its default: the CLI refuses a value option given twice
      const defaults = [
        ["--reconcile-ms", "300"],
        ["--full-scan-ms", "2000"],
        ["--claim-stale-ms", "2000"],
      ]
        .filter(([flag]) => !extra.includes(flag!))
        .flat();
      const child = spawn(
        process.execPath,
        [BIN, "worker", kind, "--root", root, ...defaults, ...(options.poll ? ["--poll"] : []), ...extra],
        { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } },
      );
      const tag = `${kind}:${child.pid}`;
      child.stdout!.on("data", (b: Buffer) => logs.push(`${tag} ${b}`));
      child.stderr!.on("data", (b: Buffer) => logs.push(`${tag} ${b}`));
      live.add(child);
      workers.push({ kind, child });
      if (child.pid !== undefined) started.add(child.pid);
      return child;
    },
    cli(args, input) {
      const r = spawnSync(process.execPath, [BIN, ...args, "--root", root], { input, encoding: "utf8", timeout: scaled(60_000) });
      return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
    gateDir(run, gate) {
      return path.join(root, ".guild", "runs", run, "review", gate);
    },
    files(run, gate) {
      try {
        return readdirSync(project.gateDir(run, gate)).sort();
      } catch {
        return [];
      }
    },
    readJson(run, gate, name) {
      return JSON.parse(readFileSync(path.join(project.gateDir(run, gate), name), "utf8"));
    },
    async waitFor(run, gate, predicate, what, timeoutMs = scaled(30_000)) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const files = project.files(run, gate);
        if (predicate(files)) return files;
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; files: ${files.join(" ")}\nlogs:\n${logs.join("").slice(-4000)}`);
        }
        await sleep(100);
      }
    },
    status(run, gate) {
      const r = project.cli(["status", run, gate, "--json"]);
      if (r.code !== 0) throw new Error(`status failed: ${r.stderr}`);
      return JSON.parse(r.stdout).gates[0];
    },
    async waitState(run, gate, states, timeoutMs = scaled(30_000)) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = project.status(run, gate);
        if (states.includes(s.state)) return s;
        if (Date.now() > deadline) {
          throw new Error(
            `timed out waiting for ${states.join("|")}; state ${s.state} (${String(s.detail)}); ` +
              `files: ${project.files(run, gate).join(" ")}\nlogs:\n${logs.join("").slice(-4000)}`,
          );
        }
        await sleep(150);
      }
    },
    async waitLooked(since, timeoutMs = scaled(30_000)) {
      const layout = new Layout(root);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const behind = workers.filter(({ kind, child }) => {
          if (child.exitCode !== null || child.signalCode !== null) return false;
          const looked = lastLooks(layout, kind).find((l) => l.peer === `${THIS_MACHINE}-${child.pid}`)?.looked ?? null;
          return looked === null || looked <= since;
        });
        if (!behind.length) return;
        if (Date.now() > deadline) {
          const who = behind.map(({ kind, child }) => `${kind}:${child.pid}`).join(", ");
          const when = new Date(since).toISOString();
          throw new Error(`timed out waiting for ${who} to look at everything since ${when}\nlogs:\n${logs.join("").slice(-4000)}`);
        }
        await sleep(100);
      }
    },
  };
  return project;
}

/** Start the standard set: broker, verifier and the command reviewer. */
export function startBus(project: Project, kinds = ["broker", "verifier", "command"]): ChildProcess[] {
  return kinds.map((k) => project.startWorker(k));
}
