// `guild-bus up` supervises the workers: it starts what the settings need, restarts a worker that dies, and stops
// them all on SIGTERM.
import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { BIN, makeProject, scriptedProvider } from "./helpers/bus.js";
import { processesMentioning } from "./helpers/cli-review.js";

describe("guild-bus up (integration)", () => {
  it("runs a review end to end, restarts a killed worker, and stops everything on SIGTERM", async () => {
    const p = makeProject();
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "satisfied" }) } });
    p.write("docs/spec.md", "# Spec\n");
    const up = spawn(process.execPath, [BIN, "up", "--root", p.root], { stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    up.stderr!.on("data", (b: Buffer) => (log += b));
    try {
      for (let i = 0; i < 100 && !/supervising: broker, verifier, manual, command/.test(log); i++) await sleep(100);
      expect(log).toMatch(/supervising: broker, verifier, manual, command/);
      const r = p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", "u1", "--wait", "--json", "--timeout", "60"]);
      expect(r.code, r.stderr + log).toBe(0);

      const workerPids = () => processesMentioning(`worker command --root ${p.root}`);
      const [victim] = workerPids();
      expect(victim).toBeDefined();
      process.kill(victim!, "SIGKILL");
      for (let i = 0; i < 100 && !/command worker exited/.test(log); i++) await sleep(100);
      expect(log).toMatch(/command worker exited \(SIGKILL\); restarting/);
      for (let i = 0; i < 100 && !workerPids().some((pid) => pid !== victim); i++) await sleep(100);
      expect(workerPids().filter((pid) => pid !== victim)).toHaveLength(1);
      expect(p.cli(["review", "docs/spec.md", "--gate", "G-plan", "--author", "claude", "--run-id", "u1", "--wait", "--timeout", "60"]).code).toBe(0);
    } finally {
      const exited = new Promise<number | null>((resolve) => up.once("exit", (code) => resolve(code)));
      up.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
    expect(processesMentioning(`--root ${p.root}`)).toEqual([]);
  });
});
