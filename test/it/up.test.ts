// `guild-bus up` supervises the workers: it starts what the settings need, restarts a worker that dies, gives up on
// one that keeps dying as it starts, and stops them all on SIGTERM.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { WORKER_KINDS } from "../../src/spec/constants.js";
import { BIN, makeProject, type Project, scriptedProvider } from "../helpers/bus.js";
import { processesMentioning } from "../helpers/cli-review.js";
import { scaled, waitSeconds } from "../helpers/machine.js";

const ups = new Set<ChildProcess>();
afterEach(() => {
  for (const up of ups) if (up.exitCode === null && up.signalCode === null) up.kill("SIGTERM"); // a failed test leaves none running
  ups.clear();
});

/** A real `up` process, its stderr collected, and a wait for a line of it (generous deadline: CI is loaded). */
function startUp(p: Project, args: string[] = []) {
  const child = spawn(process.execPath, [BIN, "up", "--root", p.root, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  ups.add(child);
  let log = "";
  child.stderr!.on("data", (b: Buffer) => (log += b));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    exited,
    log: () => log,
    async waitLog(re: RegExp, timeoutMs = scaled(60_000)): Promise<RegExpMatchArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = re.exec(log);
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${re} in the up log:\n${log}`);
        await sleep(50);
      }
    },
  };
}

async function stopUp(up: { child: ChildProcess; exited: Promise<number | null> }): Promise<number | null> {
  up.child.kill("SIGTERM");
  return up.exited;
}

describe("guild-bus up (integration)", () => {
  it("runs a review end to end, restarts a killed worker, and stops everything on SIGTERM", async () => {
    const p = makeProject();
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "satisfied" }) } });
    p.write("docs/spec.md", "# Spec\n");
    const up = startUp(p);
    try {
      await up.waitLog(/supervising: broker, verifier, manual, command/);
      const r = p.cli([
        "review",
        "docs/spec.md",
        "--gate",
        "G-spec",
        "--author",
        "claude",
        "--run-id",
        "u1",
        "--wait",
        "--json",
        "--timeout",
        waitSeconds(60),
      ]);
      expect(r.code, r.stderr + up.log()).toBe(0);

      const workerPids = () => processesMentioning(`worker command --root ${p.root}`);
      const [victim] = workerPids();
      expect(victim).toBeDefined();
      process.kill(victim!, "SIGKILL");
      await up.waitLog(/command worker exited \(SIGKILL\); restarting/);
      for (const deadline = Date.now() + scaled(10_000); Date.now() < deadline && !workerPids().some((pid) => pid !== victim);)
        await sleep(100);
      expect(workerPids().filter((pid) => pid !== victim)).toHaveLength(1);
      expect(
        p.cli([
          "review",
          "docs/spec.md",
          "--gate",
          "G-plan",
          "--author",
          "claude",
          "--run-id",
          "u1",
          "--wait",
          "--timeout",
          waitSeconds(60),
        ]).code,
      ).toBe(0);
    } finally {
      expect(await stopUp(up)).toBe(0);
    }
    expect(processesMentioning(`--root ${p.root}`)).toEqual([]);
  });

  it("--kinds with an unknown kind is a usage error listing the valid kinds; nothing is started", () => {
    const p = makeProject();
    const r = spawnSync(process.execPath, [BIN, "up", "--root", p.root, "--kinds", "broker,;rm -rf /"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`guild-bus: --kinds: unknown worker kind ";rm -rf /"; the kinds are ${WORKER_KINDS.join(", ")}\n`);
    expect(processesMentioning(`--root ${p.root}`)).toEqual([]);
  });

  it(
    "a worker that cannot start is retried after 0.5, 1, 2 and 4 s, then given up with the reason; up exits 1 when none is left",
    { timeout: scaled(120_000) },
    async () => {
      const p = makeProject();
      rmSync(path.join(p.root, ".guild", "runs"), { recursive: true });
      writeFileSync(path.join(p.root, ".guild", "runs"), "not a directory\n"); // every worker fails as it starts
      const up = startUp(p, ["--kinds", "broker,verifier"]);
      expect(await up.exited, up.log()).toBe(1);
      for (const kind of ["broker", "verifier"]) {
        const restarts = [...up.log().matchAll(new RegExp(`\\[up\\] ${kind} worker exited \\(1\\); restarting in (\\d+) ms`, "g"))].map(
          (m) => Number(m[1]),
        );
        expect(restarts, up.log()).toEqual([500, 1000, 2000, 4000]);
        expect(up.log()).toMatch(
          new RegExp(`\\[up\\] ${kind} worker exited \\(1\\) 5 times in a row within 5 s of starting; not restarting it`),
        );
      }
      expect(up.log()).toMatch(/EEXIST.*\.guild\/runs/); // each worker's own error
      expect(up.log()).toMatch(/no worker left to supervise\n$/);
      expect(processesMentioning(`--root ${p.root}`)).toEqual([]);
    },
  );

  it(
    "a worker that dies every time it starts is given up while the others keep serving reviews",
    { timeout: scaled(180_000) },
    async () => {
      const p = makeProject();
      p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "satisfied" }) } });
      p.write("docs/spec.md", "# Spec\n");
      const up = startUp(p, ["--kinds", "broker,verifier,command,manual"]);
      try {
        await up.waitLog(/supervising: broker, verifier, command, manual/);
        const killed = new Set<number>();
        while (!/manual worker exited \(SIGKILL\) 5 times in a row/.test(up.log())) {
          for (const pid of processesMentioning(`worker manual --root ${p.root}`)) {
            if (killed.has(pid)) continue;
            killed.add(pid);
            process.kill(pid, "SIGKILL");
          }
          if (killed.size > 5) throw new Error(`manual was restarted after its fifth quick exit:\n${up.log()}`);
          await sleep(20);
        }
        expect(up.log()).toMatch(
          /manual worker exited \(SIGKILL\) 5 times in a row within 5 s of starting; not restarting it \(its error is above\); still supervising broker, verifier, command/,
        );
        expect([...up.log().matchAll(/manual worker exited \(SIGKILL\); restarting in (\d+) ms/g)].map((m) => Number(m[1]))).toEqual([
          500, 1000, 2000, 4000,
        ]);
        const r = p.cli([
          "review",
          "docs/spec.md",
          "--gate",
          "G-spec",
          "--author",
          "claude",
          "--run-id",
          "k1",
          "--wait",
          "--json",
          "--timeout",
          waitSeconds(60),
        ]);
        expect(r.code, r.stderr + up.log()).toBe(0);
        expect(processesMentioning(`worker manual --root ${p.root}`)).toEqual([]);
      } finally {
        expect(await stopUp(up)).toBe(0);
      }
      expect(processesMentioning(`--root ${p.root}`)).toEqual([]);
    },
  );
});
