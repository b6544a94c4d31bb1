// Integration: what a command reviewer's child process leaves behind and how much of its output counts, through real
// worker processes (broker, verifier, command reviewer).
import { readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_OUTPUT_BYTES } from "../../src/adapters/child.js";
import { makeProject, type Project, REPO, startBus } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";
import { scaled } from "../helpers/machine.js";

const REVIEWER = path.join(REPO, "test", "helpers", "child-reviewer.mjs");
const RUN = "c1";
const GATE = "G-spec";

/** Alive and not a zombie (an orphan's zombie may wait for a reaper that never comes in a container). */
function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

const leftovers: number[] = [];
afterEach(() => {
  // a failing run must not leave its sleeper behind
  for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL");
});

function setup(args: string[]): { p: Project; log: string } {
  const p = makeProject();
  const log = path.join(p.root, "dispatches.log");
  p.settings({
    providers: { gpt: { adapter: "command", model: "gpt-5-test", argv: [process.execPath, REVIEWER, ...args, log], timeout_ms: 60_000 } },
  });
  p.write("docs/spec.md", "# Spec\n\n- exports finish within 2 s\n");
  startBus(p);
  expect(p.cli(["review", "docs/spec.md", "--gate", GATE, "--author", "claude", "--run-id", RUN]).code).toBe(0);
  return { p, log };
}

const dispatches = (log: string) =>
  readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((l) => Number(l.split(" ")[0]));

describe("reviewer child processes (integration)", () => {
  it(
    "a grandchild the reviewer leaves running is killed with its process group when the reviewer exits 0",
    async () => {
      const pidFile = path.join(tempRoot("guild-bus-grandchild-"), "grandchild.pid");
      const { p } = setup(["grandchild", pidFile]);
      expect((await p.waitState(RUN, GATE, ["done"], scaled(60_000))).status).toBe("satisfied");
      const pid = Number(readFileSync(pidFile, "utf8"));
      leftovers.push(pid);
      expect(pid).toBeGreaterThan(0);
      const deadline = Date.now() + scaled(30_000);
      while (alive(pid) && Date.now() < deadline) await sleep(100);
      expect(alive(pid), `grandchild ${pid} still running after the round ended`).toBe(false);
    },
    scaled(120_000),
  );

  it(
    "17 MiB of output with a valid ## SATISFIED early and a blocking finding past the cap: malformed, never normalized or repaired",
    async () => {
      const { p, log } = setup(["flood", String(17 * 1024 * 1024)]);
      // a verdict instead would mean the truncated text was normalized
      await p.waitFor(RUN, GATE, (f) => f.includes("failure-1.json") || f.includes("verdict-1.json"), "round 1 to end", scaled(60_000));
      const failure = p.readJson<{
        kind: string;
        reason: string;
        dispatch_attempts: Array<{ outcome: string; reason?: string; repair?: boolean }>;
      }>(RUN, GATE, "failure-1.json");
      expect(failure).toMatchObject({ kind: "malformed", reason: `output over ${MAX_OUTPUT_BYTES} bytes` });
      expect(failure.dispatch_attempts).toEqual([
        expect.objectContaining({ outcome: "output", reason: `output over ${MAX_OUTPUT_BYTES} bytes` }),
      ]);
      expect(p.files(RUN, GATE)).not.toContain("result-1.json");
      // The malformed round restarts like any other; the next one answers normally and ends the gate.
      const s = await p.waitState(RUN, GATE, ["done"], scaled(60_000));
      expect(s).toMatchObject({ status: "satisfied" });
      expect(p.readJson(RUN, GATE, "outcome.json")).toMatchObject({ status: "satisfied", satisfied_at_round: 2 });
      expect(dispatches(log)).toEqual([1, 2]); // round 1 once: no schema repair for an oversized answer
    },
    scaled(180_000),
  );
});
