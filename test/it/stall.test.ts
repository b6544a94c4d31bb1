// Integration: stall detection over real workers (SPEC §14.1). A reviewer that raises the same blocking finding
// after every revision stalls the loop long before the cap; a human's answer restarts detection; an unchanged
// resubmit stalls before a packet is spent.
import { readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { makeProject, received, scriptedProvider, startBus } from "../helpers/bus.js";
import { scaled, waitSeconds } from "../helpers/machine.js";

const PLAN = "# Plan\n\n- lane A then lane B\n";
const json = (r: { stdout: string }) => JSON.parse(r.stdout);

describe("stall detection (integration)", () => {
  it("the same finding after a revision escalates stalled with the finding; after extend-cap an unchanged resubmit stalls", async () => {
    const p = makeProject();
    // the scripted reviewer raises "Scripted blocking finding" (evidence "artifact") every round, whatever it reads
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "issues" }) } });
    p.write("docs/plan.md", PLAN);
    startBus(p);
    const wait = ["--wait", "--json"];
    const first = p.cli([
      "review",
      "docs/plan.md",
      "--gate",
      "G-plan",
      "--author",
      "claude",
      "--run-id",
      "s1",
      ...wait,
      "--timeout",
      waitSeconds(40),
    ]);
    expect(first.code, first.stderr).toBe(3);

    // round 2 on revised bytes raises the same finding: stalled at round 2 of a cap of 5
    p.write("docs/plan.md", PLAN + "- lane B waits for lane A\n");
    const second = p.cli(["resubmit", "s1", "G-plan", ...wait]);
    expect(second.code, second.stderr).toBe(4);
    expect(json(second)).toMatchObject({ status: "stalled", state: "awaiting_decision", round: 2 });
    expect(p.readJson("s1", "G-plan", "verdict-2.json")).toMatchObject({ blocking_keys: [expect.stringMatching(/^[0-9a-f]{16}$/)] });
    expect(p.readJson("s1", "G-plan", "escalation-2.json")).toMatchObject({
      reason: "stalled",
      options: ["force-pass", "extend-cap", "rework"],
      stall: {
        pattern: "repeated_findings",
        since_round: 1,
        rounds: [1, 2],
        findings: [{ title: "Scripted blocking finding", evidence: "artifact" }],
      },
    });
    expect(p.cli(["decide", "s1", "G-plan", "retry", "--round", "2"]).code).toBe(1); // not an option for a stall

    // the human goes on: round 3 repeats the finding, but detection starts afresh after the answer
    expect(p.cli(["decide", "s1", "G-plan", "extend-cap", "1", "--round", "2"]).code).toBe(0);
    p.write("docs/plan.md", PLAN + "- lane B waits for lane A's receipt\n");
    const third = p.cli(["resubmit", "s1", "G-plan", ...wait]);
    expect(third.code, third.stderr).toBe(3);
    expect(json(third)).toMatchObject({ state: "awaiting_author", round: 3 });

    // a resubmit without touching the artifact: stalled at once, no packet 4
    const fourth = p.cli(["resubmit", "s1", "G-plan", ...wait]);
    expect(fourth.code, fourth.stderr).toBe(4);
    expect(p.readJson("s1", "G-plan", "escalation-3.json")).toMatchObject({
      reason: "stalled",
      stall: { pattern: "unchanged_resubmit", since_round: 3, rounds: [3] },
    });
    expect(p.files("s1", "G-plan")).not.toContain("packet-4.md");
    expect(received(p.root, "gpt")).toHaveLength(3);
    // the author revises and resubmits again: refused (a person decides the stall first), not answered `already`
    p.write("docs/plan.md", PLAN + "- lane B waits for lane A's receipt, acknowledged\n");
    const fifth = p.cli(["resubmit", "s1", "G-plan"]);
    expect(fifth.code, fifth.stderr).toBe(1);
    expect(fifth.stderr).toMatch(/not waiting for the author \(state: awaiting_decision/);

    const end = p.cli(["decide", "s1", "G-plan", "rework", "--round", "3", ...wait]);
    expect(end.code, end.stderr).toBe(3);
    expect(p.readJson("s1", "G-plan", "outcome.json")).toMatchObject({ status: "rework", reason: "human chose rework after stalled" });
    const trail = readFileSync(path.join(p.gateDir("s1", "G-plan"), "trail.md"), "utf8");
    expect(trail).toMatch(/escalation: stalled — stalled: the same blocking findings were raised in rounds 1, 2/);
  });
  it("a reviewer worker stopped mid-round (SIGSTOP) is named by pid with how to resume it, not reported as none running", async () => {
    const p = makeProject();
    p.settings({
      providers: {
        gpt: scriptedProvider(p.root, "gpt", "gpt-5", { default: "slow-satisfied", slow_ms: scaled(120_000) }, { timeout_ms: 600_000 }),
      },
    });
    p.write("docs/plan.md", PLAN);
    p.startWorker("broker");
    p.startWorker("verifier");
    const reviewer = p.startWorker("command");
    p.cli(["review", "docs/plan.md", "--gate", "G-plan", "--author", "claude", "--run-id", "stop"]);
    const nextOf = () => json(p.cli(["status", "stop", "G-plan", "--json"])).gates[0]?.next ?? {};
    const until = async (what: string, ok: () => boolean) => {
      const deadline = Date.now() + scaled(60_000);
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(nextOf())}`);
        await sleep(200);
      }
    };
    await until("the dispatch", () => p.files("stop", "G-plan").includes("attempt-1.json"));
    process.kill(reviewer.pid!, "SIGSTOP");
    try {
      // before: "no command worker is running for this project — run: guild-bus up", while the stopped one held the claim
      await until("the stopped worker named", () => nextOf().command === `kill -CONT ${reviewer.pid}`);
      expect(nextOf().waiting_on).toContain(`the command worker (pid ${reviewer.pid} on this machine) has stopped saying it is alive`);
    } finally {
      process.kill(reviewer.pid!, "SIGCONT");
    }
    // resumed, it says it is alive again: the plain wait on the reviewer
    await until("the resumed worker", () => nextOf().command === null);
  });
});
