// `npm run bench` drives the real workers through the bus's own rules, so a change of those rules can leave a figure
// unable to run (the chain of rounds once stopped at its second round, on an escalation it had no answer for). Each
// figure that chains rounds runs here with a few rounds: it must finish every round it set out to time. Its speed is
// the bench's business, never asserted here.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/bus.js";

const RUN = path.join(REPO, "dist", "bench", "run.js");
const bench = (...args: string[]) => spawnSync(process.execPath, [RUN, ...args], { cwd: REPO, encoding: "utf8", timeout: 300_000 });

describe("the bench's figures still run", () => {
  it("a chain of rounds on one gate reaches its last round, each one timed", () => {
    const run = bench("--rounds", "6");
    expect(run.status, run.stderr).toBe(0);
    const { watch } = JSON.parse(run.stdout) as { watch: { rounds: number; rounds_through_escalation: number; p50_ms: number } };
    expect(watch).toMatchObject({ rounds: 6, rounds_through_escalation: 0 });
    expect(Number.isFinite(watch.p50_ms)).toBe(true);
  });

  it("a burst of gates ends with none lost", () => {
    const run = bench("--throughput", "20");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/│ 0 +│ [\d.]+ +│ 1 +│ 1 +│ 20 +│ 40 +│ [\d.]+ +│ [\d.]+ +│ 0 +│/);
  });
});
