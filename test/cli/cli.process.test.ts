// The small commands from the shell: verify-gate-pass (Guild's exit codes), family, scrub; and that they start
// without loading the heavy modules.
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/sha.js";
import { BIN, makeProject, REPO } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";
import { scaled } from "../helpers/machine.js";

/** One CLI run; `stdin` is a descriptor to read from instead of `input`. A command that never ends is killed (code null). */
function run(args: string[], opts: { input?: string; stdin?: number; cwd?: string; env?: NodeJS.ProcessEnv; node?: string[] } = {}) {
  const r = spawnSync(process.execPath, [...(opts.node ?? []), BIN, ...args], {
    encoding: "utf8",
    input: opts.input,
    stdio: [opts.stdin ?? "pipe", "pipe", "pipe"],
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A user error: exit 1, nothing on stdout, one `guild-bus: …` line matching `what`, and at most a hint line. */
function expectUserError(r: ReturnType<typeof run>, what: RegExp): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stdout).toBe("");
  const lines = r.stderr.split("\n").filter(Boolean);
  expect(lines.length, r.stderr).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(/^guild-bus: /);
  expect(lines[0]).toMatch(what);
}

function mkfifo(file: string): string {
  expect(spawnSync("mkfifo", [file]).status).toBe(0);
  return file;
}

/** A Unix socket at `file`, left behind by a server that exits without closing it. */
function socket(file: string): string {
  const made = spawnSync(process.execPath, ["-e", "require('net').createServer().listen(process.argv[1], () => process.exit(0))", file]);
  expect(made.status).toBe(0);
  return file;
}

/** A directory, a FIFO, a device and a socket: what every file argument must refuse rather than read forever. */
function notFiles(d: string): Array<[string, RegExp]> {
  mkdirSync(path.join(d, "dir"));
  return [
    [path.join(d, "dir"), /not a regular file \(a directory\)/],
    [mkfifo(path.join(d, "fifo")), /not a regular file \(a FIFO\)/],
    ["/dev/zero", /not a regular file \(a device\)/],
    [socket(path.join(d, "sock")), /not a regular file \(a socket\)/],
  ];
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
    expect(r.stdout).toBe(
      JSON.stringify(
        {
          pass: true,
          conditions: { parses: true, packet_id_match: true, sha256_match: true, satisfied: true, no_blockers: true },
          recomputed_sha256: sha,
          reasons: [],
        },
        null,
        2,
      ) + "\n",
    );
  });

  it("judges as the bus does what one result shows: an upheld ruling fails, and --stop score judges the score", () => {
    const { d, artifact, sha } = dir();
    const base = { packet_id: "p-1", artifact_sha256_reviewed: sha, verdict: "satisfied", blocking_findings: [] };
    const gate = (body: object, ...more: string[]) => {
      const r = run(["verify-gate-pass", "--result", result(d, body), "--artifact", artifact, ...more]);
      return { code: r.code, reasons: r.code === 1 ? r.stderr : (JSON.parse(r.stdout) as { reasons: string[] }).reasons.join("; ") };
    };
    expect(gate({ ...base, rulings: [{ finding: "No rollback", ruling: "upheld" }] })).toEqual({
      code: 2,
      reasons: "1 contested finding(s) upheld",
    });
    expect(gate({ ...base, rulings: [{ finding: "No rollback", ruling: "withdrawn" }] }).code).toBe(0);
    // a score gate: a satisfied verdict with a failing score does not pass; an issues verdict with a passing one does
    expect(gate({ ...base, score: 3, readiness: "not ready" }, "--stop", "score")).toMatchObject({
      code: 2,
      reasons: expect.stringMatching(/score 3\/10/),
    });
    expect(gate({ ...base, score: 3, readiness: "not ready" })).toMatchObject({ code: 0 });
    expect(gate({ ...base, verdict: "issues", score: 8, readiness: "ready" }, "--stop", "score")).toEqual({ code: 0, reasons: "" });
    expect(gate({ ...base, score: 3, readiness: "not ready" }, "--stop", "score", "--force-pass").code).toBe(0);
    expect(gate(base, "--stop", "maybe").code).toBe(1);
    // a shape the bus's answer reader refuses never passes here (§8.1): a lone blocker in place of the findings list,
    // a verdict no reader knows under a score gate, a ruling that names no finding
    expect(gate({ ...base, findings: { severity: "blocking", title: "SQL injection" } })).toEqual({
      code: 2,
      reasons: 'parse: findings: must be an array (got {"severity":"blocking","title":"SQL injection"})',
    });
    expect(gate({ ...base, verdict: "meh", score: 8, readiness: "ready" }, "--stop", "score").code).toBe(2);
    expect(gate({ ...base, rulings: [{ ruling: "withdrawn" }] }).code).toBe(2);
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
    for (const args of [
      ["--result", res],
      ["--result", res, "--artifact", path.join(d, "missing.md")],
      ["--result", res, "--artifact", res, "--bogus"],
      // exit 0 would read as a pass: help beside a check is a usage error, never the usage with 0
      ["--result", res, "--artifact", res, "--help"],
    ]) {
      const r = run(["verify-gate-pass", ...args]);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr.length).toBeGreaterThan(0);
      expect(r.stdout).toBe("");
    }
  });

  it("--scrub hashes the scrubbed bytes, as the bus does", () => {
    const { d, artifact, sha } = dir();
    const scrubbed = run(["scrub", artifact]).stdout;
    const res = result(d, {
      packet_id: "p",
      artifact_sha256_reviewed: sha256Hex(Buffer.from(scrubbed)),
      verdict: "satisfied",
      blocking_findings: [],
    });
    expect(run(["verify-gate-pass", "--result", res, "--artifact", artifact]).code).toBe(2);
    expect(run(["verify-gate-pass", "--result", res, "--artifact", artifact, "--scrub"]).code).toBe(0);
    expect(sha).not.toBe(sha256Hex(Buffer.from(scrubbed)));
  });
});

describe("guild-bus family and scrub", () => {
  it("family prints model<TAB>family per line, or JSON", () => {
    expect(run(["family", "gpt-5", "claude-opus-4", "gpt4", "qwen2.5-coder"]).stdout).toBe(
      "gpt-5\topenai\nclaude-opus-4\tanthropic\ngpt4\tunknown\nqwen2.5-coder\tqwen\n",
    );
    expect(JSON.parse(run(["family", "gemini-2.5-pro", "--json"]).stdout)).toEqual([{ model: "gemini-2.5-pro", family: "google" }]);
  });

  it("family answers as the bus would: the project's family_aliases, then --alias over them; a family it does not know is refused", () => {
    const root = tempRoot();
    const sub = path.join(root, "docs");
    mkdirSync(path.join(root, ".guild"));
    mkdirSync(sub);
    const settings = path.join(root, ".guild", "settings.json");
    expect(run(["family", "acme-7b"], { cwd: sub }).stdout).toBe("acme-7b\tunknown\n");
    writeFileSync(settings, JSON.stringify({ family_aliases: { acme: "meta" } }));
    expect(run(["family", "acme-7b", "gpt-5"], { cwd: sub }).stdout).toBe("acme-7b\tmeta\ngpt-5\topenai\n");
    expect(run(["family", "acme-7b", "--root", root]).stdout).toBe("acme-7b\tmeta\n");
    expect(run(["family", "acme-7b", "--alias", "acme=qwen"], { cwd: sub }).stdout).toBe("acme-7b\tqwen\n");
    // the key written with an escape is the same key to every worker
    writeFileSync(settings, '{"family\\u005faliases": {"acme": "zhipu"}}');
    expect(run(["family", "acme-7b"], { cwd: sub }).stdout).toBe("acme-7b\tzhipu\n");
    // settings the workers would not take whole are refused, as by every other command
    writeFileSync(settings, JSON.stringify({ family_aliases: { acme: "meta" }, reviewr: "codex" }));
    expectUserError(run(["family", "acme-7b"], { cwd: sub }), /settings\.json: .*reviewr/);
    for (const alias of ["acme=banana", "acme=unknown", "=meta", "acme"])
      expectUserError(run(["family", "acme-7b", "--alias", alias], { cwd: root }), /--alias .*needle=family, the family one of openai, /);
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
  /** Every module specifier the command resolved, each with the module that imported it; dist/src's modules unless `bundle`. */
  function imports(args: string[], bundle = false): Array<{ specifier: string; parent: string }> {
    const log = path.join(tempRoot(), "loads.txt");
    writeFileSync(log, "");
    const env = { GUILD_BUS_LOAD_LOG: log, GUILD_BUS_BUNDLE: bundle ? "1" : "0" };
    run(args, { node: ["--import", path.join(REPO, "test", "helpers", "load-hook.mjs")], env });
    return readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [specifier = "", parent = ""] = line.split("\t");
        return { specifier, parent };
      });
  }
  const loaded = (args: string[]) => imports(args).map((i) => i.specifier);

  it("verify-gate-pass loads neither zod, commander nor chokidar; family no zod, --help no diff; no chokidar for small ones", () => {
    const d = tempRoot();
    writeFileSync(path.join(d, "a.md"), "x");
    const verify = loaded(["verify-gate-pass", "--result", path.join(d, "r.json"), "--artifact", path.join(d, "a.md")]);
    expect(verify.length).toBeGreaterThan(0);
    expect(verify.filter((s) => /^(zod|commander|chokidar)(\/|$)/.test(s))).toEqual([]);
    expect(loaded(["family", "gpt-5"]).filter((s) => /^zod(\/|$)/.test(s))).toEqual([]);
    expect(loaded(["--help"]).filter((s) => /^diff(\/|$)/.test(s))).toEqual([]);
    for (const args of [["family", "gpt-5"], ["scrub", path.join(d, "a.md")], ["--help"]]) {
      expect(
        loaded(args).filter((s) => /^chokidar(\/|$)/.test(s)),
        args[0],
      ).toEqual([]);
    }
  });

  it("the overview, --version and each read-only command's --help load neither zod, yaml, nanoid nor a command's work", () => {
    const heavy =
      /^(zod|yaml|nanoid|diff|chokidar)(\/|$)|\/(commands|adapters|runtime|workers)\/|\/bus\/(settings|context|gate-reader)\.js$/;
    for (const args of [
      ["--help"],
      ["-V"],
      ["help", "status"],
      ...["status", "check", "providers", "family", "scrub", "wait"].map((c) => [c, "--help"]),
    ]) {
      const modules = loaded(args);
      expect(modules.length, args.join(" ")).toBeGreaterThan(0);
      expect(
        modules.filter((s) => heavy.test(s)),
        args.join(" "),
      ).toEqual([]);
    }
  });

  it("status, check and providers load only their own command's modules", () => {
    const d = tempRoot();
    mkdirSync(path.join(d, ".guild", "runs"), { recursive: true });
    const others = /^\.\/(review|wait|worker|author|ui|demo|mcp|init|hook|scrub)\.js$/; // the other commands' modules, as main.ts names them
    for (const command of ["status", "check", "providers"]) {
      // a command module is one dist/src/cli imports (core has a scrub.js of its own)
      const modules = imports([command, "--root", d]).flatMap((i) =>
        i.parent.includes("/cli/") || !i.specifier.startsWith("./") ? [i.specifier] : [],
      );
      // a project with no settings.json, no gate and no capability.json has nothing to validate: no schemas
      expect(
        modules.some((s) => /^zod(\/|$)/.test(s)),
        command,
      ).toBe(false);
      expect(
        modules.filter((s) => others.test(s) || /^(chokidar|diff)(\/|$)/.test(s)),
        command,
      ).toEqual([]);
    }
  });

  it("check and providers load the schemas once there is something to parse: a gate, a settings.json, a capability.json", () => {
    const zod = (args: string[]) => loaded(args).some((s) => /^zod(\/|$)/.test(s));
    const withSettings = tempRoot();
    mkdirSync(path.join(withSettings, ".guild", "runs"), { recursive: true });
    writeFileSync(path.join(withSettings, ".guild", "settings.json"), "{}\n");
    expect(zod(["check", "--root", withSettings])).toBe(true);
    expect(zod(["providers", "--root", withSettings])).toBe(true);
    const withGate = tempRoot();
    writeFileSync(path.join(withGate, "a.md"), "x\n");
    expect(run(["review", "a.md", "--gate", "G-spec", "--author", "claude", "--reviewer", "manual", "--root", withGate]).code).toBe(0);
    const gateCheck = run(["check", "--root", withGate]);
    expect(gateCheck.stdout).toMatch(/^FAIL \S+ G-spec a\.md: not ended: /);
    expect(zod(["check", "--root", withGate])).toBe(true);
    const withHost = tempRoot();
    mkdirSync(path.join(withHost, ".guild", "hosts", "zed"), { recursive: true });
    writeFileSync(path.join(withHost, ".guild", "hosts", "zed", "capability.json"), '{"host": "zed", "model": "gpt-5"}\n');
    expect(run(["providers", "--root", withHost]).stdout).toMatch(/^✗ zed +adapter manual +model gpt-5 +family openai .*\(capability\)$/m);
    expect(zod(["providers", "--root", withHost])).toBe(true);
  });

  it("the bundle npm run build makes is what runs, and small commands still load none of the heavy libraries", () => {
    const d = tempRoot();
    mkdirSync(path.join(d, ".guild", "runs"), { recursive: true });
    writeFileSync(path.join(d, "a.md"), "x");
    /** The files of our own code the command loaded. */
    const files = (args: string[]) => [
      ...new Set(
        imports(args, true)
          .flatMap(({ specifier, parent }) =>
            /^\.\.?\//.test(specifier) && parent.startsWith("file:") ? [fileURLToPath(new URL(specifier, parent))] : [],
          )
          .filter((f) => existsSync(f)), // a library's CommonJS require names a file without its extension
      ),
    ];
    // a string each library's code holds, found in whichever chunk the bundler put it
    const MARKS = { zod: '"$ZodObject"', commander: "error: unknown option", chokidar: "awaitWriteFinish", diff: "=".repeat(67) };
    const libraries = (args: string[]) => {
      const texts = files(args).map((f) => readFileSync(f, "utf8"));
      return Object.entries(MARKS).flatMap(([library, mark]) => (texts.some((t) => t.includes(mark)) ? [library] : []));
    };
    const status = files(["status", "--root", d]);
    expect(status.length).toBeGreaterThan(0);
    // besides the bundle: the bin's own files and jsonc-parser's, which the bundle loads with require
    const outside = (f: string) =>
      ![path.join(REPO, "dist", "cli"), path.join(REPO, "bin"), path.join(REPO, "node_modules")].some((d) => f.startsWith(d + path.sep));
    expect(status.filter(outside)).toEqual([]);
    for (const command of ["status", "check", "providers"])
      // no settings.json, no gate: nothing to validate
      expect(libraries([command, "--root", d]), command).toEqual(["commander"]);
    const withSettings = tempRoot();
    mkdirSync(path.join(withSettings, ".guild", "runs"), { recursive: true });
    writeFileSync(path.join(withSettings, ".guild", "settings.json"), "{}\n");
    expect(libraries(["status", "--root", withSettings])).toEqual(["zod", "commander"]); // settings are validated
    expect(libraries(["verify-gate-pass", "--result", path.join(d, "r.json"), "--artifact", path.join(d, "a.md")])).toEqual([]);
    expect(libraries(["family", "gpt-5"])).toEqual(["commander"]);
    expect(libraries(["--help"])).toEqual(["commander"]);
    // what every command loads is one entry file, not a dozen small chunks: each file costs a start of its own
    const bundleFiles = (args: string[]) => files(args).filter((f) => f.startsWith(path.join(REPO, "dist", "cli") + path.sep));
    expect(bundleFiles(["--help"]).length).toBeLessThanOrEqual(5);
    expect(bundleFiles(["status", "--root", d]).length).toBeLessThanOrEqual(25);
  });

  /** A package whose bin is ours and whose two trees only say which one ran. */
  function twoTrees(checkout: boolean) {
    const pkg = tempRoot();
    cpSync(path.dirname(BIN), path.join(pkg, "bin"), { recursive: true });
    writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ type: "module" }));
    if (checkout) writeFileSync(path.join(pkg, "tsconfig.json"), "{}\n");
    const modules = path.join(pkg, "dist", "src", "cli");
    mkdirSync(modules, { recursive: true });
    writeFileSync(path.join(modules, "safe-output.js"), "export function guardOutput() {}\n");
    writeFileSync(path.join(modules, "main.js"), `export async function main() { process.stdout.write("modules"); return 0; }\n`);
    const bundle = path.join(pkg, "dist", "cli");
    mkdirSync(bundle, { recursive: true });
    writeFileSync(path.join(bundle, "safe-output.cjs"), "exports.guardOutput = () => {};\n");
    writeFileSync(path.join(bundle, "main.cjs"), `exports.main = async () => { process.stdout.write("bundle"); return 0; };\n`);
    const main = { "dist/src/cli": path.join(modules, "main.js"), "dist/cli": path.join(bundle, "main.cjs") };
    return {
      ran: () => spawnSync(process.execPath, [path.join(pkg, "bin", "guild-bus.js")], { encoding: "utf8" }).stdout,
      setMtime: (dir: keyof typeof main, seconds: number) => utimesSync(main[dir], seconds, seconds),
    };
  }

  it("in a source checkout, a bundle older than the modules tsc wrote is passed over for them", () => {
    const { ran, setMtime } = twoTrees(true);
    setMtime("dist/src/cli", 1_000);
    setMtime("dist/cli", 2_000);
    expect(ran()).toBe("bundle");
    setMtime("dist/src/cli", 3_000); // tsc ran again after the bundle was made
    expect(ran()).toBe("modules");
  });

  it("an installed package runs its bundle whatever mtimes the installer gave the two trees", () => {
    const { ran, setMtime } = twoTrees(false);
    setMtime("dist/cli", 1_000);
    setMtime("dist/src/cli", 1_001);
    expect(ran()).toBe("bundle");
  });

  it("--help lists every command", () => {
    const r = run(["--help"]);
    expect(r.code).toBe(0);
    for (const c of [
      "verify-gate-pass",
      "family",
      "scrub",
      "review",
      "resubmit",
      "decide",
      "respond",
      "status",
      "worker",
      "up",
      "demo",
      "providers",
    ])
      expect(r.stdout).toContain(c);
  });
});

describe("review without --wait", () => {
  it("says nothing moves until `guild-bus up` runs only when no `up` runs (one starting its broker is on its way)", async () => {
    const p = makeProject();
    p.write("docs/spec.md", "# Spec\n");
    const review = (gate: string) => run(["review", "docs/spec.md", "--gate", gate, "--author", "claude", "--root", p.root]);
    expect(review("G-spec").stderr).toContain("nothing moves until `guild-bus up` runs");
    // `guild-bus up &` has taken the lock and not yet started its broker: a process named as one holds the lock
    const script =
      "const { lockSupervisor } = await import(process.env.LOCK); const { Layout } = await import(process.env.LAYOUT);" +
      "await lockSupervisor(new Layout(process.argv[3])); console.log('locked'); setInterval(() => {}, 1000);";
    const up = spawn(process.execPath, ["--input-type=module", "-e", script, "guild-bus", "up", p.root], {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        LOCK: path.join(REPO, "dist", "src", "runtime", "supervisor-lock.js"),
        LAYOUT: path.join(REPO, "dist", "src", "bus", "layout.js"),
      },
    });
    try {
      await new Promise((resolve, reject) => {
        up.stdout.on("data", resolve);
        up.on("exit", reject);
      });
      const r = review("G-plan");
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain("nothing moves");
    } finally {
      up.kill();
    }
  });
});

describe("output nobody reads", () => {
  it("`guild-bus … | head`: a closed stdout ends the command quietly, exit 0, no EPIPE trace", async () => {
    for (const args of [["--help"], ["decide", "--help"], ["status", "--help"]]) {
      const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.destroy(); // the reader is gone before the command writes
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += String(d)));
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect(err, args.join(" ")).not.toMatch(/EPIPE|Unhandled/);
      expect(code, args.join(" ")).toBe(0);
    }
  });
});

describe("hostile command lines: one-line usage errors", () => {
  it("a single-value option given twice is a usage error naming it, in every command", { timeout: scaled(300_000) }, () => {
    const d = tempRoot();
    const commands = [...run(["--help"]).stdout.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]!).filter((c) => c !== "help");
    expect(commands).toContain("verify-gate-pass");
    let checked = 0;
    for (const command of commands) {
      // every `--flag <value>` its help lists (lists, `<value...>`, may repeat)
      for (const [, flag] of run([command, "--help"]).stdout.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+) <[^>.]+>/gm)) {
        expectUserError(run([command, flag!, "5", flag!, "5"], { cwd: d }), new RegExp(`${flag} was given more than once`));
        checked++;
      }
    }
    // a list option says how to give it several values
    expectUserError(run(["init", "--host", "claude", "--host", "codex"], { cwd: d }), /\(several, comma-separated: --host a,b\)/);
    expect(checked).toBeGreaterThan(25);
    expect(readdirSync(d)).toEqual([]);
  });

  it("blank or malformed values, unknown choices, schema issues and a missing --root are one line, exit 1, nothing written", () => {
    const d = tempRoot();
    writeFileSync(path.join(d, "a.md"), "# A\n");
    const review = ["review", "a.md", "--gate", "G-spec", "--author", "claude"];
    const cases: Array<[string[], RegExp]> = [
      [["review", "a.md", "--gate", "G-spec", "--author", ""], /--author <host>.*must not be blank/],
      [[...review, "--wait", "--timeout", "abc"], /--timeout <seconds>.*'abc'.*positive number of seconds/],
      [[...review, "--cap", "2x"], /^guild-bus: cap refused: a gate's round cap is a whole number from 1 to 10, not "2x"/],
      [[...review, "--quorum", "3"], /--quorum "3": expected K\/N/],
      [[...review, "--quorum", "openai+nosuch"], /unknown family nosuch/],
      [[...review, "--quorum", "3/2"], /need 3 exceeds of 2/],
      [
        [...review, "--paths", ""],
        /^guild-bus: invalid input: paths\.0: must be a non-blank path without control, format, line-separator or backtick characters/,
      ], // a schema issue, flattened
      [[...review, "--paths", "../outside.md"], /^guild-bus: related path escapes the project: /], // not "artifact path"
      [["decide", "r1", "G-spec", "bogus"], /'bogus'.*force-pass, extend-cap, rework/],
      [["decide", "r1", "G-spec", "extend-cap", "9"], /from 1 to 5/],
      [["worker", "broker", "--reconcile-ms", "0"], /--reconcile-ms <ms>.*'0'/],
      [["status", "--root", path.join(d, "nope")], /--root .*nope: no such directory/],
      [["status", "--root", path.join(d, "a.md")], /--root .*a\.md is not a directory/],
      [["verify-gate-pass", "--result", "r.json", "--artifact", "a.md", "--root", path.join(d, "nope")], /no such directory/],
      [["verify-gate-pass", "--bogus"], /Unknown option '--bogus'/], // a hint line, never the whole usage text
    ];
    for (const [args, what] of cases) expectUserError(run(args, { cwd: d }), what);
    expect(readdirSync(d)).toEqual(["a.md"]);
  });
});

describe("hostile files: every file the CLI reads is a regular file, read with a bound", () => {
  it("scrub refuses a directory, a FIFO, a device and an endless stdin, with the limit", () => {
    const d = tempRoot();
    for (const [file, what] of notFiles(d)) expectUserError(run(["scrub", file]), what);
    const zero = openSync("/dev/zero", "r");
    try {
      expectUserError(run(["scrub", "-"], { stdin: zero }), /stdin: too large \(more than 4194304 bytes\)/);
    } finally {
      closeSync(zero);
    }
    expect(run(["scrub", "-"], { input: "plain\n" }).stdout).toBe("plain\n");
  });

  it(`verify-gate-pass: a result or artifact that is not a regular file, or too large, is a usage error; \
a result that is not UTF-8 fails the gate`, () => {
    const d = tempRoot();
    const artifact = path.join(d, "a.md");
    writeFileSync(artifact, "# A\n");
    const result = path.join(d, "r.json");
    writeFileSync(
      result,
      JSON.stringify({
        packet_id: "p",
        artifact_sha256_reviewed: sha256Hex(Buffer.from("# A\n")),
        verdict: "satisfied",
        blocking_findings: [],
      }),
    );
    for (const [file, what] of notFiles(d)) {
      expectUserError(run(["verify-gate-pass", "--result", file, "--artifact", artifact]), what);
      expectUserError(run(["verify-gate-pass", "--result", result, "--artifact", file]), what);
    }
    const big = path.join(d, "big.json");
    writeFileSync(big, " ".repeat(4 * 1024 * 1024 + 1));
    expectUserError(
      run(["verify-gate-pass", "--result", big, "--artifact", artifact]),
      /too large \(4194305 bytes; the limit is 4194304\)/,
    );
    expectUserError(run(["verify-gate-pass", "--result", result, "--artifact", big]), /too large \(4194305 bytes; the limit is 2097152\)/);
    const latin1 = path.join(d, "latin1.json");
    writeFileSync(latin1, Buffer.from([0x7b, 0xe9, 0x7d]));
    const r = run(["verify-gate-pass", "--result", latin1, "--artifact", artifact]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/latin1\.json: not valid UTF-8 text/);
    expect(run(["verify-gate-pass", "--result", result, "--artifact", artifact]).code).toBe(0);
  });

  it("review refuses, before writing anything, an artifact over the broker's limit, not a regular file, or not UTF-8 text", () => {
    const d = tempRoot();
    writeFileSync(path.join(d, "big.md"), "a".repeat(2 * 1024 * 1024 + 1));
    writeFileSync(path.join(d, "latin1.md"), Buffer.from("caf\xe9\n", "latin1"));
    mkdirSync(path.join(d, "dir"));
    mkfifo(path.join(d, "fifo"));
    const review = (artifact: string) => run(["review", artifact, "--gate", "G-spec", "--author", "claude", "--root", d]);
    expectUserError(review("big.md"), /^guild-bus: artifact refused: .*big\.md: too large \(2097153 bytes; the limit is 2097152\)/);
    expectUserError(review("latin1.md"), /artifact refused: latin1\.md: not valid UTF-8 text/);
    expectUserError(review("dir"), /artifact refused: dir is a directory; name a file/);
    expectUserError(review("fifo"), /artifact refused: fifo: not a regular file \(a FIFO\)/);
    expectUserError(review(path.relative(d, socket(path.join(d, "sock")))), /artifact refused: sock: not a regular file \(a socket\)/);
    expect(existsSync(path.join(d, ".guild"))).toBe(false);
  });

  it(`respond refuses a directory, a FIFO, a device, an endless stdin and an oversized answer with the limit, \
writing nothing`, async () => {
    const p = makeProject();
    p.write("docs/spec.md", "# Spec\n");
    p.startWorker("broker");
    expect(p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", "m1", "--reviewer", "manual"]).code).toBe(
      0,
    );
    await p.waitFor("m1", "G-spec", (f) => f.includes("packet-1.md"), "packet-1");
    const respond = (extra: string[], opts: { stdin?: number } = {}) =>
      run(["respond", "m1", "G-spec", "--reviewer-model", "gpt-5", "--root", p.root, ...extra], opts);
    for (const [file, what] of notFiles(p.root)) expectUserError(respond(["--file", file]), what);
    const big = p.write("big.md", "Reviewer-Model: gpt-5\n" + "x".repeat(6 * 1024 * 1024));
    expectUserError(respond(["--file", big]), /big\.md: too large \(6291478 bytes; the limit is 4194304\)/);
    const zero = openSync("/dev/zero", "r");
    try {
      expectUserError(respond([], { stdin: zero }), /stdin: too large \(more than 4194304 bytes\)/);
    } finally {
      closeSync(zero);
    }
    expect(p.files("m1", "G-spec")).not.toContain("result-1.json");
  });
});

describe("the manual worker and a response written in place", () => {
  const answer = "```review_result.v1\n" + JSON.stringify({ verdict: "satisfied", findings: [], blocking_findings: [] }) + "\n```\n";

  it("a response-<n>.md seen at 0 bytes gets the foreign-writer grace; left empty, it is rejected once the grace is over", async () => {
    const p = makeProject();
    p.settings({ foreign_grace_ms: 60_000 });
    p.write("docs/spec.md", "# Spec\n");
    p.startWorker("broker");
    p.startWorker("manual");
    const request = (run: string) => {
      expect(
        p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", run, "--reviewer", "manual"]).code,
      ).toBe(0);
      return p.waitFor(run, "G-spec", (f) => f.includes("packet-1.md"), "packet-1");
    };
    await request("w1");
    const dir = p.gateDir("w1", "G-spec");
    // a human's editor creates response-1.md in place, empty so far; a junk drop lands beside it, so the pass that
    // rejects the junk is known to have seen the empty response too
    writeFileSync(path.join(dir, "response-1.md"), "");
    symlinkSync(path.join(p.root, "docs", "spec.md"), path.join(dir, "response-9.md"));
    await p.waitFor("w1", "G-spec", (f) => !f.includes("response-9.md"), "rejection of the symlinked response-9.md");
    appendFileSync(path.join(dir, "response-1.md"), "Reviewer-Model: gpt-5\n" + answer);
    await p.waitFor("w1", "G-spec", (f) => f.includes("result-1.json"), "result-1.json from the response written in place");
    expect(
      readdirSync(path.join(dir, "rejected"))
        .filter((f) => !f.endsWith(".reason.json"))
        .map((f) => f.split(".")[0]),
    ).toEqual(["response-9"]);

    p.settings({ foreign_grace_ms: 1000 });
    await request("w2");
    writeFileSync(path.join(p.gateDir("w2", "G-spec"), "response-1.md"), "");
    await p.waitFor(
      "w2",
      "G-spec",
      (f) => f.includes("rejected") && !f.includes("response-1.md"),
      "rejection of the abandoned empty response",
    );
    const reasons = readdirSync(path.join(p.gateDir("w2", "G-spec"), "rejected")).filter((f) => f.endsWith(".reason.json"));
    expect(readFileSync(path.join(p.gateDir("w2", "G-spec"), "rejected", reasons[0]!), "utf8")).toMatch(/Reviewer-Model/);
  });
});
