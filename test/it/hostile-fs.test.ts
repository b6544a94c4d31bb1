// Integration: a hostile filesystem and hostile drops beside the gate (SPEC §2, §4, §5, §18): a full disk, requests
// another tool drops with values the CLI would never write, and a reviewer that closes its stdin at once.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeProject, type Project } from "../helpers/bus.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";
import { scaled } from "../helpers/machine.js";

const GATE = "G-spec";
const ARTIFACT = "docs/spec.md";
const has = (name: string) => (files: string[]) => files.includes(name);

function setup(): Project {
  const p = makeProject();
  p.settings({ foreign_grace_ms: 800 });
  p.write(ARTIFACT, "# Spec\n\nThe cache keeps 100 entries.\n");
  return p;
}

/** A request as another tool might drop it, bypassing the CLI's checks: write elsewhere, move into place. */
function dropRequest(p: Project, run: string, over: Record<string, unknown>): void {
  mkdirSync(p.gateDir(run, GATE), { recursive: true });
  const tmp = path.join(p.root, `request-${run}.json`);
  writeFileSync(
    tmp,
    JSON.stringify({
      schema_version: "guild_bus.request.v1",
      run_id: run,
      gate: GATE,
      artifact_path: ARTIFACT,
      author_host: "claude",
      reviewer: "manual",
      requested_at: new Date().toISOString(),
      ...over,
    }),
  );
  renameSync(tmp, path.join(p.gateDir(run, GATE), "request.json"));
}

function field(p: Project, run: string, name: string): string {
  return new RegExp(`^${name}: (.+)$`, "m")
    .exec(readFileSync(path.join(p.gateDir(run, GATE), "packet-1.md"), "utf8"))![1]!
    .replace(/^"|"$/g, "");
}

const mounted: string[] = [];
afterEach(() => {
  while (mounted.length) spawnSync("umount", ["-l", mounted.pop()!]);
});

describe("hostile filesystem and drops (integration)", () => {
  it("request drops naming another run (NUL included) are refused, a huge cap is clamped (§5, §13)", async () => {
    const p = setup();
    p.startWorker("broker");
    dropRequest(p, "d1", { run_id: "d1\u0000evil" });
    dropRequest(p, "d2", { cap: 1_000_000_000 });
    await p.waitFor("d2", GATE, has("packet-1.md"), "packet 1 of the huge cap");
    expect(field(p, "d2", "cap")).toBe("10");
    await p.waitFor("d1", GATE, (f) => !f.includes("request.json"), "the request naming another run moved aside");
    expect(readdirSync(path.join(p.gateDir("d1", GATE), "rejected")).some((n) => n.startsWith("request.json."))).toBe(true);
    expect(p.files("d1", GATE)).not.toContain("packet-1.md");
  });

  it("a run directory renamed by hand keeps its record: nothing moved aside, status says to move it back (§5)", async () => {
    const p = setup();
    p.startWorker("broker");
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "m1"]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitFor("m1", GATE, has("packet-1.md"), "packet 1");
    const runs = path.join(p.root, ".guild", "runs");
    renameSync(path.join(runs, "m1"), path.join(runs, "m1.old"));
    // a lone request naming another run, dropped after the move: moved aside once its grace has passed, by which time
    // the renamed gate (older files) has been looked at too
    dropRequest(p, "d1", { run_id: "d2" });
    await p.waitFor("d1", GATE, (f) => !f.includes("request.json"), "the lone request naming another run moved aside");
    expect(p.files("m1.old", GATE)).toEqual(expect.arrayContaining(["packet-1.md", "request.json"]));
    expect(p.files("m1.old", GATE)).not.toContain("rejected");
    const moved = p.status("m1.old", GATE).next as { waiting_on: string; person_first: boolean };
    expect(moved.waiting_on).toContain("move it back to .guild/runs/m1/review/G-spec");
    expect(moved.person_first).toBe(true);
    expect(p.cli(["status", "--exit-status"]).code).toBe(2);
    expect(p.cli(["check", "--run", "m1.old"]).code).toBe(2);
    // `wait` ends as status's exit_code says it would, naming the fix, rather than following a gate nothing moves
    const waited = p.cli(["wait", "m1.old", GATE, "--timeout", "30"]);
    expect(waited.code, waited.stderr).toBe(2);
    expect(waited.stdout).toContain("move it back to .guild/runs/m1/review/G-spec");
    renameSync(path.join(runs, "m1.old"), path.join(runs, "m1"));
    const back = p.status("m1", GATE);
    expect(back.state).toBe("reviewing");
    expect((back.next as { command: string }).command).toContain("guild-bus respond m1 G-spec --round 1");
  });

  it("a reviewer that closes its stdin at once (EPIPE on the packet) ends its round, and the worker lives (§15)", async () => {
    const p = setup();
    // reads nothing, answers nothing useful, exits: the packet write hits a closed pipe
    const script = p.write("early-exit.mjs", "process.stdin.destroy(); process.stdout.write('no review'); process.exit(0);\n");
    p.settings({
      foreign_grace_ms: 800,
      providers: { early: { adapter: "command", model: "gpt-5", argv: [process.execPath, script], timeout_ms: 20_000 } },
    });
    p.write(ARTIFACT, "# Spec\n\n" + "A long line of the specification that fills the pipe.\n".repeat(20_000));
    const worker = p.startWorker("command");
    p.startWorker("broker");
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "early", "--run-id", "e1"]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitFor("e1", GATE, (f) => f.includes("failure-1.json") || f.includes("result-1.json"), "the round to end", scaled(60_000));
    expect(worker.exitCode).toBeNull();
  });

  it.skipIf(process.getuid?.() !== 0)(
    "a full disk: no torn file, workers keep running, and the gate moves once there is room (§4)",
    async () => {
      const p = setup();
      const guild = path.join(p.root, ".guild");
      rmSync(guild, { recursive: true, force: true });
      mkdirSync(guild);
      if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", guild]).status !== 0) return; // no mount here: nothing to test
      mounted.push(guild);
      mkdirSync(path.join(guild, "runs"));
      p.startWorker("broker");
      const request = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "f1"]);
      expect(request.code, request.stderr).toBe(0);
      await p.waitFor("f1", GATE, has("packet-1.md"), "packet 1 before the disk fills");
      const tmp = path.join(p.root, "result.json");
      writeFileSync(
        tmp,
        `{"schema_version":"review_result.v1","packet_id":"${field(p, "f1", "packet_id")}",` +
          `"artifact_sha256_reviewed":"${field(p, "f1", "artifact_sha256")}","verdict":"issues",` +
          `"blocking_findings":[{"severity":"blocking","title":"t"}],"reviewer_model":"gpt-5"}\n`,
      );
      writeFileSync(path.join(guild, "result.tmp"), readFileSync(tmp));
      renameSync(path.join(guild, "result.tmp"), path.join(p.gateDir("f1", GATE), "result-1.json"));
      // now fill the disk: the verifier's seal and verdict cannot be written
      const filler = path.join(guild, "filler");
      spawnSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=4k", "count=1000"], { stdio: "ignore" });
      const verifier = p.startWorker("verifier");
      // three tries of the verifier on a full disk (each refused write logs a line): every file in the gate is whole
      // JSON or Markdown, never a torn one
      const refused = new RegExp(`\\[verifier ${verifier.pid}\\] f1/${GATE}: still failing \\(3 times in a row\\): ENOSPC`);
      await until("the verifier's third try on the full disk", () => refused.test(p.logs.join("")), scaled(60_000));
      for (const name of p.files("f1", GATE).filter((f) => f.endsWith(".json")))
        expect(() => JSON.parse(readFileSync(path.join(p.gateDir("f1", GATE), name), "utf8")), name).not.toThrow();
      expect(verifier.exitCode).toBeNull();
      expect(p.files("f1", GATE)).not.toContain("verdict-1.json"); // the disk really was full
      rmSync(filler);
      await p.waitFor("f1", GATE, has("verdict-1.json"), "the verdict once there is room", scaled(30_000));
      await p.waitState("f1", GATE, ["awaiting_author"]);
      expect(readdirSync(path.join(guild, "tmp"))).toEqual([]);
    },
  );

  it.skipIf(process.getuid?.() !== 0)("a command on a full disk says to free space, not only the errno (§4)", () => {
    const p = setup();
    const guild = path.join(p.root, ".guild");
    rmSync(guild, { recursive: true, force: true });
    mkdirSync(guild);
    if (spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", guild]).status !== 0) return; // no mount here: nothing to test
    mounted.push(guild);
    mkdirSync(path.join(guild, "runs"));
    spawnSync("dd", ["if=/dev/zero", `of=${path.join(guild, "filler")}`, "bs=4k", "count=1000"], { stdio: "ignore" });
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "full"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^guild-bus: ENOSPC: .*\nfree disk space \(or raise the quota\), then run the command again\n$/);
  });

  it("a .guild that is itself a symlink is the bus root: the bus works there, and nothing below it may be a link (§2)", async () => {
    const p = setup();
    const elsewhere = tempRoot("guild-bus-elsewhere-");
    rmSync(path.join(p.root, ".guild"), { recursive: true, force: true });
    mkdirSync(path.join(elsewhere, "runs"), { recursive: true });
    symlinkSync(elsewhere, path.join(p.root, ".guild"));
    p.startWorker("broker");
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "s1"]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitFor("s1", GATE, has("packet-1.md"), "packet 1 under the linked .guild");
    expect(readdirSync(path.join(elsewhere, "runs", "s1", "review", GATE))).toContain("packet-1.md");
  });
});
