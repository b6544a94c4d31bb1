// Hostile and malformed input, each kind a fixture (fixtures/hostile/cases.json): the workers keep running,
// nothing valid is lost, and every bad input is rejected or flagged with a reason visible in status and the trail.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readGate } from "../../src/bus/gate-reader.js";
import { requestReview } from "../../src/commands/review.js";
import { Layout } from "../../src/bus/layout.js";
import { makeProject, REPO } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";

type Generated =
  | "binary"
  | "huge"
  | "nested"
  | "symlink-out"
  | "symlink-in"
  | "symlink-devzero"
  | "fifo"
  | "directory"
  | "invalid-utf8"
  | "deep-keys"
  | "deep-yaml";
interface DropCase {
  id: string;
  file: string;
  content?: string;
  generate?: Generated;
  expect: string;
}
interface TreeCase {
  id: string;
  path?: string;
  symlink?: string;
  target?: string;
  reason: string;
}
interface CliCase {
  id: string;
  args: string[];
  stderr: string;
}
const CASES = JSON.parse(readFileSync(path.join(REPO, "fixtures", "hostile", "cases.json"), "utf8")) as {
  gate_drops: DropCase[];
  tree: TreeCase[];
  cli: CliCase[];
};

const PLAN = "# Plan\n\n- lane A\n- lane B\n";
const answer = (verdict: "satisfied" | "issues") =>
  "```review_result.v1\n" +
  JSON.stringify({ verdict, findings: [], blocking_findings: verdict === "issues" ? [{ severity: "blocking", title: "x" }] : [] }) +
  "\n```\n";

function contentFor(c: DropCase, vars: Record<string, string>): Buffer | null {
  switch (c.generate) {
    case "binary":
      return Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    case "huge":
      return Buffer.from(`{"pad":"${" ".repeat(5 * 1024 * 1024)}"}`);
    case "nested":
      return Buffer.from('{"a":'.repeat(50_000) + "1" + "}".repeat(50_000));
    case "deep-keys":
      return Buffer.from('{"k":'.repeat(100_000) + "{}" + "}".repeat(100_000));
    case "deep-yaml":
      return Buffer.from("---\n" + Array.from({ length: 5000 }, (_, i) => `${" ".repeat(i)}k:`).join("\n") + " 1\n---\nbody\n");
    case "invalid-utf8": {
      const [head, tail] = (c.content ?? "").replace(/\{\{(\w+)\}\}/g, (_, k: string) => vars[k] ?? "").split("@");
      return Buffer.concat([Buffer.from(head!), Buffer.from([0xff, 0xfe]), Buffer.from(tail ?? "")]);
    }
    case "symlink-out":
    case "symlink-in":
    case "symlink-devzero":
    case "fifo":
    case "directory":
      return null;
    default:
      return Buffer.from((c.content ?? "").replace(/\{\{(\w+)\}\}/g, (_, k: string) => vars[k] ?? ""));
  }
}

/** SPEC §18: a worker's resident set stays under this, whatever the drops (caches are bounded by entry count). */
const WORKER_RSS_BOUND_MIB = 256;

function residentMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]!;
  return Number(kb) / 1024;
}

describe("hostile and malformed input (integration)", () => {
  it(
    `survives ${CASES.gate_drops.length + CASES.tree.length + CASES.cli.length} kinds of bad input without losing valid work`,
    { timeout: scaled(300_000) },
    async () => {
      const p = makeProject();
      p.settings({ foreign_grace_ms: 300 });
      p.write("docs/plan.md", PLAN);
      p.write("outside/secret.txt", "not for reviewers\n");
      const workers = ["broker", "verifier", "manual"].map((k) => p.startWorker(k, ["--full-scan-ms", "1000"]));
      const drops = CASES.gate_drops.map((c, i) => ({ c, run: `h${i}-${c.id}`.slice(0, 60) }));
      // the requests go through the CLI's own function in process: the drops are under test here, not the CLI
      const layout = new Layout(p.root);
      for (const { c, run } of drops) {
        const requested = await requestReview(layout, {
          artifact: "docs/plan.md",
          gate: "G-plan",
          author: "claude",
          runId: run,
          reviewer: "manual",
          ...(c.id === "decision-preplaced-force-pass" ? { cap: 1 } : {}),
        });
        expect(requested).toMatchObject({ ok: true });
      }
      for (const { run } of drops) await p.waitFor(run, "G-plan", (f) => f.includes("packet-1.md"), `packet-1 of ${run}`);

      const after = drops.find((d) => d.c.expect === "after-outcome")!;
      expect(p.cli(["respond", after.run, "G-plan", "--reviewer-model", "gpt-5"], answer("satisfied")).code).toBe(0);
      await p.waitState(after.run, "G-plan", ["done"]);

      for (const { c, run } of drops) {
        const dir = p.gateDir(run, "G-plan");
        const packet = readFileSync(path.join(dir, "packet-1.md"), "utf8");
        const sha = /artifact_sha256: (\w+)/.exec(packet)![1]!;
        const other = "e".repeat(64);
        const vars = { packet_id: /packet_id: (.+)/.exec(packet)![1]!.trim(), sha, other_sha: other, OTHER_SHA: other.toUpperCase(), run };
        const target = path.join(dir, c.file);
        if (c.generate === "symlink-out") symlinkSync("/etc/hostname", target);
        else if (c.generate === "symlink-in") symlinkSync("request.json", target);
        else if (c.generate === "symlink-devzero") symlinkSync("/dev/zero", target);
        else if (c.generate === "fifo") expect(spawnSync("mkfifo", [target]).status, c.id).toBe(0);
        else if (c.generate === "directory") mkdirSync(target);
        else writeFileSync(target, contentFor(c, vars)!); // in place, as a careless foreign writer would
      }

      // what status shows, read in process (a CLI start per case is most of this test's time on a loaded machine)
      const problemsOf = (run: string) => readGate(layout, run, "G-plan");
      for (const { c, run } of drops) {
        if (c.expect === "rejected" || c.expect === "after-outcome") {
          await p.waitFor(
            run,
            "G-plan",
            (f) => !f.includes(c.file) && f.includes("rejected"),
            `${c.id}: ${c.file} moved to rejected/`,
            scaled(20_000),
          );
          const rejected = problemsOf(run).rejected.find((r) => r.file.startsWith(`${c.file}.`));
          expect(rejected, c.id).toBeDefined();
          expect(rejected!.reason.length, c.id).toBeGreaterThan(5);
        } else if (c.expect === "problem") {
          expect(
            problemsOf(run).problems.map((x) => x.file),
            c.id,
          ).toContain(c.file);
        } else if (c.expect === "restart") {
          await p.waitFor(run, "G-plan", (f) => f.includes("packet-2.md"), `${c.id}: restart`);
          expect(p.readJson(run, "G-plan", "verdict-1.json"), c.id).toMatchObject({
            gate_pass: { pass: false, conditions: { sha256_match: false } },
          });
        }
      }

      // a pre-placed decision never answers an escalation that comes later
      const pre = drops.find((d) => d.c.id === "decision-preplaced-force-pass")!;
      expect(p.cli(["respond", pre.run, "G-plan", "--reviewer-model", "gpt-5"], answer("issues")).code).toBe(0);
      await p.waitFor(
        pre.run,
        "G-plan",
        (f) => f.includes("escalation-1.json") && !f.includes("decision-1.json"),
        "escalation, pre-placed decision quarantined",
      );
      expect(p.status(pre.run, "G-plan")).toMatchObject({ state: "awaiting_decision" });
      expect(p.cli(["decide", pre.run, "G-plan", "rework"]).code).toBe(0);
      expect((await p.waitState(pre.run, "G-plan", ["done"])).status).toBe("rework");

      // nothing valid lost: every other gate still completes with a valid answer, dropped as a human would
      for (const { c, run } of drops) {
        if (c === after.c || c === pre.c) continue;
        const tmp = path.join(p.root, `answer-${run}.md`);
        writeFileSync(tmp, "Reviewer-Model: gpt-5\n" + answer("satisfied"));
        const open = Math.max(
          ...p
            .files(run, "G-plan")
            .map((f) => /^packet-(\d+)\.md$/.exec(f)?.[1])
            .filter(Boolean)
            .map(Number),
        );
        renameSync(tmp, path.join(p.gateDir(run, "G-plan"), `response-${open}.md`));
      }
      for (const { c, run } of drops) {
        if (c === pre.c) continue;
        await p.waitFor(run, "G-plan", (f) => f.includes("outcome.json"), `${c.id}: the outcome`, scaled(20_000));
        expect(p.readJson(run, "G-plan", "outcome.json").status, c.id).toBe("satisfied");
        const trail = readFileSync(path.join(p.gateDir(run, "G-plan"), "trail.md"), "utf8");
        if (c.expect === "rejected" || c.expect === "after-outcome") expect(trail, c.id).toContain(`rejected/${c.file}.`);
        if (c.expect === "problem") expect(trail, c.id).toContain(`${c.file}:`);
      }
      await p.waitLooked(Date.now()); // a worker the drops crash is not waited for, and fails below
      for (const w of workers) expect(w.exitCode, "a worker died").toBeNull();
      // every worker's memory stays bounded while it handles all of the above (SPEC §18 states the bound)
      for (const w of workers) expect(residentMiB(w.pid!), "a worker's resident memory").toBeLessThan(WORKER_RSS_BOUND_MIB);

      // entries under .guild/runs that are not runs or gates are ignored, visibly
      mkdirSync(path.join(p.root, ".guild", "runs", "tree-ok2", "review"), { recursive: true });
      for (const t of CASES.tree) {
        if (t.path) mkdirSync(path.join(p.root, t.path), { recursive: true });
        else symlinkSync(t.target!, path.join(p.root, t.symlink!));
      }
      const status = JSON.parse(p.cli(["status", "--json"]).stdout) as { ignored: Array<{ path: string; reason: string }> };
      for (const t of CASES.tree) {
        const where = t.path ?? t.symlink!;
        const hit = status.ignored.find((i) => i.path === where || where.startsWith(i.path + "/") || i.path.startsWith(where));
        expect(hit, t.id).toBeDefined();
        expect(hit!.reason, t.id).toContain(t.reason);
      }
      await p.waitLooked(Date.now()); // every worker has looked at everything since
      for (const w of workers) expect(w.exitCode, "a worker died on the tree").toBeNull();

      // bad requests are refused up front and create nothing
      const before = readdirSync(path.join(p.root, ".guild", "runs")).length;
      for (const c of CASES.cli) {
        const r = p.cli(c.args);
        expect(r.code, c.id).toBe(1);
        expect(r.stderr, c.id).toContain(c.stderr);
      }
      expect(readdirSync(path.join(p.root, ".guild", "runs")).length).toBe(before);
    },
  );
});
