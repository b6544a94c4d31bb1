// `guild-bus up` supervises the workers: it starts what the settings need, restarts a worker that dies, gives up on
// one that keeps dying as it starts, and stops them all on SIGTERM.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { WORKER_KINDS } from "../../src/spec/constants.js";
import { BIN, makeProject, type Project, received, scriptedProvider } from "../helpers/bus.js";
import { processesMentioning } from "../helpers/cli-review.js";
import { scaled, waitSeconds } from "../helpers/machine.js";

const ups = new Set<ChildProcess>();
afterEach(() => {
  for (const up of ups) if (up.exitCode === null && up.signalCode === null) up.kill("SIGTERM"); // a failed test leaves none running
  ups.clear();
});

/** A real `up` process, its stderr collected, and a wait for a line of it (generous deadline: CI is loaded). */
function startUp(p: Project, args: string[] = [], options: { ownGroup?: boolean } = {}) {
  // ownGroup: up and its workers in a process group of their own, as in a terminal, where Ctrl-C reaches them all
  const child = spawn(process.execPath, [BIN, "up", "--root", p.root, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.ownGroup,
  });
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

/** Wait until `check` holds (generous deadline: CI is loaded). */
async function until(what: string, check: () => boolean, timeoutMs = scaled(30_000)): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !check(); await sleep(100))
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
}

/** A project whose reviewer takes `slowMs` to answer, and a review of docs/spec.md requested (not waited for). */
function slowReview(slowMs: number) {
  const p = makeProject();
  const provider = scriptedProvider(
    p.root,
    "gpt",
    "gpt-5-scripted",
    { default: "slow-satisfied", slow_ms: slowMs },
    { timeout_ms: slowMs * 4 },
  );
  p.settings({ providers: { gpt: provider } });
  p.write("docs/spec.md", "# Spec\n");
  return {
    p,
    request: () => expect(p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", "d1"]).code).toBe(0),
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

  it("a reviewer served from outside (adapter external) gets no worker: up starts none for it and refuses it in --kinds", async () => {
    const p = makeProject();
    p.settings({ providers: { "py-gemini": { adapter: "external", model: "gemini-2.5-pro" } } });
    const up = startUp(p);
    try {
      await up.waitLog(/supervising: (.*) \(Ctrl-C to stop\)/);
      expect(/supervising: (.*) \(Ctrl-C to stop\)/.exec(up.log())![1]!.split(", ")).not.toContain("external");
      const providers = JSON.parse(p.cli(["providers", "--json"]).stdout) as { providers: Array<{ id: string; available: boolean }> };
      expect(providers.providers.find((x) => x.id === "py-gemini")).toMatchObject({ available: true });
    } finally {
      expect(await stopUp(up)).toBe(0);
    }
    const r = spawnSync(process.execPath, [BIN, "up", "--root", p.root, "--kinds", "broker,external"], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('--kinds: unknown worker kind "external"');
  });

  it("a reviewer of a kind added to the settings while up runs gets its worker, and its review ends", async () => {
    const p = makeProject();
    p.write("docs/spec.md", "# Spec\n");
    const up = startUp(p);
    try {
      await up.waitLog(/supervising: broker, verifier, manual \(Ctrl-C to stop\)/);
      p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "satisfied" }) } });
      await up.waitLog(/the settings now configure command: supervising it too/);
      const r = p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--author-model", "claude-opus-4-5", "--wait"]);
      expect(r.code, r.stderr + up.log()).toBe(0);
    } finally {
      expect(await stopUp(up)).toBe(0);
    }
  });

  it("a reviewer added to the settings while up still detects the first ones gets its worker too", async () => {
    const p = makeProject();
    const probing = path.join(p.root, "probing");
    const go = path.join(p.root, "go");
    // a codex CLI whose --version answers only once the test has edited the settings: the edit lands mid-detection
    const codex = path.join(p.root, "slow-codex");
    writeFileSync(codex, `#!/bin/sh\ntouch '${probing}'\nwhile [ ! -e '${go}' ]; do sleep 0.05; done\necho 'codex-cli 0.50.0'\n`);
    chmodSync(codex, 0o755);
    const cx = { adapter: "codex", binary: codex, model: "gpt-5" };
    p.settings({ providers: { cx } });
    const up = startUp(p);
    try {
      await until("up probes the codex CLI", () => existsSync(probing));
      p.settings({ providers: { cx, gm: { adapter: "gemini", model: "gemini-2.5-pro" } } });
      writeFileSync(go, "");
      await up.waitLog(/supervising: broker, verifier, manual, codex \(Ctrl-C to stop\)/);
      // up looks every 2 s whether the settings changed since it read them
      await up.waitLog(/the settings now configure gemini: supervising it too/, scaled(30_000));
    } finally {
      expect(await stopUp(up)).toBe(0);
    }
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
      expect(up.log()).toMatch(/\.guild\/runs \(or a directory above it\) is not a directory: move it aside/); // each worker's own error
      expect(up.log()).toMatch(/no worker left to supervise\n$/);
      expect(processesMentioning(`--root ${p.root}`)).toEqual([]);
    },
  );

  it(
    "without --kinds too, up exits 1 once every worker was given up (nothing is left to look for new kinds)",
    { timeout: scaled(120_000) },
    async () => {
      const p = makeProject();
      rmSync(path.join(p.root, ".guild", "runs"), { recursive: true });
      writeFileSync(path.join(p.root, ".guild", "runs"), "not a directory\n");
      const up = startUp(p);
      expect(await up.exited, up.log()).toBe(1);
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

  describe("its workers never outlive it", () => {
    const workersOf = (p: Project) =>
      processesMentioning(`worker broker --root ${p.root}`).concat(processesMentioning(`worker verifier --root ${p.root}`));

    it("kill -9 of up: every worker sees its channel close and exits", async () => {
      const p = makeProject();
      const up = startUp(p, ["--kinds", "broker,verifier"]);
      await up.waitLog(/verifier worker watching/);
      await up.waitLog(/broker worker watching/);
      expect(workersOf(p)).toHaveLength(2);
      up.child.kill("SIGKILL");
      await up.exited;
      await up.waitLog(/supervisor gone; finishing what is in flight, then exiting/);
      await until("no worker is left", () => workersOf(p).length === 0);
    });

    it("SIGHUP (terminal closed) drains and exits 0, taking its workers with it, and frees the tree for the next up", async () => {
      const p = makeProject();
      const up = startUp(p, ["--kinds", "broker,verifier"]);
      await up.waitLog(/verifier worker watching/);
      await up.waitLog(/broker worker watching/);
      up.child.kill("SIGHUP");
      expect(await up.exited, up.log()).toBe(0);
      expect(up.log()).toMatch(/\[up\] SIGHUP \(terminal closed\): no new work is taken/);
      expect(workersOf(p)).toEqual([]);
      const next = startUp(p, ["--kinds", "broker"]);
      await next.waitLog(/broker worker watching/);
      expect(await stopUp(next)).toBe(0);
    });

    it("a closed output pipe (up | head) drains and exits instead of leaving the workers behind", async () => {
      const p = makeProject();
      const up = startUp(p, ["--kinds", "broker,verifier"]);
      await up.waitLog(/verifier worker watching/);
      await up.waitLog(/broker worker watching/);
      up.child.stderr!.destroy(); // the reader went away, like `head` after its lines
      const [victim] = processesMentioning(`worker verifier --root ${p.root}`);
      process.kill(victim!, "SIGKILL"); // up has something to say about it, and finds nobody listening
      expect(await up.exited).toBe(0);
      await until("no worker is left", () => workersOf(p).length === 0);
    });
  });

  it("a second up on the same tree is refused, naming the running one; nothing is started twice", async () => {
    const p = makeProject();
    const up = startUp(p, ["--kinds", "broker"]);
    try {
      await up.waitLog(/broker worker watching/);
      const second = spawnSync(process.execPath, [BIN, "up", "--root", p.root, "--kinds", "broker"], {
        encoding: "utf8",
        timeout: scaled(60_000),
      });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`guild-bus: another guild-bus up already supervises ${p.root} (pid ${up.child.pid} on `);
      expect(processesMentioning(`worker broker --root ${p.root}`)).toHaveLength(1);
    } finally {
      expect(await stopUp(up)).toBe(0);
    }
  });

  it("an up that died without releasing the tree (kill -9) does not block the next one", async () => {
    const p = makeProject();
    const first = startUp(p, ["--kinds", "broker"]);
    await first.waitLog(/broker worker watching/);
    first.child.kill("SIGKILL");
    await first.exited;
    const next = startUp(p, ["--kinds", "broker"]);
    await next.waitLog(/supervising: broker/);
    expect(await stopUp(next)).toBe(0);
  });

  describe("Ctrl-C during a dispatch", () => {
    it(
      "the first Ctrl-C takes no new work and waits for the review in flight, which is delivered",
      { timeout: scaled(120_000) },
      async () => {
        const { p, request } = slowReview(scaled(6000));
        const up = startUp(p, ["--kinds", "broker,verifier,command"], { ownGroup: true });
        await up.waitLog(/command worker watching/);
        request();
        await until("the reviewer got the packet", () => received(p.root, "gpt").length === 1);
        process.kill(-up.child.pid!, "SIGINT"); // the terminal's Ctrl-C: up, its workers (the reviewer runs in a group of its own)
        await up.waitLog(
          /\[up\] interrupted: no new work is taken; waiting for the work in flight to finish \(Ctrl-C again to stop at once\)/,
        );
        await up.waitLog(/\[command \d+\] finishing what is in flight before exiting: d1\/G-spec/);
        expect(await up.exited, up.log()).toBe(0);
        expect(p.files("d1", "G-spec")).toContain("result-1.json");
        expect(processesMentioning(`--root ${p.root}`)).toEqual([]);
      },
    );

    it("a second Ctrl-C stops at once, abandoning the dispatch", { timeout: scaled(120_000) }, async () => {
      const { p, request } = slowReview(scaled(300_000));
      const up = startUp(p, ["--kinds", "broker,verifier,command"], { ownGroup: true });
      await up.waitLog(/command worker watching/);
      request();
      await until("the reviewer got the packet", () => received(p.root, "gpt").length === 1);
      process.kill(-up.child.pid!, "SIGINT");
      await up.waitLog(/\[up\] interrupted: no new work is taken/);
      process.kill(-up.child.pid!, "SIGINT");
      expect(await up.exited, up.log()).toBe(0);
      expect(p.files("d1", "G-spec")).not.toContain("result-1.json");
      expect(processesMentioning(`--root ${p.root}`)).toEqual([]);
      // this test's reviewer (its plan is in this project; other tests run reviewers of their own meanwhile)
      expect(processesMentioning(path.join(p.root, "plan-gpt.json"))).toEqual([]); // its process group went with it
    });
  });
});
