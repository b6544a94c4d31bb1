// `guild-bus demo`, a new user's first run: it never tells them to start what it starts itself, and shows the files it
// names before it removes them.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { until } from "../helpers/clients.js";
import { BIN } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";
import { tempRoot } from "../helpers/tmp.js";

function demo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "demo"], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("guild-bus demo", () => {
  it(
    "waits for its own workers, never saying to run `guild-bus up`, and lists the gate's files",
    { timeout: scaled(180_000) },
    async () => {
      const r = await demo();
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/no \w+ worker is running|run: guild-bus up/);
      expect(r.stdout).toMatch(/^packet-1\.md$/m);
      expect(r.stdout).toMatch(/^outcome\.json$/m);
      expect(r.stderr).toContain("`guild-bus demo --keep` keeps it");
    },
  );

  it("a demo stopped with Ctrl-C stops its workers, removes its project and exits 130", { timeout: scaled(180_000) }, async () => {
    const d = await startedDemo();
    expect(d.projects()).toHaveLength(1);
    d.child.kill("SIGINT");
    expect(await d.closed, d.stderr()).toBe(130);
    expect(d.stderr()).toContain("SIGINT: stopping the demo's workers and removing its project");
    expect(d.projects()).toEqual([]);
    expect(d.pids.filter(running)).toEqual([]);
  });

  it(
    "a demo sent Ctrl-C twice in a row still stops its workers, removes its project and exits 130",
    { timeout: scaled(180_000) },
    async () => {
      const d = await startedDemo();
      d.child.kill("SIGINT");
      // signals sent together arrive as one: the second comes once the first is being handled
      await until("the demo began to stop", () => d.stderr().includes("SIGINT: stopping"), scaled(60_000));
      d.child.kill("SIGINT");
      expect(await d.closed, d.stderr()).toBe(130);
      expect(d.projects()).toEqual([]);
      expect(d.pids.filter(running)).toEqual([]);
    },
  );

  it("a demo killed with -9 leaves none of its workers running", { timeout: scaled(180_000) }, async () => {
    // the killed demo cannot remove its project: it goes with this test's own temporary directory
    const child = spawn(process.execPath, [BIN, "demo"], { stdio: "ignore", env: { ...process.env, TMPDIR: tempRoot() } });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await until("the demo started its three workers", () => childrenOf(child.pid!).length === 3, scaled(60_000));
    const pids = childrenOf(child.pid!);
    child.kill("SIGKILL");
    await exited;
    try {
      await until("the demo's workers exited", () => !pids.some(running), scaled(60_000));
    } finally {
      for (const pid of pids.filter(running)) process.kill(pid, "SIGKILL");
    }
  });
});

/** A demo started in a temporary directory of its own, once its three workers run. */
async function startedDemo() {
  const tmp = tempRoot();
  const child = spawn(process.execPath, [BIN, "demo"], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, TMPDIR: tmp } });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
  await until("the demo started its three workers", () => childrenOf(child.pid!).length === 3, scaled(60_000));
  const projects = () => readdirSync(tmp).filter((n) => n.startsWith("guild-bus-demo-"));
  return { child, closed, pids: childrenOf(child.pid!), projects, stderr: () => stderr };
}

/** The processes `pid` started that are still its children. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether `pid` is a process still running (a zombie has ended). */
function running(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
