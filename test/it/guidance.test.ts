// Issue #14 "never wait in silence": what `--wait`, `wait`, `status` and `providers` tell a person who is waiting,
// through the built CLI with the real broker, verifier and manual workers.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, makeProject, type Project, stopChild } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";
import { tempRoot } from "../helpers/tmp.js";

const GATE = "G-spec";
const ARTIFACT = "docs/spec.md";
const running = new Set<ChildProcess>();

afterEach(async () => {
  await Promise.all([...running].map((c) => stopChild(c)));
  running.clear();
});

interface Live {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** The CLI run in the background, its stderr readable as it comes. */
function live(p: Project, args: string[], env: NodeJS.ProcessEnv = {}): Live {
  const child = spawn(process.execPath, [BIN, ...args, "--root", p.root], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  running.add(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => {
      running.delete(child);
      resolve({ code, stdout: out, stderr: err });
    }),
  );
  return { child, stderr: () => err, exited };
}

async function until(what: string, check: () => boolean, timeoutMs = scaled(30_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function setup(): Project {
  const p = makeProject();
  p.settings({ foreign_grace_ms: 800 });
  p.write(ARTIFACT, "# Spec\n\nThe queue holds at most 100 items.\n");
  for (const kind of ["broker", "verifier", "manual"]) p.startWorker(kind);
  return p;
}

function packetField(p: Project, run: string, round: number, name: string): string {
  const text = readFileSync(path.join(p.gateDir(run, GATE), `packet-${round}.md`), "utf8");
  return new RegExp(`^${name}: (.+)$`, "m").exec(text)![1]!.replace(/^"|"$/g, "");
}

function answer(p: Project, run: string, round: number, verdict: "satisfied" | "issues"): string {
  const blocking =
    verdict === "issues" ? `[{"severity":"blocking","title":"Size unbounded","detail":"no limit on bytes","evidence":"line 3"}]` : "[]";
  return (
    `{"schema_version":"review_result.v1","packet_id":"${packetField(p, run, round, "packet_id")}",` +
    `"artifact_sha256_reviewed":"${packetField(p, run, round, "artifact_sha256")}","verdict":"${verdict}",` +
    `"summary":"one gap","blocking_findings":${blocking},"reviewer_model":"gpt-5"}\n`
  );
}

describe("waiting on the manual reviewer is never silent", () => {
  it(
    "--wait names the person, the respond command and the packet, beats every interval, times out with exit 6 and a re-attach " +
      "line; `guild-bus wait` re-attaches and ends with the gate's code",
    { timeout: scaled(120_000) },
    async () => {
      const p = setup();
      const review = live(
        p,
        [
          "review",
          ARTIFACT,
          "--gate",
          GATE,
          "--author",
          "claude",
          "--author-model",
          "claude-opus-4",
          "--run-id",
          "w1",
          "--wait",
          "--timeout",
          "4",
        ],
        {
          GUILD_BUS_HEARTBEAT_MS: "500",
        },
      );
      const r = await review.exited;
      expect(r.code, r.stderr).toBe(6);
      const packet = `.guild/runs/w1/review/${GATE}/packet-1.md`;
      expect(r.stderr).toContain(
        "waiting for a person (the manual reviewer) — run: " +
          `guild-bus respond w1 ${GATE} --round 1 --reviewer-model <model> --file <review.md>`,
      );
      expect(r.stderr).toContain(packet);
      expect(r.stderr).toMatch(/note: no cross-family reviewer: no available reviewer of a family other than anthropic/);
      expect(r.stderr).toMatch(/still waiting: round 1, reviewer manual, elapsed \d+s, --timeout 4s/);
      expect(r.stderr).toContain(`re-attach with: guild-bus wait w1 ${GATE} --root ${p.root}`);
      expect(r.stdout).toContain(`next: waiting for a person (the manual reviewer)`);

      // status, as a table and as JSON, says the same and exits 6 for a script while the gate still moves
      const table = p.cli(["status"]);
      expect(table.stdout.split("\n")[0]).toMatch(/^RUN\s+GATE\s+STATE\s+ROUND\s+REVIEWER\s+INDEPENDENCE\s+AGE$/);
      expect(table.stdout).toMatch(/^w1\s+G-spec\s+reviewing\s+1\/5\s+manual\s+weak\s+\d+[smhd]$/m);
      expect(table.stdout).toContain(`guild-bus respond w1 ${GATE}`);
      expect(p.cli(["status", "--exit-status"]).code).toBe(6);
      const row = p.status("w1", GATE) as unknown as { next: Record<string, unknown>; exit_code: number };
      expect(row.next).toMatchObject({
        waiting_on: "a person (the manual reviewer)",
        command: expect.stringContaining(`guild-bus respond w1 ${GATE}`),
        packet_path: packet,
        result_path: `.guild/runs/w1/review/${GATE}/result-1.json`,
        escalation: null,
      });

      // re-attach, then answer: the wait ends with the gate's exit code (3: the author's turn)
      const again = live(p, ["wait", "w1", GATE]);
      await until("the re-attached wait to report", () => again.stderr().includes("waiting for a person"));
      const responded = p.cli(["respond", "w1", GATE, "--reviewer-model", "gpt-5"], answer(p, "w1", 1, "issues"));
      expect(responded.code, responded.stderr).toBe(0);
      const done = await again.exited;
      expect(done.code, done.stderr).toBe(3);
      expect(done.stdout).toContain("next: waiting for the author — run: guild-bus resubmit w1 G-spec");
      // the trail a person reads: who reviewed, the verdict and summary, the finding in full, when
      await until("the trail of round 1", () => readFileSync(path.join(p.gateDir("w1", GATE), "trail.md"), "utf8").includes("- summary:"));
      const trail = readFileSync(path.join(p.gateDir("w1", GATE), "trail.md"), "utf8");
      expect(trail).toMatch(/- reviewer_host: manual \(gpt-5, openai\); independence: (weak|strong)\n/);
      expect(trail).toContain("- verdict: issues; blocking_findings: 1; counted round 1 of 5\n- summary: one gap\n");
      expect(trail).toContain("- findings:\n  1. [blocking] Size unbounded\n     no limit on bytes\n     evidence: line 3\n");
      expect(trail).toMatch(/- time: issued \d\d:\d\d:\d\d UTC; .*verified \d\d:\d\d:\d\d UTC \(\d+\.\d s after /);
      expect(trail).not.toMatch(/: n\/a\n/);
    },
  );

  it("the re-attach line quotes a project directory a shell reads specially: pasted, it runs nothing", { timeout: scaled(60_000) }, () => {
    const parent = tempRoot();
    const planted = path.join(parent, "ran");
    const root = path.join(parent, `it's $(touch ${planted}) \`touch ${planted}\`;x`);
    mkdirSync(path.join(root, ".guild"), { recursive: true });
    mkdirSync(path.join(root, "docs"));
    writeFileSync(path.join(root, ARTIFACT), "# Spec\n");
    const args = ["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "q1"];
    const r = spawnSync(process.execPath, [BIN, ...args, "--wait", "--timeout", "1", "--root", root], {
      encoding: "utf8",
      timeout: scaled(60_000),
    });
    expect(r.status, r.stderr).toBe(6);
    const pasted = /re-attach with: guild-bus wait (.*)$/m.exec(r.stderr)![1]!;
    const words = spawnSync("sh", ["-c", `printf '%s\\n' ${pasted}`], { encoding: "utf8" }).stdout;
    expect(words.split("\n").slice(0, -1)).toEqual(["q1", GATE, "--root", root]);
    expect(existsSync(planted)).toBe(false);
  });

  it("Ctrl-C on a wait says how to re-attach and exits 130", { timeout: scaled(60_000) }, async () => {
    const p = setup();
    expect(p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "c1"]).code).toBe(0);
    const w = live(p, ["wait", "c1", GATE]);
    await until("the wait to start", () => w.stderr().includes("[G-spec]"));
    w.child.kill("SIGINT");
    const r = await w.exited;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(`interrupted; the gate goes on without you — re-attach with: guild-bus wait c1 ${GATE}`);
  });

  it(
    "status --json of an escalation carries its options, the last round's findings and the decide command; --exit-status 4",
    { timeout: scaled(90_000) },
    async () => {
      const p = setup();
      const args = ["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "e1", "--cap", "1"];
      expect(p.cli(args).code).toBe(0);
      await p.waitFor("e1", GATE, (f) => f.includes("packet-1.md"), "packet 1");
      expect(p.cli(["respond", "e1", GATE, "--reviewer-model", "gpt-5"], answer(p, "e1", 1, "issues")).code).toBe(0);
      const s = (await p.waitState("e1", GATE, ["awaiting_decision"])) as unknown as Record<string, never>;
      expect(s).toMatchObject({
        exit_code: 4,
        next: {
          waiting_on: "a human decision",
          command: expect.stringMatching(/^guild-bus decide e1 G-spec .*force-pass/),
          escalation: { round: 1, reason: "cap_hit", options: expect.arrayContaining(["force-pass", "extend-cap"]) },
        },
        last_round: {
          round: 1,
          summary: "one gap",
          findings: [{ severity: "blocking", title: "Size unbounded", detail: "no limit on bytes", evidence: "line 3" }],
        },
      });
      const text = p.cli(["status", "e1", GATE]);
      expect(text.stdout).toMatch(/escalation \(round 1\): cap_hit — .*; options: .*force-pass/);
      expect(p.cli(["status", "--exit-status"]).code).toBe(4);
    },
  );
});

describe("a reviewer that cannot run", () => {
  it(
    "is said so on --wait and status, and with no other reviewer and no human asked for, review is unavailable: exit 5",
    { timeout: scaled(90_000) },
    async () => {
      const p = makeProject();
      // detection sees an executable file; only the spawn finds out it cannot run (its interpreter does not exist)
      const broken = p.write("bin/broken-reviewer", "#!/nonexistent/interpreter\n");
      chmodSync(broken, 0o755);
      p.settings({ foreign_grace_ms: 800, providers: { gpt: { adapter: "command", model: "gpt-5", argv: [broken] } } });
      p.write(ARTIFACT, "# Spec\n");
      for (const kind of ["broker", "verifier", "manual", "command"]) p.startWorker(kind);
      const args = [
        "review",
        ARTIFACT,
        "--gate",
        GATE,
        "--author",
        "claude",
        "--author-model",
        "claude-opus-4",
        "--run-id",
        "u1",
        "--wait",
      ];
      const r = await live(p, args).exited;
      expect(r.code, r.stderr).toBe(5);
      expect(r.stdout).toMatch(/^u1 G-spec: unavailable$/m);
      expect(r.stdout).toMatch(/next: waiting for a human decision — run: guild-bus decide u1 G-spec retry/);
      expect(p.files("u1", GATE)).not.toContain("packet-2.md");
      const s = p.status("u1", GATE) as unknown as { next: { escalation: { reason: string; detail: string } } };
      expect(s.next.escalation).toMatchObject({
        reason: "unavailable",
        detail: expect.stringMatching(/reviewer gpt could not run \(.*ENOENT.*\), no other reviewer .*no human reviewer was asked for/),
      });
      expect(p.cli(["status", "--exit-status"]).code).toBe(5);
    },
  );
});

describe("providers lists every host it looked for", () => {
  it("with nothing installed: each host, why it is not usable and the line that enables it", () => {
    const p = makeProject();
    const empty = tempRoot();
    const r = spawnCli(p.root, ["providers", "--json"], { PATH: empty, HOME: empty });
    expect(r.code, r.stderr).toBe(0);
    const hosts = JSON.parse(r.stdout).hosts as Array<{ host: string; usable: boolean; why: string; enable: string }>;
    expect(hosts.map((h) => h.host)).toEqual(["codex", "claude", "gemini", "copilot", "http"]);
    expect(hosts.every((h) => !h.usable)).toBe(true);
    expect(hosts[0]).toMatchObject({ why: "codex not on PATH", enable: expect.stringMatching(/codex login/) });
    expect(hosts[4]).toMatchObject({ why: expect.stringMatching(/no http provider/), enable: expect.stringMatching(/"adapter": "http"/) });
    const text = spawnCli(p.root, ["providers"], { PATH: empty, HOME: empty });
    expect(text.stdout).toMatch(/looked for:\n {2}✗ codex: codex not on PATH\n {6}to enable: /);
  });

  it("a CLI on PATH with no login or key says so, and how to log in", () => {
    const p = makeProject();
    const bin = tempRoot();
    const home = tempRoot();
    const fake = path.join(bin, "codex");
    // a codex that answers --version: present, but no stored login and no key
    writeFileSync(fake, `#!${process.execPath}\nconsole.log("codex-cli 0.1.0")\n`, { mode: 0o755 });
    const r = spawnCli(p.root, ["providers", "--json"], { PATH: bin, HOME: home, OPENAI_API_KEY: "", CODEX_API_KEY: "", CODEX_HOME: "" });
    const codex = (JSON.parse(r.stdout).hosts as Array<{ host: string }>).find((h) => h.host === "codex");
    expect(codex).toMatchObject({
      usable: false,
      why: "no login or key found",
      enable: expect.stringMatching(/codex login.*CODEX_API_KEY/),
    });
  });
});

function spawnCli(root: string, args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [BIN, ...args, "--root", root], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: scaled(60_000),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
