// The Python reviewer in bus-spec/SPEC.md §18 works with the bus, both ways: as a standalone worker on the files
// and as a command provider the bus runs.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseStrictReviewResult } from "../helpers/strict-result.js";
import { PUBLISHED_SCHEMAS } from "../../src/spec/schemas.js";
import { makeProject, REPO, startBus, stopChild } from "../helpers/bus.js";
import { waitSeconds } from "../helpers/machine.js";

describe("bus-spec/SPEC.md: the Python reviewer", () => {
  const spec = () => readFileSync(path.join(REPO, "bus-spec", "SPEC.md"), "utf8");

  const python = spawnSync("python3", ["--version"], { encoding: "utf8" }).status === 0;
  const walkthrough = (root: string): string => {
    const block = /<!-- python-reviewer:begin -->\n```python\n([\s\S]*?)\n```\n<!-- python-reviewer:end -->/.exec(spec());
    expect(block, "SPEC.md keeps the Python reviewer between its markers").not.toBeNull();
    const script = path.join(root, "reviewer.py");
    writeFileSync(script, block![1]!);
    return script;
  };
  const TBD_SPEC = "# Spec\n\n## Acceptance criteria\n- TBD\n";
  const FIXED_SPEC = "# Spec\n\n## Acceptance criteria\n- Export finishes within 2 s for 10,000 rows.\n";

  it.skipIf(!python)("the Python reviewer works as a standalone worker on the files (§18 B)", async () => {
    const p = makeProject();
    const script = walkthrough(p.root);
    p.settings({ providers: { "py-gemini": { adapter: "external", model: "gemini-2.5-pro" } } });
    p.write("docs/spec.md", TBD_SPEC);
    // the command worker runs too, and leaves the external provider's packets to the Python process
    startBus(p, ["broker", "verifier", "command"]);
    const reviewer = spawn("python3", [script, p.root, "py-gemini", "gemini-2.5-pro"], { stdio: ["ignore", "pipe", "pipe"] });
    const log: string[] = [];
    reviewer.stdout!.on("data", (b: Buffer) => log.push(String(b)));
    reviewer.stderr!.on("data", (b: Buffer) => log.push(String(b)));
    try {
      const first = p.cli([
        "review",
        "docs/spec.md",
        "--gate",
        "G-spec",
        "--author",
        "claude",
        "--author-model",
        "claude-opus-4",
        "--run-id",
        "py",
        "--wait",
        "--json",
        "--timeout",
        waitSeconds(40),
      ]);
      expect(first.code, first.stderr + log.join("")).toBe(3);
      expect(JSON.parse(first.stdout)).toMatchObject({ status: "rework", reviewer_host: "py-gemini", independence: "strong" });
      p.write("docs/spec.md", FIXED_SPEC);
      const second = p.cli(["resubmit", "py", "G-spec", "--wait", "--json"]);
      expect(second.code, second.stderr + log.join("")).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ status: "satisfied", satisfied_at_round: 2 });
      expect(p.files("py", "G-spec")).toEqual(
        expect.arrayContaining(["attempt-1.json", "result-1.json", "verdict-1.json", "attempt-2.json", "result-2.json", "outcome.json"]),
      );
      for (const name of ["attempt-1.json", "result-1.json", "result-2.json"]) {
        const raw = readFileSync(path.join(p.gateDir("py", "G-spec"), name), "utf8");
        if (name.startsWith("attempt")) expect(PUBLISHED_SCHEMAS.attempt.safeParse(JSON.parse(raw)).success, name).toBe(true);
        else expect(parseStrictReviewResult(raw).reasons, name).toEqual([]);
      }
      expect(p.readJson("py", "G-spec", "verdict-1.json")).toMatchObject({ reviewer_family: "google", independence_violation: false });
      expect(readdirSync(path.join(p.root, ".guild", "tmp")), "staging files are cleaned up").toEqual([]);
    } finally {
      await stopChild(reviewer);
    }
  });

  it.skipIf(!python)("two copies of the Python reviewer answer a quorum round, each only its own member packet (§18 B, §26)", async () => {
    const p = makeProject();
    const script = walkthrough(p.root);
    p.settings({
      providers: {
        "py-gemini": { adapter: "external", model: "gemini-2.5-pro" },
        "py.gpt": { adapter: "external", model: "gpt-5" }, // a provider id may hold dots
      },
    });
    p.write("docs/spec.md", TBD_SPEC);
    startBus(p, ["broker", "verifier"]);
    const log: string[] = [];
    const reviewers = [
      ["py-gemini", "gemini-2.5-pro"],
      ["py.gpt", "gpt-5"],
    ].map(([id, model]) => {
      const child = spawn("python3", [script, p.root, id!, model!], { stdio: ["ignore", "pipe", "pipe"] });
      child.stdout!.on("data", (b: Buffer) => log.push(String(b)));
      child.stderr!.on("data", (b: Buffer) => log.push(String(b)));
      return child;
    });
    try {
      const args = ["--author", "claude", "--author-model", "claude-opus-4", "--run-id", "pq", "--quorum", "2/2"];
      const first = p.cli(["review", "docs/spec.md", "--gate", "G-spec", ...args, "--wait", "--json", "--timeout", waitSeconds(40)]);
      expect(first.code, first.stderr + log.join("")).toBe(3);
      expect(JSON.parse(first.stdout)).toMatchObject({ status: "rework" });
      p.write("docs/spec.md", FIXED_SPEC);
      const second = p.cli(["resubmit", "pq", "G-spec", "--wait", "--json", "--timeout", waitSeconds(40)]);
      expect(second.code, second.stderr + log.join("")).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ status: "satisfied", satisfied_at_round: 2 });
      const files = p.files("pq", "G-spec");
      for (const n of [1, 2])
        for (const m of ["py-gemini", "py.gpt"])
          expect(files, `${m} round ${n}`).toEqual(expect.arrayContaining([`attempt-${n}.${m}.json`, `result-${n}.${m}.json`]));
      expect(
        files.filter((f) => /^(attempt|result|failure)-\d+\.json$/.test(f)),
        "no plain round files in a quorum gate",
      ).toEqual([]);
      expect(p.readJson("pq", "G-spec", "result-2.py.gpt.json")).toMatchObject({
        packet_id: "G-spec-pq-r2+py.gpt",
        reviewer_model: "gpt-5",
      });
      expect(p.readJson("pq", "G-spec", "outcome.json")).toMatchObject({ quorum: { need: 2, of: 2 } });
    } finally {
      for (const r of reviewers) await stopChild(r);
    }
  });

  it.skipIf(!python)("the same Python reviewer works as a command provider run by the bus (§18 A)", async () => {
    const p = makeProject();
    const script = walkthrough(p.root);
    p.settings({ providers: { "py-gemini": { adapter: "command", model: "gemini-2.5-pro", argv: ["python3", script] } } });
    p.write("docs/spec.md", FIXED_SPEC);
    startBus(p, ["broker", "verifier", "command"]);
    const r = p.cli([
      "review",
      "docs/spec.md",
      "--gate",
      "G-spec",
      "--author",
      "claude",
      "--author-model",
      "claude-opus-4",
      "--run-id",
      "cmd",
      "--wait",
      "--json",
      "--timeout",
      waitSeconds(40),
    ]);
    expect(r.code, r.stderr + p.logs.join("")).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "satisfied", reviewer_host: "py-gemini", independence: "strong" });
    expect(p.readJson("cmd", "G-spec", "result-1.json")).toMatchObject({
      normalized_from: "whole-json",
      reviewer_model: "gemini-2.5-pro",
      round: 1,
    });
  });
});
