// A test that SIGKILLs a worker mid-dispatch leaves nothing running once it is over (test/helpers/leftovers.ts, and the
// reviewer groups test/helpers/bus.ts sweeps): the reviewer child, which its dead worker can no longer kill, goes with
// the test. The tests of this file run in order: the second looks at what the first left.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { makeProject, scriptedProvider, stopChild } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";

/** Running, not a zombie waiting for a reaper. */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "latin1"));
  } catch {
    return false;
  }
}

let orphan = 0;

describe.runIf(process.platform === "linux")("what a test leaves running", () => {
  it("a command worker SIGKILLed while its reviewer hangs leaves that reviewer running (until the test is over)", async () => {
    const p = makeProject();
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "hang" }, { timeout_ms: 3_600_000 }) } });
    p.write("docs/spec.md", "# Spec\n\n- criteria\n");
    p.startWorker("broker");
    const command = p.startWorker("command");
    expect(p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", "r1"]).code).toBe(0);
    // the scripted reviewer keeps a copy of its packet as <n>-<its pid>.md once it has read it
    const log = path.join(p.root, "received-gpt");
    for (const deadline = Date.now() + scaled(60_000); !orphan; await sleep(100)) {
      if (Date.now() > deadline) throw new Error(`no reviewer started:\n${p.logs.join("").slice(-2000)}`);
      try {
        orphan = Number(/-(\d+)\.md$/.exec(readdirSync(log)[0] ?? "")?.[1] ?? 0);
      } catch {
        // not dispatched yet
      }
    }
    await stopChild(command, "SIGKILL");
    expect(running(orphan), "the reviewer outlives its SIGKILLed worker").toBe(true);
  });

  it("once that test is over, its reviewer is gone", async () => {
    expect(orphan).toBeGreaterThan(0);
    // SIGKILLed, it ends as soon as it is scheduled; a longer grace would let another worker's janitor on this machine
    // (any test's, sweeping dead workers' reviewers) hide a leak
    for (const deadline = Date.now() + scaled(1_000); running(orphan) && Date.now() < deadline;) await sleep(20);
    expect(running(orphan), `reviewer ${orphan} still runs`).toBe(false);
  });
});
