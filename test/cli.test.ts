// The small commands from the shell: verify-gate-pass (Guild's exit codes), family, scrub; and that they start
// without loading the heavy modules.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/sha.js";
import { BIN, REPO } from "./helpers/bus.js";
import { tempRoot } from "./helpers/tmp.js";

function run(args: string[], opts: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv; node?: string[] } = {}) {
  const r = spawnSync(process.execPath, [...(opts.node ?? []), BIN, ...args], { encoding: "utf8", input: opts.input, cwd: opts.cwd, env: { ...process.env, ...opts.env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("guild-bus verify-gate-pass", () => {
  const dir = () => {
    const d = tempRoot();
    const artifact = path.join(d, "spec.md");
    writeFileSync(artifact, "# Spec\ntoken=sk-ant-FAKE0123456789abcdefghijklmnop\n");
    return { d, artifact, sha: sha256Hex(readFileSync(artifact)) };
  };
  const result = (d: string, body: object) => {
    const f = path.join(d, "result.json");
    writeFileSync(f, JSON.stringify(body));
    return f;
  };

  it("exit 0 and the pretty verdict JSON when all five conditions hold (--flag value and --flag=value)", () => {
    const { d, artifact, sha } = dir();
    const res = result(d, { packet_id: "p-1", artifact_sha256_reviewed: sha.toUpperCase(), verdict: "satisfied", blocking_findings: [] });
    const r = run(["verify-gate-pass", "--result", res, `--artifact=${artifact}`, "--packet-id", "p-1"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(JSON.stringify({ pass: true, conditions: { parses: true, packet_id_match: true, sha256_match: true, satisfied: true, no_blockers: true }, recomputed_sha256: sha, reasons: [] }, null, 2) + "\n");
  });

  it("exit 2 on a failing gate, including a missing result; --force-pass relaxes only the verdict", () => {
    const { d, artifact, sha } = dir();
    const issues = result(d, { packet_id: "p-1", artifact_sha256_reviewed: sha, verdict: "issues", blocking_findings: [] });
    expect(run(["verify-gate-pass", "--result", issues, "--artifact", artifact]).code).toBe(2);
    expect(run(["verify-gate-pass", "--result", issues, "--artifact", artifact, "--force-pass"]).code).toBe(0);
    const missing = run(["verify-gate-pass", "--result", path.join(d, "nope.json"), "--artifact", artifact]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout).reasons).toEqual(["result file unreadable"]);
  });

  it("exit 1 with a message on stderr for usage errors and an unreadable artifact", () => {
    const { d } = dir();
    const res = result(d, {});
    for (const args of [["--result", res], ["--result", res, "--artifact", path.join(d, "missing.md")], ["--result", res, "--artifact", res, "--bogus"]]) {
      const r = run(["verify-gate-pass", ...args]);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr.length).toBeGreaterThan(0);
      expect(r.stdout).toBe("");
    }
  });

  it("--scrub hashes the scrubbed bytes, as the bus does", () => {
    const { d, artifact, sha } = dir();
    const scrubbed = run(["scrub", artifact]).stdout;
    const res = result(d, { packet_id: "p", artifact_sha256_reviewed: sha256Hex(Buffer.from(scrubbed)), verdict: "satisfied", blocking_findings: [] });
    expect(run(["verify-gate-pass", "--result", res, "--artifact", artifact]).code).toBe(2);
    expect(run(["verify-gate-pass", "--result", res, "--artifact", artifact, "--scrub"]).code).toBe(0);
    expect(sha).not.toBe(sha256Hex(Buffer.from(scrubbed)));
  });
});

describe("guild-bus family and scrub", () => {
  it("family prints model<TAB>family per line, or JSON", () => {
    expect(run(["family", "gpt-5", "claude-opus-4", "gpt4", "qwen2.5-coder"]).stdout).toBe("gpt-5\topenai\nclaude-opus-4\tanthropic\ngpt4\tunknown\nqwen2.5-coder\tqwen\n");
    expect(JSON.parse(run(["family", "gemini-2.5-pro", "--json"]).stdout)).toEqual([{ model: "gemini-2.5-pro", family: "google" }]);
  });

  it("scrub prints the redacted text; --check exits 3 when something would be redacted, 0 otherwise", () => {
    const d = tempRoot();
    const dirty = path.join(d, "dirty.md");
    const clean = path.join(d, "clean.md");
    writeFileSync(dirty, "key: ghp_FAKE0123456789abcdefghijklmnopqrstuvwx\n");
    writeFileSync(clean, "nothing secret, sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n");
    expect(run(["scrub", dirty]).stdout).toContain("[REDACTED:");
    expect(run(["scrub", dirty, "--check"]).code).toBe(3);
    expect(run(["scrub", clean, "--check"]).code).toBe(0);
    expect(run(["scrub", clean]).stdout).toBe(readFileSync(clean, "utf8"));
  });
});

describe("start-up cost", () => {
  function loaded(args: string[]): string[] {
    const log = path.join(tempRoot(), "loads.txt");
    writeFileSync(log, "");
    run(args, { node: ["--import", path.join(REPO, "test", "helpers", "load-hook.mjs")], env: { GUILD_BUS_LOAD_LOG: log } });
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  }

  it("verify-gate-pass loads neither zod, commander nor chokidar; family and scrub never load chokidar", () => {
    const d = tempRoot();
    writeFileSync(path.join(d, "a.md"), "x");
    const verify = loaded(["verify-gate-pass", "--result", path.join(d, "r.json"), "--artifact", path.join(d, "a.md")]);
    expect(verify.length).toBeGreaterThan(0);
    expect(verify.filter((s) => /^(zod|commander|chokidar)(\/|$)/.test(s))).toEqual([]);
    for (const args of [["family", "gpt-5"], ["scrub", path.join(d, "a.md")], ["--help"]]) {
      expect(loaded(args).filter((s) => /^chokidar(\/|$)/.test(s)), args[0]).toEqual([]);
    }
  });

  it("--help lists every command", () => {
    const r = run(["--help"]);
    expect(r.code).toBe(0);
    for (const c of ["verify-gate-pass", "family", "scrub", "review", "resubmit", "decide", "respond", "status", "worker", "up", "demo", "providers"]) expect(r.stdout).toContain(c);
  });
});
