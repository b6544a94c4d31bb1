// What `review` refuses or says, as the command layer rules it for every face (the CLI, the MCP `request_review`, the
// console): a cap above the limit is refused (never clamped: that would change what was asked), the author's host is
// held to the author model's rule, a drive-letter path is named as one, and a request while no broker runs says so.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readGate } from "../../src/bus/gate-reader.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { MAX_CAP } from "../../src/core/policy.js";
import { BIN } from "../helpers/bus.js";
import { inMemoryMcp, textOf } from "../helpers/mcp-client.js";
import { tempRoot } from "../helpers/tmp.js";

function project(): Layout {
  const root = tempRoot();
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  return new Layout(root);
}

const ask = (layout: Layout, more: Partial<Parameters<typeof requestReview>[1]> = {}) =>
  requestReview(layout, { artifact: "docs/spec.md", gate: "G-spec", author: "claude-code", reviewer: "manual", runId: "r1", ...more });

function cli(layout: Layout, args: string[]) {
  const r = spawnSync(process.execPath, [BIN, "review", "docs/spec.md", "--gate", "G-spec", ...args], {
    encoding: "utf8",
    cwd: layout.root,
    timeout: 60_000,
  });
  return { code: r.status, stderr: r.stderr };
}

const capRefusal = `cap refused: a gate's round cap is a whole number from 1 to ${MAX_CAP}, not 11; nothing was requested`;

describe("review: one rule per input, in every face", () => {
  it("refuses a cap above the limit, naming it, in the command layer, the CLI and the MCP tool alike; nothing is written", async () => {
    const layout = project();
    for (const cap of [MAX_CAP + 1, 0, 2.5])
      expect(await ask(layout, { cap })).toEqual({ ok: false, error: expect.stringContaining(`from 1 to ${MAX_CAP}, not ${cap}`) });
    const byCli = cli(layout, ["--author", "claude", "--run-id", "r1", "--cap", "11"]);
    expect(byCli.code).toBe(1);
    expect(byCli.stderr).toContain(`${capRefusal} — ask for ${MAX_CAP} or fewer (a human adds rounds with extend-cap when the cap is hit)`);
    expect(byCli.stderr).not.toMatch(/clamped/);
    // the same words for a cap below the limit or not a number: never commander's timer range
    for (const [typed, shown] of [
      ["0", "0"],
      ["abc", '"abc"'],
      ["1.5", '"1.5"'],
    ] as const) {
      const below = cli(layout, ["--author", "claude", "--run-id", "r1", "--cap", typed]);
      expect(below.code).toBe(1);
      // "ask for 10 or fewer" is advice for a cap above the limit only
      expect(below.stderr).toBe(`guild-bus: ${capRefusal.replace("not 11", `not ${shown}`)}\n`);
    }
    const mcp = await inMemoryMcp(layout);
    try {
      const r = await mcp.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", cap: 11 });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain(capRefusal);
    } finally {
      await mcp.close();
    }
    expect(existsSync(layout.runs)).toBe(false);
    expect(await ask(layout, { cap: MAX_CAP })).toMatchObject({ ok: true });
    expect(JSON.parse(readFileSync(layout.gateFile("r1", "G-spec", "request.json"), "utf8"))).toMatchObject({ cap: MAX_CAP });
  });

  it("holds the author host to the author model's rule: one line without control characters, outer spaces trimmed", async () => {
    const layout = project();
    const rule = "must be one line without control or format characters, at most 200 characters";
    for (const author of ["claude\u001b[2J", "claude\ncodex", "claude\u202e", "x".repeat(201)])
      expect(await ask(layout, { author })).toEqual({ ok: false, error: `invalid input: author_host: ${rule}` });
    expect(await ask(layout, { authorModel: "claude\u001b[2J" })).toEqual({ ok: false, error: `invalid input: author_model: ${rule}` });
    const byCli = cli(layout, ["--author", "cla\u0007ude", "--run-id", "r1"]);
    expect(byCli).toMatchObject({ code: 1, stderr: `guild-bus: invalid input: author_host: ${rule}\n` });
    expect(existsSync(layout.runs)).toBe(false);
    expect(await ask(layout, { author: " claude-code\n" })).toMatchObject({ ok: true });
    expect(JSON.parse(readFileSync(layout.gateFile("r1", "G-spec", "request.json"), "utf8"))).toMatchObject({ author_host: "claude-code" });
    expect(JSON.parse(readFileSync(layout.runMeta("r1"), "utf8"))).toMatchObject({ created_by: "claude-code" });
  });

  it("advises what every face can do, never one face's flag: a quorum with a pinned reviewer", async () => {
    const layout = project();
    const r = await ask(layout, { quorum: { need: 2, of: 3 } });
    expect(r).toEqual({ ok: false, error: expect.stringContaining("reviewer manual is pinned (ask for reviewer auto)") });
    expect(!r.ok && r.error).not.toMatch(/--/);
  });

  it("names a drive-letter path as one and says what to pass instead", async () => {
    const layout = project();
    writeFileSync(path.join(layout.root, "c:notes.md"), "# Notes\n"); // a legal name here, a drive path on Windows
    for (const more of [{ artifact: "c:notes.md" }, { paths: ["c:notes.md"] }]) {
      const r = await ask(layout, more);
      expect(r).toEqual({ ok: false, error: expect.stringContaining('path "c:notes.md" starts with a drive letter (c:)') });
      expect(!r.ok && r.error).toContain("name it relative to the project root, without the drive");
      expect(!r.ok && r.error).not.toContain("not inside the project");
    }
    // with no such file too, and typed in a subdirectory on the command line: a drive path, never a missing file
    mkdirSync(layout.guild); // the project root, seen from docs/
    const inDocs = (args: string[]) =>
      spawnSync(process.execPath, [BIN, "review", ...args, "--gate", "G-spec", "--author", "claude"], {
        encoding: "utf8",
        cwd: path.join(layout.root, "docs"),
        timeout: 60_000,
      }).stderr;
    for (const args of [["spec.md", "--paths", "d:notes.md"], ["d:spec.md"]])
      expect(inDocs(args), args.join(" ")).toMatch(
        /^guild-bus: request refused: path "d:(notes|spec)\.md" starts with a drive letter \(d:\)/,
      );
    // a missing related path is named as the project names it, not as a resolved absolute path
    expect(inDocs(["spec.md", "--paths", "gone.md"])).toBe("guild-bus: related path not found: docs/gone.md\n");
    expect(existsSync(layout.runs)).toBe(false);
  });

  it("reads a path typed in a subdirectory, or through the real directories, against a --root given through a symlink", () => {
    const layout = project();
    mkdirSync(layout.guild);
    writeFileSync(path.join(layout.root, "spec.md"), "# Another spec\n"); // what a path read against the root would name
    const linked = path.join(layout.root, "via-link");
    symlinkSync(layout.root, linked); // macOS's /tmp, or a shell's $PWD in a linked directory: the cwd is the real path
    const asked = (artifact: string, runId: string) => {
      const r = spawnSync(
        process.execPath,
        [BIN, "review", artifact, "--gate", "G-spec", "--author", "claude", "--run-id", runId, "--root", linked],
        {
          encoding: "utf8",
          cwd: path.join(layout.root, "docs"),
          timeout: 60_000,
        },
      );
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(readFileSync(layout.gateFile(runId, "G-spec", "request.json"), "utf8")) as { artifact_path: string })
        .artifact_path;
    };
    expect(asked("spec.md", "r1")).toBe("docs/spec.md");
    expect(asked(path.join(layout.root, "docs", "spec.md"), "r2")).toBe("docs/spec.md");
  });

  it("a .guild link that leads nowhere (its disk not mounted) is this project's: never a parent's .guild/ instead", async () => {
    const parent = project(); // a directory above with a bus of its own (~/.guild, say)
    mkdirSync(parent.guild);
    const child = path.join(parent.root, "proj");
    mkdirSync(path.join(child, "docs"), { recursive: true });
    writeFileSync(path.join(child, "docs", "spec.md"), "# Spec\n");
    symlinkSync(path.join(parent.root, "not-mounted", "bus"), path.join(child, ".guild"));
    const r = spawnSync(process.execPath, [BIN, "review", "spec.md", "--gate", "G-spec", "--author", "claude"], {
      encoding: "utf8",
      cwd: path.join(child, "docs"),
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /proj\/\.guild is a link to .*not-mounted\/bus, which leads nowhere .*: mount it or point the link at the bus/,
    );
    expect(existsSync(parent.runs)).toBe(false);
    // the MCP tool, on the root its server finds from there, says the same
    const mcp = await inMemoryMcp(new Layout(child));
    try {
      const m = await mcp.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", reviewer: "manual" });
      expect(m.isError).toBe(true);
      expect(textOf(m)).toMatch(/proj\/\.guild is a link to .*, which leads nowhere/);
    } finally {
      await mcp.close();
    }
  });

  it("says that no broker runs, from the same function, in the CLI and the MCP tool", async () => {
    const layout = project();
    const idle = "no broker worker is running for this project: nothing moves until `guild-bus up` runs";
    expect(await ask(layout)).toMatchObject({ ok: true, idle });
    expect(cli(layout, ["--author", "claude", "--run-id", "r2"]).stderr).toContain(idle);
    const mcp = await inMemoryMcp(layout);
    try {
      const r = await mcp.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", reviewer: "manual" });
      expect(r.isError, textOf(r)).toBeFalsy();
      expect(textOf(r)).toContain(`warning: ${idle}`);
      expect(r.structuredContent!.warnings).toEqual([idle]);
    } finally {
      await mcp.close();
    }
  });

  it("a call retried over the request.json an earlier build wrote (no recorded cap or checkpoint) goes on with it", async () => {
    const layout = project();
    expect(await ask(layout)).toMatchObject({ ok: true });
    const file = path.join(layout.gateDir("r1", "G-spec"), "request.json");
    // what the build before these fields were recorded wrote for the same call: the gate takes them from the settings
    const { cap, human_checkpoint, restart_cap, stall_detection, ...earlier } = JSON.parse(readFileSync(file, "utf8"));
    expect([cap, human_checkpoint, restart_cap, stall_detection]).toEqual([5, false, 3, true]);
    writeFileSync(file, JSON.stringify(earlier, null, 2) + "\n");
    const again = await ask(layout);
    expect(again).toMatchObject({ ok: true, runId: "r1", gate: "G-spec" });
    expect(again.ok && again.warnings.join("\n")).toMatch(/the same request was already in/);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(earlier);
    // asking for another cap than the settings give it is another request
    expect(await ask(layout, { cap: 2 })).toEqual({ ok: false, error: expect.stringMatching(/already has a request/) });
  });

  it("a call retried over a request.json the broker refuses (a repeated key) is refused, never told the gate goes on", async () => {
    const layout = project();
    expect(await ask(layout)).toMatchObject({ ok: true });
    const file = path.join(layout.gateDir("r1", "G-spec"), "request.json");
    const text = readFileSync(file, "utf8");
    // JSON.parse takes the last "cap", the same request; the gate reader refuses the file, and the broker moves it aside
    writeFileSync(file, text.replace(/"cap": (\d+),/, '"cap": 1, "cap": $1,'));
    expect(readGate(layout, "r1", "G-spec").problems).toEqual([
      expect.objectContaining({ file: "request.json", reason: expect.stringMatching(/duplicate key "cap"/) }),
    ]);
    expect(await ask(layout)).toEqual({ ok: false, error: expect.stringMatching(/already has a request/) });
  });

  it("says when the settings' cap is clamped: the request records the clamped cap, so no later reader can say it", async () => {
    const layout = project();
    mkdirSync(layout.guild, { recursive: true });
    writeFileSync(path.join(layout.guild, "settings.json"), JSON.stringify({ max_rounds: 12 }));
    const r = await ask(layout);
    expect(r.ok && r.warnings).toContain(`cap 12 clamped to ${MAX_CAP}`);
    expect(JSON.parse(readFileSync(path.join(layout.gateDir("r1", "G-spec"), "request.json"), "utf8")).cap).toBe(MAX_CAP);
  });

  it("over MCP, a call retried with its run id goes on with the review already requested: no second paid review", async () => {
    const layout = project();
    const mcp = await inMemoryMcp(layout);
    try {
      const call = () => mcp.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", reviewer: "manual", run_id: "mine-1" });
      const first = await call();
      expect(first.isError, textOf(first)).toBeFalsy();
      expect(first.structuredContent).toMatchObject({ run_id: "mine-1", gate: "G-spec" });
      const request = readFileSync(path.join(layout.gateDir("mine-1", "G-spec"), "request.json"), "utf8");
      const again = await call();
      expect(again.isError, textOf(again)).toBeFalsy();
      expect(textOf(again)).toMatch(/the same request was already in \(requested at .*\); it goes on, nothing new was written/);
      expect(readFileSync(path.join(layout.gateDir("mine-1", "G-spec"), "request.json"), "utf8")).toBe(request);
      expect(readdirSync(layout.runs)).toEqual(["mine-1"]);
      // another request under that run id is refused, and a malformed id is named
      const other = await mcp.call("request_review", {
        artifact: "docs/spec.md",
        gate: "G-spec",
        reviewer: "manual",
        run_id: "mine-1",
        cap: 2,
      });
      expect(other.isError).toBe(true);
      expect(textOf(other)).toMatch(/mine-1 G-spec already has a request/);
      const bad = await mcp.call("request_review", { artifact: "docs/spec.md", gate: "G-spec", run_id: "../x" });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/run id/);
      expect(readdirSync(layout.runs)).toEqual(["mine-1"]);
    } finally {
      await mcp.close();
    }
  });
});
