// Issue #14 "inputs and errors": the project root found like git finds its work tree, settings validated by every
// command, and help, version and refusals that say what to do.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, REPO } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", cwd, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A project with docs/spec.md; `marker` makes the root a git work tree or a guild project. */
function project(marker: ".git" | ".guild"): { root: string; docs: string } {
  const root = tempRoot();
  mkdirSync(path.join(root, marker));
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  return { root, docs: path.join(root, "docs") };
}

const review = ["review", "spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", "r1"];

function requestOf(root: string): { artifact_path: string } {
  return JSON.parse(readFileSync(path.join(root, ".guild", "runs", "r1", "review", "G-spec", "request.json"), "utf8"));
}

describe("the project root", () => {
  it("from a subdirectory of a git work tree, review files the request under the work tree's root, the artifact as typed", () => {
    const { root, docs } = project(".git");
    const r = run(review, docs);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(docs, ".guild"))).toBe(false);
    expect(requestOf(root).artifact_path).toBe("docs/spec.md");
    // status from the subdirectory finds the same gate
    expect(run(["status"], docs).stdout).toMatch(/^r1\s+G-spec\s/m);
  });

  it("the nearest .guild/ wins over the git root; --root overrides both (its paths relative to it)", () => {
    const { root, docs } = project(".guild");
    mkdirSync(path.join(root, ".git"));
    expect(run(review, docs).code).toBe(0);
    expect(requestOf(root).artifact_path).toBe("docs/spec.md");
    const other = tempRoot();
    writeFileSync(path.join(other, "spec.md"), "# Other\n");
    const r = run([...review, "--root", other], REPO);
    expect(r.code, r.stderr).toBe(0);
    expect(requestOf(other).artifact_path).toBe("spec.md");
  });
  it("a worker started where .guild is a link that leads nowhere refuses, naming the link, and makes nothing", () => {
    const root = tempRoot();
    mkdirSync(path.join(root, ".git"));
    symlinkSync(path.join(root, "not-mounted", "bus"), path.join(root, ".guild"));
    const r = run(["worker", "broker"], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.guild is a link to .*not-mounted\/bus, which leads nowhere .*: mount it or point the link at the bus/);
    expect(existsSync(path.join(root, "not-mounted"))).toBe(false);
  });
});

describe("settings are validated by every command", () => {
  const withSettings = (text: string) => {
    const { root, docs } = project(".guild");
    writeFileSync(path.join(root, ".guild", "settings.json"), text);
    return { root, docs };
  };

  it("malformed JSON is an error naming the line and column, in review, status, providers and up; nothing is written", () => {
    const { root, docs } = withSettings('{\n  "review": "cross",\n  "codex_cap": 3,,\n}\n');
    for (const args of [review, ["status"], ["providers"], ["up"]]) {
      const r = run(args, docs);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/^guild-bus: .*settings\.json: is not valid JSON \(line 3, column 18: /);
    }
    expect(readdirSync(path.join(root, ".guild"))).toEqual(["settings.json"]);
  });

  it("an unknown key is an error with a did-you-mean, at the top and in a provider entry", () => {
    const { docs } = withSettings(JSON.stringify({ provders: {}, providers: { gpt: { adapter: "http", modle: "gpt-5" } } }));
    const r = run(["status"], docs);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown key "provders" (did you mean "providers"?)');
    expect(r.stderr).toContain('providers.gpt: unknown key "modle" (did you mean "model"?)');
  });

  it("a misspelt nested key or a per-gate key naming no gate refuses the request; nothing is written", () => {
    // unread, each asked for less than the project wrote: its secrets unredacted, one reviewer where it set a quorum
    for (const settings of [{ secrets_policy: { redaction_pattern: ["ACME-[0-9]+"] } }, { gate_quorum: { "G-Spec": { need: 2 } } }]) {
      const { root, docs } = withSettings(JSON.stringify(settings));
      const r = run(review, docs);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^guild-bus: .*settings\.json: .*\(did you mean "(redaction_patterns|G-spec)"\?\)/);
      expect(readdirSync(path.join(root, ".guild"))).toEqual(["settings.json"]);
    }
  });

  it("a value no use can take (a redaction pattern no scrub compiles) is named by status and check, and refuses review", () => {
    // unnamed, review refused the artifact and every worker escalated scrub_failed while status and check said nothing
    const { root, docs } = withSettings(JSON.stringify({ secrets_policy: { redaction_patterns: ["("] } }));
    for (const args of [["status"], ["check", "--run", "r1", "--gate", "G-spec"], review]) {
      const r = run(args, docs);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(
        'settings.json: secrets_policy.redaction_patterns: invalid redaction pattern "(": Invalid regular expression',
      );
    }
    expect(readdirSync(path.join(root, ".guild"))).toEqual(["settings.json"]);
  });

  it("--reviewer nosuch is a usage error listing the configured providers; nothing is written", () => {
    const { root, docs } = withSettings(
      JSON.stringify({ providers: { gpt: { adapter: "http", model: "gpt-5", base_url: "https://api.example/v1" } } }),
    );
    const r = run([...review, "--reviewer", "nosuch"], docs);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^guild-bus: reviewer "nosuch" is not a configured provider; choose one of: auto, manual, .*gpt\n$/);
    expect(existsSync(path.join(root, ".guild", "runs"))).toBe(false);
  });

  it("--timeout without --wait is a usage error: it would bound nothing; nothing is written", () => {
    const { root, docs } = withSettings(
      JSON.stringify({ providers: { gpt: { adapter: "http", model: "gpt-5", base_url: "https://api.example/v1" } } }),
    );
    const r = run([...review, "--timeout", "5"], docs);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("guild-bus: --timeout goes with --wait (it bounds the wait); nothing was requested\n");
    expect(existsSync(path.join(root, ".guild", "runs"))).toBe(false);
  });
});

describe("help, version and refusals", () => {
  it("--version prints the package version; --help lists review, status, up first; every command ends with examples and exit codes", () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string };
    expect(run(["--version"], REPO)).toMatchObject({ code: 0, stdout: `${version}\n` });
    const help = run(["--help"], REPO).stdout;
    const names = [...help.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]);
    expect(names.slice(0, 3)).toEqual(["review", "status", "up"]);
    expect(help).toMatch(/Exit codes: .*6 still moving/);
    for (const cmd of [
      "review",
      "status",
      "up",
      "wait",
      "resubmit",
      "rebut",
      "decide",
      "respond",
      "providers",
      "ui",
      "demo",
      "worker",
      "family",
      "scrub",
      "mcp",
      "init",
      "check",
      "hook",
      "gate",
      "verify-gate-pass",
    ]) {
      const r = run([cmd, "--help"], REPO);
      expect(r.stdout, cmd).toMatch(/\nExamples:\n {2}\$ guild-bus /);
      expect(r.stdout, cmd).toMatch(/\nExit codes: \S/);
    }
  });

  it("no invented gate, no raw schema dump, a directory artifact named as one, and --review local says what it will do", () => {
    const { root, docs } = project(".guild");
    expect(run(review, docs).code).toBe(0);
    const nope = run(["status", "nope-run", "G-spec"], docs);
    expect(nope).toMatchObject({ code: 1, stdout: "" });
    expect(nope.stderr).toBe("guild-bus: no run nope-run under .guild/runs\n");
    expect(run(["status", "r1", "G-plan"], docs).stderr).toBe("guild-bus: run r1 has no gate G-plan (its gates: G-spec)\n");
    const decide = run(["decide", "r1", "G-spec", "blah"], docs);
    expect(decide.code).toBe(1);
    expect(decide.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(decide.stderr).not.toMatch(/[{[]/);
    expect(run(["review", ".", "--gate", "G-plan", "--author", "claude"], docs).stderr).toBe(
      "guild-bus: artifact refused: docs is a directory; name a file\n",
    );
    // the bus's own files change as it works: a pass of one could never hold
    const own = run(["review", "../.guild/runs/r1/review/G-spec/request.json", "--gate", "G-plan", "--author", "claude"], docs);
    expect(own).toMatchObject({
      code: 1,
      stderr: "guild-bus: artifact refused: .guild/runs/r1/review/G-spec/request.json is the bus's own state, not an artifact\n",
    });
    // a link is judged by where it leads
    symlinkSync("../.guild/runs/r1/review/G-spec/request.json", path.join(docs, "linked.md"));
    expect(run(["review", "linked.md", "--gate", "G-plan", "--author", "claude"], docs)).toMatchObject({
      code: 1,
      stderr:
        "guild-bus: artifact refused: docs/linked.md is the bus's own state " +
        "(it resolves to .guild/runs/r1/review/G-spec/request.json), not an artifact\n",
    });
    expect(run(["review", "", "--gate", "G-plan", "--author", "claude"], docs).stderr).toBe("guild-bus: artifact refused: no file named\n");
    const local = run(["review", "spec.md", "--gate", "G-plan", "--author", "claude", "--review", "local"], docs);
    expect(local.code).toBe(0);
    expect(local.stderr).toMatch(/warning: review local with no weak_reviewer .*else the manual reviewer \(a person answers/);
    expect(existsSync(path.join(root, ".guild", "runs"))).toBe(true);
  });
});
