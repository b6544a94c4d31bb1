// `guild-bus check` (CI, git hooks): a gate passes only if its outcome re-derives from the files for the artifact
// bytes now in the tree. A passed gate → 0; the artifact edited since → 2 with the reason; an outcome.json forged
// into a gate whose reviewer asked for changes → 2; a required gate no run has → 2.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, type Project, scriptedProvider, startBus } from "../helpers/bus.js";

// One project through the whole scenario: temp roots and workers live for one test (test/helpers).
let p: Project;
let passedRun = "";
let reworkRun = "";

function review(artifact: string, gate: string): string {
  const r = p.cli(["review", artifact, "--gate", gate, "--author", "claude", "--author-model", "claude-opus-4-5", "--wait", "--json"]);
  expect([0, 3], r.stderr).toContain(r.code);
  return (JSON.parse(r.stdout) as { run_id: string }).run_id;
}

async function setUp() {
  p = makeProject();
  p.settings({ providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5", { default: "by-content" }) } });
  p.write("docs/spec.md", "# Spec\n\nLatency target: p95 under 200 ms.\n");
  p.write("docs/plan.md", "# Plan\n\nRollback: TBD\n");
  startBus(p);
  passedRun = review("docs/spec.md", "G-spec");
  reworkRun = review("docs/plan.md", "G-plan");
}

describe("guild-bus check", () => {
  it("passes, fails and sees through a forged outcome", async () => {
    await setUp();
    passes();
    failsWhatDidNotPass();
    seesThroughAForgedOutcome();
    failsAnEditedArtifact();
  });
});

/** A gate satisfied for the bytes in the tree: exit 0, and JSON. */
function passes() {
  const r = p.cli(["check", "--require", "G-spec"]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(new RegExp(`^PASS ${passedRun} G-spec docs/spec.md: satisfied at round 1, independence strong`, "m"));
  // the scripted reviewer reports no model: "strong" rests on the model requested, and the line says so
  expect(r.stdout).toMatch(/ G-spec docs\/spec\.md: .*; reviewer model the one requested, not reported by the reviewer \(unverified\)$/m);
  const json = JSON.parse(p.cli(["check", "--gate", "G-spec", "--json"]).stdout);
  expect(json).toMatchObject({ passed: true, gates: [{ run_id: passedRun, gate: "G-spec", passed: true }] });
}

/** A gate that asked for changes, or a required gate nobody ran: exit 2. */
function failsWhatDidNotPass() {
  const r = p.cli(["check", "--require", "G-spec,G-plan,G-quality"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toMatch(new RegExp(`^FAIL ${reworkRun} G-plan docs/plan.md: not ended: awaiting_author`, "m"));
  expect(r.stdout).toMatch(/^FAIL G-quality: required, but no run has this gate$/m);
}

/** An outcome.json forged into a gate whose reviewer asked for changes does not re-derive: exit 2. */
function seesThroughAForgedOutcome() {
  const real = p.readJson(passedRun, "G-spec", "outcome.json");
  const forged = { ...real, run_id: reworkRun, gate: "G-plan", trail_path: `.guild/runs/${reworkRun}/review/G-plan/trail.md` };
  writeFileSync(path.join(p.gateDir(reworkRun, "G-plan"), "outcome.json"), JSON.stringify(forged, null, 2));
  const r = p.cli(["check", "--run", reworkRun, "--gate", "G-plan"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toMatch(/^FAIL .* G-plan docs\/plan.md: the outcome does not re-derive from the files: /m);
}

/** The artifact edited after the pass: exit 2 with the reason. */
function failsAnEditedArtifact() {
  writeFileSync(path.join(p.root, "docs", "spec.md"), "# Spec\n\nLatency target: whatever.\n");
  const r = p.cli(["check", "--require", "G-spec"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toMatch(/^FAIL .* G-spec docs\/spec.md: the outcome does not re-derive .*the artifact changed since the outcome/m);
}
