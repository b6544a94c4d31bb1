// Integration: caps and decisions, weak path, skip rules, malformed output, fencing — over real workers.
import { chmodSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { makeProject, MODES, type Project, received, scriptedProvider, startBus } from "../helpers/bus.js";
import { scaled, waitSeconds } from "../helpers/machine.js";

/** An executable file whose interpreter does not exist: detection finds it, the spawn fails (nothing ran). */
function cannotStart(root: string): string {
  const file = path.join(root, "broken-reviewer");
  writeFileSync(file, "#!/nonexistent/interpreter\n");
  chmodSync(file, 0o755);
  return file;
}

const SPEC = "# Plan\n\n- lane A then lane B\n";
const json = (r: { stdout: string }) => JSON.parse(r.stdout);

describe.each(MODES)("escalations and policy (integration, $mode)", ({ poll }) => {
  function setup(providers: Record<string, (p: Project) => object>, settings: Record<string, unknown> = {}, kinds?: string[]) {
    const p = makeProject({ poll });
    p.settings({ providers: Object.fromEntries(Object.entries(providers).map(([k, f]) => [k, f(p)])), ...settings });
    p.write("docs/plan.md", SPEC);
    startBus(p, kinds);
    return p;
  }
  const gpt = (plan: object) => (p: Project) => scriptedProvider(p.root, "gpt", "gpt-5-scripted", plan);
  const review = (p: Project, run: string, extra: string[] = []) =>
    p.cli([
      "review",
      "docs/plan.md",
      "--gate",
      "G-plan",
      "--author",
      "claude",
      "--run-id",
      run,
      "--wait",
      "--json",
      "--timeout",
      waitSeconds(40),
      ...extra,
    ]);

  describe("(c) cap hit → escalation → each decision", () => {
    it("force-pass ends the gate force_passed, with the trail kept", async () => {
      const p = setup({ gpt: gpt({ default: "issues" }) });
      const r = review(p, "c1", ["--cap", "1"]);
      expect(r.code, r.stderr).toBe(4);
      expect(json(r)).toMatchObject({ status: "cap_hit", state: "awaiting_decision" });
      expect(p.readJson("c1", "G-plan", "escalation-1.json")).toMatchObject({
        reason: "cap_hit",
        options: ["force-pass", "extend-cap", "rework"],
      });
      expect(p.cli(["decide", "c1", "G-plan", "retry"]).code).toBe(1); // not an option for cap_hit
      const d = p.cli(["decide", "c1", "G-plan", "force-pass", "--note", "ship it", "--wait", "--json"]);
      expect(d.code, d.stderr).toBe(0);
      expect(json(d)).toMatchObject({ status: "force_passed" });
      const trail = readFileSync(path.join(p.gateDir("c1", "G-plan"), "trail.md"), "utf8");
      expect(trail).toMatch(/escalation: cap_hit[\s\S]*decision: force-pass — ship it[\s\S]*status: force_passed/);
    });

    it("extend-cap N waits for the author, then continues for more rounds", async () => {
      const p = setup({ gpt: gpt({ sequence: ["issues", "satisfied"] }) });
      expect(review(p, "c2", ["--cap", "1"]).code).toBe(4);
      expect(p.cli(["decide", "c2", "G-plan", "extend-cap"]).code).toBe(1); // N is required
      const d = p.cli(["decide", "c2", "G-plan", "extend-cap", "2", "--wait", "--json"]);
      expect(d.code, d.stderr).toBe(3);
      expect(json(d)).toMatchObject({ status: "extended", state: "awaiting_author" });
      p.write("docs/plan.md", SPEC + "- lane B waits for lane A's receipt\n");
      const again = p.cli(["resubmit", "c2", "G-plan", "--wait", "--json"]);
      expect(again.code, again.stderr).toBe(0);
      expect(json(again)).toMatchObject({ status: "satisfied", satisfied_at_round: 2 });
      expect(p.readJson<{ cap: number }>("c2", "G-plan", "decision-1.json")).toMatchObject({ choice: "extend-cap", extend_by: 2 });
      expect(readFileSync(path.join(p.gateDir("c2", "G-plan"), "packet-2.md"), "utf8")).toMatch(/cap: 3/);
    });

    it("rework ends the gate as rework", async () => {
      const p = setup({ gpt: gpt({ default: "issues" }) });
      expect(review(p, "c3", ["--cap", "1"]).code).toBe(4);
      const d = p.cli(["decide", "c3", "G-plan", "rework", "--wait", "--json"]);
      expect(d.code, d.stderr).toBe(3);
      expect(p.readJson("c3", "G-plan", "outcome.json")).toMatchObject({ status: "rework" });
    });
  });

  describe("(d) weak path: recorded and still gated", () => {
    it("a same-family pin is refused and degrades to a weak review that must still pass the gate", async () => {
      const p = setup({
        gpt: gpt({ default: "satisfied" }),
        clauderev: (q) => scriptedProvider(q.root, "clauderev", "claude-sonnet-4-scripted", { sequence: ["issues", "satisfied"] }),
      });
      const r = review(p, "d1", ["--reviewer", "clauderev"]);
      expect(r.code, r.stderr).toBe(3); // the weak review found issues: not a pass
      expect(json(r)).toMatchObject({ independence: "weak", reviewer_host: "clauderev" });
      const packet = readFileSync(path.join(p.gateDir("d1", "G-plan"), "packet-1.md"), "utf8");
      expect(packet).toMatch(/selection_status: degraded-local/);
      expect(packet).toMatch(/same-family self-review cannot satisfy cross/);
      p.write("docs/plan.md", SPEC + "- fixed\n");
      const again = p.cli(["resubmit", "d1", "G-plan", "--wait", "--json"]);
      expect(json(again)).toMatchObject({ status: "satisfied", independence: "weak" });
      expect(received(p.root, "gpt")).toHaveLength(0);
      expect(readFileSync(path.join(p.gateDir("d1", "G-plan"), "trail.md"), "utf8")).toMatch(/independence: weak/);
    });

    it("a reviewer that proves it cannot run is replaced by a new selection (never a hard block)", async () => {
      const p = setup({
        // detection sees an executable file; only the spawn finds out it cannot run (its interpreter does not exist)
        gpt: (q) => ({ adapter: "command", model: "gpt-5", argv: [cannotStart(q.root)] }),
        clauderev: (q) => scriptedProvider(q.root, "clauderev", "claude-sonnet-4-scripted", { default: "satisfied" }),
      });
      const r = review(p, "d3");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/warn: review-broker degraded/);
      expect(json(r)).toMatchObject({ status: "satisfied", independence: "weak", reviewer_host: "clauderev" });
      expect(p.readJson("d3", "G-plan", "failure-1.json")).toMatchObject({
        kind: "unavailable",
        reason: expect.stringMatching(/cannot start/),
      });
      const packet2 = readFileSync(path.join(p.gateDir("d3", "G-plan"), "packet-2.md"), "utf8");
      expect(packet2).toMatch(/restart_reason: degraded/);
      expect(packet2).toMatch(/counted_round: 1/);
    });

    it("an unknown author can never get a strong review", async () => {
      const p = setup({ gpt: gpt({ default: "satisfied" }) });
      const r = p.cli([
        "review",
        "docs/plan.md",
        "--gate",
        "G-plan",
        "--author",
        "mystery-host",
        "--run-id",
        "d2",
        "--wait",
        "--json",
        "--timeout",
        waitSeconds(40),
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(json(r)).toMatchObject({ status: "satisfied", independence: "weak" });
      expect(readFileSync(path.join(p.gateDir("d2", "G-plan"), "packet-1.md"), "utf8")).toMatch(/author family unknown/);
      expect(p.readJson("d2", "G-plan", "outcome.json")).toMatchObject({ independence: "weak", author_family: "unknown" });
    });
  });

  describe("(e) skip rules", () => {
    it("--review off skips without any packet; local runs a weak review; off with risk high still reviews", async () => {
      const p = setup({ gpt: gpt({ default: "satisfied" }) });
      const off = review(p, "e1", ["--review", "off"]);
      expect(off.code, off.stderr).toBe(0);
      expect(json(off)).toMatchObject({ status: "skipped" });
      expect(p.files("e1", "G-plan").filter((f) => f.startsWith("packet-"))).toEqual([]);
      const local = review(p, "e2", ["--review", "local"]);
      expect(json(local)).toMatchObject({ status: "satisfied", independence: "weak" });
      const risky = review(p, "e3", ["--review", "off", "--risk", "high"]);
      expect(json(risky)).toMatchObject({ status: "satisfied", independence: "strong" });
    });
  });

  describe("(f) malformed output", () => {
    it("one schema repair rescues a malformed answer", async () => {
      const p = setup({ gpt: gpt({ sequence: ["malformed", "satisfied"] }) });
      const r = review(p, "f1");
      expect(r.code, r.stderr).toBe(0);
      expect(p.readJson("f1", "G-plan", "result-1.json")).toMatchObject({ repaired: true, verdict: "satisfied" });
      const dispatches = received(p.root, "gpt");
      expect(dispatches).toHaveLength(2);
      expect(dispatches[1]).toContain("## Schema repair");
    });

    it("a repair call that may have run (timed out) goes to a person: no_verdict, never an automatic new round", async () => {
      const p = setup({
        gpt: (q: Project) => scriptedProvider(q.root, "gpt", "gpt-5-scripted", { sequence: ["malformed", "hang"] }, { timeout_ms: 8_000 }),
      });
      const r = review(p, "f3");
      expect(r.code, r.stderr).toBe(4);
      expect(p.readJson("f3", "G-plan", "failure-1.json")).toMatchObject({ kind: "no_verdict" });
      expect(p.readJson("f3", "G-plan", "escalation-1.json")).toMatchObject({ reason: "no_verdict" });
      expect(received(p.root, "gpt")).toHaveLength(2); // the dispatch and its repair, and nothing more
      expect(existsSync(path.join(p.gateDir("f3", "G-plan"), "packet-2.md"))).toBe(false);
    });

    it("two malformed terminations in a row escalate (malformed_termination_x2)", async () => {
      const p = setup({ gpt: gpt({ default: "prose" }) });
      const r = review(p, "f2");
      expect(r.code, r.stderr).toBe(4);
      expect(p.readJson("f2", "G-plan", "failure-1.json")).toMatchObject({ kind: "malformed" });
      expect(p.readJson("f2", "G-plan", "failure-2.json")).toMatchObject({ kind: "malformed" });
      expect(p.readJson("f2", "G-plan", "escalation-2.json")).toMatchObject({ reason: "malformed_termination_x2" });
      expect(received(p.root, "gpt")).toHaveLength(4); // two rounds, each one dispatch + one repair
    });
  });

  describe("(i) manual reviewer", () => {
    it("refuses a same-family Reviewer-Model, then accepts another family (CLI and dropped file)", async () => {
      const p = setup({}, {}, ["broker", "verifier", "manual"]);
      expect(
        p.cli(["review", "docs/plan.md", "--gate", "G-plan", "--author", "claude", "--run-id", "i1", "--reviewer", "manual"]).code,
      ).toBe(0);
      await p.waitFor("i1", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
      // the manual worker tells the human where the packet is and how to answer
      for (
        const deadline = Date.now() + scaled(10_000);
        Date.now() < deadline && !/guild-bus respond i1 G-plan --round 1 --reviewer-model/.test(p.logs.join(""));
      )
        await sleep(100);
      expect(p.logs.join("")).toMatch(/read: +\.guild\/runs\/i1\/review\/G-plan\/packet-1\.md/);
      const answer = "```review_result.v1\n" + JSON.stringify({ verdict: "satisfied", findings: [], blocking_findings: [] }) + "\n```\n";
      const same = p.cli(["respond", "i1", "G-plan", "--reviewer-model", "claude-opus-4"], answer);
      expect(same.code).toBe(1);
      expect(same.stderr).toMatch(/anthropic, the author's family/);
      // a dropped response: written elsewhere, then moved into place
      const tmp = path.join(p.root, "answer.md");
      writeFileSync(tmp, "Reviewer-Model: claude-3-5-sonnet\n" + answer);
      renameSync(tmp, path.join(p.gateDir("i1", "G-plan"), "response-1.md"));
      await p.waitFor(
        "i1",
        "G-plan",
        (f) => f.includes("rejected") && !f.includes("response-1.md"),
        "rejection of the same-family response",
      );
      const reasons = readdirSync(path.join(p.gateDir("i1", "G-plan"), "rejected")).filter((f) => f.endsWith(".reason.json"));
      expect(readFileSync(path.join(p.gateDir("i1", "G-plan"), "rejected", reasons[0]!), "utf8")).toMatch(/author's family/);
      writeFileSync(tmp, "Reviewer-Model: gpt-5\n" + answer);
      renameSync(tmp, path.join(p.gateDir("i1", "G-plan"), "response-1.md"));
      const s = await p.waitState("i1", "G-plan", ["done"]);
      expect(s).toMatchObject({ status: "satisfied", independence: "strong" });
      expect(p.readJson("i1", "G-plan", "result-1.json")).toMatchObject({
        reviewer_model: "gpt-5",
        reviewer_family: "openai",
        normalized_from: "manual",
      });
    });
  });

  describe("(k) fencing: a result for another packet or other bytes is never applied", () => {
    it("rejects a foreign result naming another packet, restarts on a stale sha, passes only the right one", async () => {
      const p = setup({}, {}, ["broker", "verifier"]);
      expect(
        p.cli(["review", "docs/plan.md", "--gate", "G-plan", "--author", "claude", "--run-id", "k1", "--reviewer", "manual"]).code,
      ).toBe(0);
      await p.waitFor("k1", "G-plan", (f) => f.includes("packet-1.md"), "packet-1");
      const front = readFileSync(path.join(p.gateDir("k1", "G-plan"), "packet-1.md"), "utf8");
      const sha1 = /artifact_sha256: (\w+)/.exec(front)![1]!;
      const drop = (name: string, body: object) => {
        const tmp = path.join(p.root, "drop.json");
        writeFileSync(tmp, JSON.stringify(body));
        renameSync(tmp, path.join(p.gateDir("k1", "G-plan"), name));
      };
      drop("result-1.json", {
        packet_id: "G-plan-other-run-r1",
        artifact_sha256_reviewed: sha1,
        verdict: "satisfied",
        blocking_findings: [],
        reviewer_model: "gpt-5",
      });
      await p.waitFor("k1", "G-plan", (f) => f.includes("rejected") && !f.includes("result-1.json"), "rejection of the foreign result");
      expect(p.status("k1", "G-plan")).toMatchObject({
        state: "reviewing",
        rejected: [{ file: expect.stringMatching(/^result-1\.json\./), reason: expect.stringMatching(/names packet/) }],
      });
      drop("result-1.json", {
        packet_id: "G-plan-k1-r1",
        artifact_sha256_reviewed: "f".repeat(64),
        verdict: "satisfied",
        blocking_findings: [],
        reviewer_model: "gpt-5",
      });
      await p.waitFor("k1", "G-plan", (f) => f.includes("packet-2.md"), "restart after a stale sha");
      expect(p.readJson("k1", "G-plan", "verdict-1.json")).toMatchObject({
        gate_pass: { pass: false, conditions: { sha256_match: false } },
      });
      expect(p.files("k1", "G-plan")).not.toContain("outcome.json");
      drop("result-2.json", {
        packet_id: "G-plan-k1-r2",
        artifact_sha256_reviewed: sha1,
        verdict: "satisfied",
        blocking_findings: [],
        reviewer_model: "gpt-5",
      });
      const s = await p.waitState("k1", "G-plan", ["done"]);
      expect(s.status).toBe("satisfied");
    });
  });
});
