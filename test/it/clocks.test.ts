// Machines sharing one tree whose clocks disagree: a worker's clock is shifted by a preload (test/helpers/clock-skew.cjs).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, received, REPO, scriptedProvider } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";

const GATE = "G-spec";
const skewed = (ms: number) => ({
  NODE_OPTIONS: `--require ${path.join(REPO, "test", "helpers", "clock-skew.cjs")}`,
  GUILD_TEST_CLOCK_SKEW_MS: String(ms),
});

describe("clocks that disagree", () => {
  it("a reviewer worker whose clock is an hour ahead or behind never takes another's live claim", async () => {
    const p = makeProject();
    // the review outlasts the 2 s claim stale time several times over: only the holder's refreshes keep its claim
    const plan = { default: "slow-satisfied", slow_ms: scaled(8000) };
    // a reviewer timeout well past the review: the round must end on its answer, however slow the machine
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", plan, { timeout_ms: plan.slow_ms + 60_000 }) } });
    p.write("docs/spec.md", "# Spec\n\n- criteria\n");
    p.startWorker("broker");
    p.startWorker("verifier");
    p.startWorker("command");
    expect(p.cli(["review", "docs/spec.md", "--gate", GATE, "--author", "claude", "--run-id", "skew"]).code).toBe(0);
    await p.waitFor("skew", GATE, (f) => f.includes("attempt-1.json"), "the first worker's dispatch");
    // before: the one ahead took the claim as stale at once, the one behind re-dated it "from the future" (so its
    // holder gave it up); either way the live dispatch was killed and the round ended no_verdict for a person
    p.startWorker("command", [], skewed(3_600_000));
    p.startWorker("command", [], skewed(-3_600_000));
    const s = await p.waitState("skew", GATE, ["done", "awaiting_decision"], scaled(90_000));
    expect(s.status, s.detail as string).toBe("satisfied");
    expect(p.files("skew", GATE)).not.toContain("failure-1.json");
    expect(received(p.root, "gpt"), "one paid dispatch").toHaveLength(1);
  });
});
