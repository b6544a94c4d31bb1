// `guild-bus demo`, a new user's first run: it never tells them to start what it starts itself, and shows the files it
// names before it removes them.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
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

  it("a demo killed with -9 leaves none of its workers running", { timeout: scaled(180_000) }, async () => {
    // the killed demo cannot remove its project: it goes with this test's own temporary directory
    const child = spawn(process.execPath, [BIN, "demo"], { stdio: "ignore", env: { ...process.env, TMPDIR: tempRoot() } });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const workers = () => {
      try {
        return readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    };
    await until("the demo started its three workers", () => workers().length === 3, scaled(60_000));
    const pids = workers();
    child.kill("SIGKILL");
    await exited;
    const running = (pid: number) => {
      try {
        return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false;
      }
    };
    try {
      await until("the demo's workers exited", () => !pids.some(running), scaled(60_000));
    } finally {
      for (const pid of pids.filter(running)) process.kill(pid, "SIGKILL");
    }
  });
});
