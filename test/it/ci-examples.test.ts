// The CI examples of the README (docs/ci/): the GitHub Actions workflow's steps, run as a script in a project with
// guild-bus installed, and the pre-push hook — each passes while the required gates hold for the bytes in the tree
// and fails (non-zero) once an artifact changes after its pass.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BIN, makeProject, type Project, REPO, scriptedProvider, startBus } from "../helpers/bus.js";

const DOCS = path.join(REPO, "docs", "ci");

/** The workflow's shell steps; `npm ci` is the one replaced — the project links the built package instead. */
function workflowScript(): string {
  const wf = parse(readFileSync(path.join(DOCS, "guild-bus-check.yml"), "utf8")) as {
    jobs: Record<string, { steps: Array<{ run?: string }> }>;
  };
  const runs = Object.values(wf.jobs).flatMap((j) => j.steps.flatMap((s) => (s.run ? [s.run] : [])));
  expect(runs[0]).toBe("npm ci");
  return ["set -e", ...runs.slice(1)].join("\n");
}

const sh = (p: Project, script: string) => spawnSync("sh", ["-c", script], { cwd: p.root, encoding: "utf8", env: process.env });

describe("the CI examples (docs/ci)", () => {
  it("pass while G-spec and G-plan hold for the bytes in the tree, fail after an edit", () => {
    const p = makeProject();
    p.settings({ providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5", { default: "by-content" }) } });
    mkdirSync(path.join(p.root, "node_modules", ".bin"), { recursive: true });
    symlinkSync(BIN, path.join(p.root, "node_modules", ".bin", "guild-bus"));
    p.write("docs/spec.md", "# Spec\n\nLatency: p95 under 200 ms.\n");
    p.write("docs/plan.md", "# Plan\n\nShip behind a flag.\n");
    startBus(p);
    for (const [file, gate] of [
      ["docs/spec.md", "G-spec"],
      ["docs/plan.md", "G-plan"],
    ]) {
      const r = p.cli(["review", file!, "--gate", gate!, "--author", "claude", "--author-model", "claude-opus-4-5", "--wait"]);
      expect(r.code, r.stderr).toBe(0);
    }
    const script = workflowScript();
    const hook = readFileSync(path.join(DOCS, "pre-push"), "utf8");
    const ok = sh(p, script);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^PASS .* G-plan docs\/plan.md/m);
    expect(sh(p, hook).status).toBe(0);

    writeFileSync(path.join(p.root, "docs", "plan.md"), "# Plan\n\nShip it, no flag.\n");
    const failed = sh(p, script);
    expect(failed.status).toBe(2);
    expect(failed.stdout).toMatch(/^FAIL .* G-plan docs\/plan.md: .*the artifact changed since the outcome/m);
    expect(sh(p, hook).status).toBe(2);
  });
});
