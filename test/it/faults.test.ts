// Integration: workers killed mid-round and workers racing on one tree. Files are the state: a restart resumes
// everything, no round is dispatched twice, and delivery fences the racers.
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, MODES, type Project, received, scriptedProvider, stopChild } from "../helpers/bus.js";
import { until } from "../helpers/clients.js";
import { scaled } from "../helpers/machine.js";

const DOC = "# Runbook\n\n1. drain\n2. deploy\n";

describe.each(MODES)("faults and races (integration, $mode)", ({ poll }) => {
  function setup(plan: object) {
    const p = makeProject({ poll });
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", plan) } });
    p.write("ops/runbook.md", DOC);
    return p;
  }
  const request = (p: Project, run: string, extra: string[] = [], file = "ops/runbook.md") =>
    expect(p.cli(["review", file, "--gate", "G-operations", "--author", "claude", "--run-id", run, ...extra]).code).toBe(0);

  describe("(g) SIGKILL each worker kind mid-round, then restart", () => {
    it("broker killed while the reviewer works: the restarted broker finishes the gate", async () => {
      const p = setup({ default: "slow-satisfied", slow_ms: 1500 });
      const broker = p.startWorker("broker");
      p.startWorker("verifier");
      p.startWorker("command");
      request(p, "g1");
      await p.waitFor("g1", "G-operations", (f) => f.includes("attempt-1.json"), "dispatch");
      await stopChild(broker, "SIGKILL");
      await p.waitFor("g1", "G-operations", (f) => f.includes("verdict-1.json"), "verdict while the broker is down");
      expect(p.files("g1", "G-operations")).not.toContain("outcome.json");
      p.startWorker("broker");
      expect((await p.waitState("g1", "G-operations", ["done"])).status).toBe("satisfied");
      expect(received(p.root, "gpt")).toHaveLength(1);
    });

    it("verifier killed before the result: the restarted verifier verifies it", async () => {
      const p = setup({ default: "slow-satisfied", slow_ms: 1000 });
      p.startWorker("broker");
      const verifier = p.startWorker("verifier");
      p.startWorker("command");
      request(p, "g2");
      await p.waitFor("g2", "G-operations", (f) => f.includes("attempt-1.json"), "dispatch");
      await stopChild(verifier, "SIGKILL");
      await p.waitFor("g2", "G-operations", (f) => f.includes("result-1.json"), "result");
      p.startWorker("verifier");
      expect((await p.waitState("g2", "G-operations", ["done"])).status).toBe("satisfied");
      expect(received(p.root, "gpt")).toHaveLength(1);
    });

    it("reviewer killed mid-dispatch: no second paid dispatch; no_verdict waits for a human, retry completes", async () => {
      const p = setup({ sequence: ["slow-satisfied", "satisfied"], slow_ms: 2500 });
      p.startWorker("broker");
      p.startWorker("verifier");
      const reviewer = p.startWorker("command");
      request(p, "g3");
      await p.waitFor("g3", "G-operations", (f) => f.includes("attempt-1.json"), "dispatch");
      await stopChild(reviewer, "SIGKILL");
      p.startWorker("command");
      const s = await p.waitState("g3", "G-operations", ["awaiting_decision"]);
      expect(s).toMatchObject({ status: "no_verdict" });
      expect(p.readJson("g3", "G-operations", "failure-1.json")).toMatchObject({
        kind: "no_verdict",
        reason: expect.stringMatching(/not dispatching a paid review twice/),
      });
      expect(p.files("g3", "G-operations")).not.toContain("result-1.json");
      const d = p.cli(["decide", "g3", "G-operations", "retry", "--wait", "--json"]);
      expect(d.code, d.stderr).toBe(0);
      expect(JSON.parse(d.stdout)).toMatchObject({ status: "satisfied", satisfied_at_round: 2 });
      // the retried round is not counted against the cap: status says 1 of 5, as the console, the trail and wait do
      expect(p.cli(["status", "g3", "G-operations"]).stdout).toMatch(/^g3\s+G-operations\s+satisfied\s+1\/5\s/m);
      // round 1 reached the reviewer at most once (the kill may land before the child started), round 2 once
      const byPacket = (id: string) => received(p.root, "gpt").filter((t) => t.includes(`packet_id: ${id}\n`)).length;
      expect(byPacket("G-operations-g3-r1")).toBeLessThanOrEqual(1);
      expect(byPacket("G-operations-g3-r2")).toBe(1);
      expect(p.files("g3", "G-operations").filter((f) => f.startsWith("result-") && !f.includes("rejected"))).toEqual(["result-2.json"]);
    });

    it("reviewer killed during the schema-repair call: both paid calls and the first answer stay on file", async () => {
      const p = setup({ sequence: ["malformed", "slow-satisfied"], slow_ms: 8000 });
      p.startWorker("broker");
      p.startWorker("verifier");
      const reviewer = p.startWorker("command");
      request(p, "g5");
      // the repair call is in flight once its child has the prompt
      await until("the repair call", () => received(p.root, "gpt").length === 2);
      await stopChild(reviewer, "SIGKILL");
      p.startWorker("command");
      await p.waitState("g5", "G-operations", ["awaiting_decision"]);
      expect(p.readJson("g5", "G-operations", "failure-1.json")).toMatchObject({ kind: "no_verdict" });
      // the attempt records one dispatch; the answer kept before the repair records the second, and why
      const dir = path.join(p.gateDir("g5", "G-operations"), "rejected");
      const kept = readdirSync(dir).filter((n) => n.startsWith("result-1.json.") && !n.endsWith(".reason.json"));
      expect(kept).toHaveLength(1);
      expect(readFileSync(path.join(dir, kept[0]!), "utf8")).toContain("{ not json");
      expect(JSON.parse(readFileSync(path.join(dir, `${kept[0]}.reason.json`), "utf8")).reason).toMatch(
        /^the answer to G-operations-g5-r1 could not be normalized .*schema-repair call, a second paid call/,
      );
    });

    it("manual worker killed: a response dropped while it is down is taken up after the restart", async () => {
      const p = setup({});
      p.startWorker("broker");
      p.startWorker("verifier");
      const manual = p.startWorker("manual");
      request(p, "g4", ["--reviewer", "manual"]);
      await p.waitFor("g4", "G-operations", (f) => f.includes("packet-1.md"), "packet");
      await stopChild(manual, "SIGKILL");
      const tmp = path.join(p.root, "r.md");
      writeFileSync(tmp, 'Reviewer-Model: gemini-2.5-pro\n```json\n{"verdict":"satisfied","findings":[],"blocking_findings":[]}\n```\n');
      renameSync(tmp, path.join(p.gateDir("g4", "G-operations"), "response-1.md"));
      p.startWorker("manual");
      expect((await p.waitState("g4", "G-operations", ["done"])).status).toBe("satisfied");
    });
  });

  it("(g2) a review call run again after its request landed (killed, timed out): it waits on that request, one paid review", async () => {
    const p = setup({ default: "slow-satisfied", slow_ms: 300 });
    const args = ["review", "ops/runbook.md", "--gate", "G-operations", "--author", "claude", "--run-id", "k1"];
    // the first try's request is in; its caller never heard back (no workers yet: nothing else has happened)
    expect(p.cli(args).code).toBe(0);
    for (const kind of ["broker", "verifier", "command"]) p.startWorker(kind);
    const again = p.cli([...args, "--wait"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr + again.stdout).toMatch(/the same request was already in \(requested at .*\); it goes on/);
    expect(again.stdout).toMatch(/satisfied/);
    expect(received(p.root, "gpt")).toHaveLength(1);
    expect(readdirSync(path.join(p.root, ".guild", "runs"))).toEqual(["k1"]);
  });

  it("(h) two brokers, two reviewers, two verifiers: exactly one packet, result and verdict per round", async () => {
    const p = setup({ default: "issues" });
    p.settings({
      providers: {
        gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", {
          sequence: ["issues", "issues", "issues", "issues"],
          default: "satisfied",
        }),
      },
    });
    for (const kind of ["broker", "broker", "verifier", "verifier", "command", "command"]) p.startWorker(kind);
    const runs = ["h1", "h2", "h3", "h4"];
    // each run reviews its own file: an edit of a shared one would restart the other runs' open rounds (artifact_changed)
    const artifact = (run: string) => `ops/runbook-${run}.md`;
    for (const run of runs) {
      p.write(artifact(run), DOC);
      request(p, run, [], artifact(run));
    }
    for (const run of runs) await p.waitState(run, "G-operations", ["awaiting_author"]);
    for (const run of runs) {
      p.write(artifact(run), DOC + `3. verify (${run})\n`);
      expect(p.cli(["resubmit", run, "G-operations"]).code).toBe(0);
    }
    for (const run of runs) await p.waitState(run, "G-operations", ["done", "awaiting_author"]);
    let rounds = 0;
    for (const run of runs) {
      const files = p.files(run, "G-operations");
      const count = (prefix: string) => files.filter((f) => f.startsWith(prefix)).length;
      const n = count("packet-");
      rounds += n;
      expect(count("attempt-"), run).toBe(n);
      expect(count("verdict-"), run).toBe(n);
      expect(count("result-"), run).toBe(n);
      expect(files, run).not.toContain("rejected");
      expect(
        readdirSync(p.gateDir(run, "G-operations")).filter((f) => f.startsWith("failure-")),
        run,
      ).toEqual([]);
    }
    expect(received(p.root, "gpt")).toHaveLength(rounds);
    // a staging file is transient (the other broker may still be rewriting trail.md as the test looks); none stays
    const staging = path.join(p.root, ".guild", "tmp");
    await until("no staging file left in .guild/tmp", () => readdirSync(staging).length === 0);
  });

  describe("(i) a failure dropped in the slot of the dispatched reviewer's own", () => {
    it("gives way: the worker's failure, with its end key, is delivered once the planted one is moved aside", async () => {
      const p = makeProject({ poll });
      // a reviewer that answers nothing usable, once told to: its round ends malformed (after the one repair call)
      const marker = path.join(p.root, "answer-now");
      const script = path.join(p.root, "garbage-reviewer.cjs");
      writeFileSync(
        script,
        "const fs = require('node:fs');\nprocess.stdin.resume();\n" +
          "const t = setInterval(() => {\n  if (!fs.existsSync(process.argv[2])) return;\n" +
          "  clearInterval(t);\n  process.stdout.write('no envelope\\n');\n  process.exit(0);\n}, 50);\n",
      );
      p.settings({
        foreign_grace_ms: 2000,
        providers: { gpt: { adapter: "command", model: "gpt-5", argv: [process.execPath, script, marker], timeout_ms: 60_000 } },
      });
      p.write("ops/runbook.md", DOC);
      for (const kind of ["broker", "verifier", "command"]) p.startWorker(kind);
      request(p, "i1");
      await p.waitFor("i1", "G-operations", (f) => f.includes("attempt-1.json"), "dispatch");
      const attempt = p.readJson<{ packet_id: string }>("i1", "G-operations", "attempt-1.json");
      const planted = {
        schema_version: "guild_bus.failure.v1",
        run_id: "i1",
        gate: "G-operations",
        round: 1,
        packet_id: attempt.packet_id,
        kind: "malformed",
        reason: "planted",
        at: new Date().toISOString(),
      };
      writeFileSync(path.join(p.root, "f.tmp"), JSON.stringify(planted));
      renameSync(path.join(p.root, "f.tmp"), path.join(p.gateDir("i1", "G-operations"), "failure-1.json"));
      writeFileSync(marker, "");
      await p.waitFor("i1", "G-operations", (f) => f.includes("packet-2.md"), "the malformed round restarted", scaled(60_000));
      const failure = p.readJson<{ reason: string; end_key?: string }>("i1", "G-operations", "failure-1.json");
      expect(failure.reason).not.toBe("planted");
      expect(failure.end_key).toEqual(expect.any(String));
      expect(readdirSync(path.join(p.gateDir("i1", "G-operations"), "rejected")).some((f) => f.startsWith("failure-1.json"))).toBe(true);
      expect(p.files("i1", "G-operations")).not.toContain("escalation-1.json");
    });
  });
});
