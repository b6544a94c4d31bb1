// The CI examples of the README (docs/ci/): the GitHub Actions workflow's steps, run as a script in a project with
// guild-bus installed, and the pre-push hook — each passes while the required gates hold for the bytes in the tree
// and fails (non-zero) once an artifact changes after its pass.
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
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

/** git in the project (each git of a chained line), as a person named in the commits. */
const PERSON = {
  GIT_AUTHOR_NAME: "ci",
  GIT_AUTHOR_EMAIL: "ci@example.invalid",
  GIT_COMMITTER_NAME: "ci",
  GIT_COMMITTER_EMAIL: "ci@example.invalid",
};
const git = (p: Project, args: string) =>
  spawnSync("sh", ["-c", `git ${args}`], { cwd: p.root, encoding: "utf8", env: { ...process.env, ...PERSON } });

/** p as a git repository (one commit) that pushes to a bare remote beside it through the shipped pre-push hook. */
function withPrePush(p: Project, ignored: string, message: string): string {
  const remote = path.join(p.root, "..", `${path.basename(p.root)}-remote.git`);
  onTestFinished(() => rmSync(remote, { recursive: true, force: true }));
  writeFileSync(path.join(p.root, ".gitignore"), ignored);
  const setUp = git(p, `init -q . && git add -A && git commit -qm ${message} && git init -q --bare ` + JSON.stringify(remote));
  expect(setUp.status, setUp.stderr).toBe(0);
  copyFileSync(path.join(DOCS, "pre-push"), path.join(p.root, ".git", "hooks", "pre-push"));
  chmodSync(path.join(p.root, ".git", "hooks", "pre-push"), 0o755);
  return remote;
}

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
    const ok = sh(p, script);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^PASS .* G-plan docs\/plan.md/m);
    // a spec added without a review fails by name (G-spec passed for docs/spec.md, which `--require G-spec` alone accepts)
    writeFileSync(path.join(p.root, "docs", "spec-cache.md"), "# Cache spec\n");
    const added = sh(p, script);
    expect(added.status, added.stdout + added.stderr).toBe(2);
    expect(added.stdout).toMatch(/^FAIL G-spec docs\/spec-cache\.md: required by G-spec=docs\/spec\*\.md, but no run reviewed this file/m);
    rmSync(path.join(p.root, "docs", "spec-cache.md"));

    // the pre-push hook, installed in a repository that pushes to a bare remote: it judges the commits pushed
    const remote = withPrePush(p, "node_modules/\n.guild/tmp/\n.guild/logs/\n.guild/workers/\n.guild/up.lock\n", "reviewed");
    const pushed = git(p, `push -q ${JSON.stringify(remote)} HEAD:main`);
    expect(pushed.status, pushed.stdout + pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(/^PASS .* G-plan docs\/plan.md/m);

    // an unreviewed edit committed, then undone in the working tree only: the push carries it, so the hook refuses it
    // (it checked the working tree, which holds the reviewed bytes, and let the push through)
    writeFileSync(path.join(p.root, "docs", "plan.md"), "# Plan\n\nShip it, no flag.\n");
    expect(git(p, "commit -qam 'unreviewed edit' && git checkout HEAD~1 -- docs/plan.md").status).toBe(0);
    expect(sh(p, script).status).toBe(0); // the working tree holds the reviewed bytes
    const refused = git(p, `push -q ${JSON.stringify(remote)} HEAD:main`);
    expect(refused.status, refused.stdout + refused.stderr).not.toBe(0);
    expect(refused.stdout).toMatch(/^FAIL .* G-plan docs\/plan.md: .*the artifact changed since the outcome/m);
    expect(git(p, `--git-dir=${JSON.stringify(remote)} show main:docs/plan.md`).stdout).toBe("# Plan\n\nShip behind a flag.\n");

    writeFileSync(path.join(p.root, "docs", "plan.md"), "# Plan\n\nShip it, no flag.\n");
    const failed = sh(p, script);
    expect(failed.status).toBe(2);
    expect(failed.stdout).toMatch(/^FAIL .* G-plan docs\/plan.md: .*the artifact changed since the outcome/m);
  });

  it("the pre-push hook ties the default files only while neither variable says otherwise", () => {
    const p = makeProject();
    mkdirSync(path.join(p.root, "node_modules", ".bin"), { recursive: true });
    symlinkSync(BIN, path.join(p.root, "node_modules", ".bin", "guild-bus"));
    p.write("docs/spec.md", "# Spec\n");
    const remote = withPrePush(p, "node_modules/\n", "spec");
    // no run passed here, so every push is refused: what matters is which requirements the check was given
    const withEnv = (env: Record<string, string>) =>
      spawnSync("sh", ["-c", `git push -q ${JSON.stringify(remote)} HEAD:main`], {
        cwd: p.root,
        encoding: "utf8",
        env: { ...process.env, ...PERSON, ...env },
      });
    const byDefault = withEnv({});
    expect(byDefault.status).not.toBe(0);
    expect(byDefault.stdout).toMatch(/^FAIL G-plan=docs\/plan\*\.md: no file in the tree matches it/m);
    // set empty: no file is tied (a project whose artifacts live elsewhere, or that wants --require alone)
    const none = withEnv({ GUILD_BUS_REQUIRE_FILES: "" });
    expect(none.stdout).toMatch(/^FAIL G-spec: required, but no run has this gate/m);
    expect(none.stdout).not.toMatch(/required by|no file in the tree matches/);
    // the gates overridden: the default globs (naming G-plan) do not require G-plan again
    const specOnly = withEnv({ GUILD_BUS_REQUIRE: "G-spec" });
    expect(specOnly.stdout).toMatch(/^FAIL G-spec: required, but no run has this gate/m);
    expect(specOnly.stdout).not.toMatch(/G-plan/);
    expect(withEnv({ GUILD_BUS_REQUIRE: "G-spec", GUILD_BUS_REQUIRE_FILES: "G-spec=docs/*.md" }).stdout).toMatch(
      /^FAIL G-spec docs\/spec\.md: required by G-spec=docs\/\*\.md/m,
    );
  });
});
