// Integration: no false sign-off (bus-spec/SPEC.md §5, §11, §14, §15, §16). Real broker and verifier processes; the
// reviewer is a foreign tool (this test) that drops result files, so every interleaving is under the test's control.
import {
  chmodSync,
  chownSync,
  existsSync,
  lchownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, makeProject, type Project, received, SCRIPTED, scriptedProvider, stopChild } from "../helpers/bus.js";
import { cliAsync } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";
import { sha256Hex } from "../../src/core/sha.js";
import { scaled, waitSeconds } from "../helpers/machine.js";
import { forgedPassingVerdict } from "../helpers/forged.js";

const ARTIFACT = "docs/spec.md";
const SPEC_TEXT = "# Spec\n\nThe cache keeps 100 entries.\n";
const GATE = "G-spec";

function setup(): Project {
  const p = makeProject();
  p.settings({ foreign_grace_ms: 800 });
  p.write(ARTIFACT, SPEC_TEXT);
  return p;
}

/** Ask for a review pinned to the manual reviewer: nobody answers but the test. */
function request(p: Project, run: string): void {
  const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", run]);
  expect(r.code, r.stderr).toBe(0);
}

function packetField(p: Project, run: string, round: number, name: string): string {
  const text = readFileSync(path.join(p.gateDir(run, GATE), `packet-${round}.md`), "utf8");
  return new RegExp(`^${name}: (.+)$`, "m").exec(text)![1]!.replace(/^"|"$/g, "");
}

function resultText(p: Project, run: string, round: number, verdict: "satisfied" | "issues", extra = ""): string {
  const blocking = verdict === "issues" ? `[{"severity":"blocking","title":"Size unbounded"}]` : "[]";
  return (
    `{"schema_version":"review_result.v1","packet_id":"${packetField(p, run, round, "packet_id")}",` +
    `"artifact_sha256_reviewed":"${packetField(p, run, round, "artifact_sha256")}","verdict":"${verdict}",` +
    `"blocking_findings":${blocking},"reviewer_model":"gpt-5"${extra}}\n`
  );
}

/** A foreign writer's delivery: write elsewhere, then rename into place (SPEC §4). */
function drop(p: Project, run: string, name: string, bytes: string | Buffer): void {
  const tmp = path.join(p.root, `.drop-${name}-${Date.now()}-${Math.random()}`);
  writeFileSync(tmp, bytes);
  renameSync(tmp, path.join(p.gateDir(run, GATE), name));
}

const spawned: ChildProcess[] = [];
const has = (name: string) => (files: string[]) => files.includes(name);
/** A project with a broker and a verifier running and run `run` at packet 1, answered by nobody but the test. */
async function reviewing(run: string): Promise<Project> {
  const p = setup();
  p.startWorker("broker");
  p.startWorker("verifier");
  request(p, run);
  await p.waitFor(run, GATE, has("packet-1.md"), "packet 1");
  return p;
}

/** Run `run` through one satisfied round, answered by the test as a foreign reviewer. */
async function passRound1(p: Project, run: string): Promise<void> {
  request(p, run);
  await p.waitFor(run, GATE, has("packet-1.md"), `packet 1 of ${run}`);
  drop(p, run, "result-1.json", resultText(p, run, 1, "satisfied"));
  await p.waitFor(run, GATE, has("outcome.json"), `the outcome of ${run}`);
}

const outcomeOf = (p: Project, run: string) =>
  p.readJson<{ status: string; artifact_sha256: string | null; satisfied_at_round?: number }>(run, GATE, "outcome.json");

describe("no false sign-off (integration)", () => {
  it("a passing verdict is not applied to an artifact edited while the broker was down (§11, §14 rule 12)", async () => {
    const p = setup();
    const broker = p.startWorker("broker");
    p.startWorker("verifier");
    request(p, "i1");
    await p.waitFor("i1", GATE, has("packet-1.md"), "packet 1");
    await stopChild(broker);
    drop(p, "i1", "result-1.json", resultText(p, "i1", 1, "satisfied"));
    await p.waitFor("i1", GATE, has("verdict-1.json"), "the verifier's verdict");
    expect(p.readJson("i1", GATE, "verdict-1.json")).toMatchObject({ gate_pass: { pass: true } });
    p.write(ARTIFACT, SPEC_TEXT + "Never-reviewed line.\n");
    p.startWorker("broker"); // stopped with the project at teardown
    await p.waitFor("i1", GATE, has("packet-2.md"), "a restart on the edited bytes");
    expect(existsSync(path.join(p.gateDir("i1", GATE), "outcome.json"))).toBe(false);
    expect(packetField(p, "i1", 2, "restart_reason")).toBe("artifact_changed");
    const edited = sha256Hex(SPEC_TEXT + "Never-reviewed line.\n");
    expect(packetField(p, "i1", 2, "artifact_sha256")).toBe(edited);
    // the reviewed bytes of round 2 pass, and the outcome names exactly them
    drop(p, "i1", "result-2.json", resultText(p, "i1", 2, "satisfied"));
    await p.waitFor("i1", GATE, has("outcome.json"), "the outcome");
    expect(outcomeOf(p, "i1")).toMatchObject({ status: "satisfied", satisfied_at_round: 2, artifact_sha256: edited });
  });

  it("a strong packet is never sent to a model of the author's family the settings name since it was issued (§15, §22)", async () => {
    const p = makeProject();
    const gpt = (model: string) => ({ reviewer: "gpt", providers: { gpt: { ...scriptedProvider(p.root, "gpt", model), model } } });
    p.settings(gpt("gpt-5"));
    p.write(ARTIFACT, SPEC_TEXT);
    p.startWorker("broker");
    p.startWorker("verifier");
    expect(p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--run-id", "m1"]).code).toBe(0);
    await p.waitFor("m1", GATE, has("packet-1.md"), "packet 1");
    expect(packetField(p, "m1", 1, "independence")).toBe("strong");
    // the provider now names a claude model: running it could only make the paid review a weak one
    p.settings(gpt("claude-opus-4-1"));
    p.startWorker("command");
    const s = await p.waitState("m1", GATE, ["awaiting_decision", "done"]);
    expect(s.state).toBe("awaiting_decision");
    expect(p.readJson("m1", GATE, "failure-1.json")).toMatchObject({
      kind: "unavailable",
      reason: expect.stringMatching(
        /issued for gpt-5, and the provider's model is now claude-opus-4-1: anthropic cannot keep strong independence/,
      ),
    });
    expect(received(p.root, "gpt")).toEqual([]);
    expect(p.files("m1", GATE)).not.toContain("outcome.json");
  });

  it("a result replaced after verification ends its round without a pass, and is never verified again (§15)", async () => {
    const p = await reviewing("i2");
    // the broker would take the author's turn on the issues verdict: stop it seeing that by replacing at once
    drop(p, "i2", "result-1.json", resultText(p, "i2", 1, "issues"));
    await p.waitFor("i2", GATE, has("verdict-1.json"), "the verdict on the issues result");
    drop(p, "i2", "result-1.json", resultText(p, "i2", 1, "satisfied"));
    await p.waitFor("i2", GATE, (f) => f.includes("escalation-1.json") || f.includes("outcome.json"), "the round to end");
    const files = await p.waitFor(
      "i2",
      GATE,
      (f) =>
        readdirSync(path.join(p.gateDir("i2", GATE), "rejected")).some(
          (n) => n.startsWith("result-1.json.") && !n.endsWith(".reason.json"),
        ) || f.includes("outcome.json"),
      "the replacement moved aside",
    );
    expect(files).not.toContain("outcome.json");
    expect(p.readJson("i2", GATE, "escalation-1.json")).toMatchObject({ reason: "no_verdict" });
    // the verdict stays: it records the bytes that were verified, and nothing else can be verified for round 1
    expect(sha256Hex(readFileSync(path.join(p.gateDir("i2", GATE), "verdict-1.json")))).toBeTruthy();
    drop(p, "i2", "result-1.json", resultText(p, "i2", 1, "satisfied", `,"summary":"third try"`));
    await p.waitFor(
      "i2",
      GATE,
      () =>
        readdirSync(path.join(p.gateDir("i2", GATE), "rejected")).filter(
          (n) => n.startsWith("result-1.json.") && !n.endsWith(".reason.json"),
        ).length >= 2,
      "the third result rejected",
    );
    expect(p.status("i2", GATE)).toMatchObject({ state: "awaiting_decision", status: "no_verdict" });
  });

  it("packet ids cannot collide across runs and lanes: a result for one gate is refused in the other (§2, §15)", async () => {
    const p = setup();
    p.startWorker("broker");
    p.startWorker("verifier");
    const lane = (run: string, id: string) =>
      p.cli(["review", ARTIFACT, "--gate", `G-lane:${id}`, "--author", "claude", "--reviewer", "manual", "--run-id", run]);
    expect(lane("c", "a-b").code).toBe(0);
    expect(lane("b-c", "a").code).toBe(0);
    const packetOf = (run: string, gate: string) => readFileSync(path.join(p.gateDir(run, gate), "packet-1.md"), "utf8");
    await p.waitFor("c", "G-lane:a-b", has("packet-1.md"), "packet 1 of lane a-b in run c");
    await p.waitFor("b-c", "G-lane:a", has("packet-1.md"), "packet 1 of lane a in run b-c");
    const id = (text: string) => /^packet_id: (.+)$/m.exec(text)![1]!.replace(/^"|"$/g, "");
    const first = id(packetOf("c", "G-lane:a-b"));
    expect(first).not.toBe(id(packetOf("b-c", "G-lane:a")));
    // the other lane's answer, dropped here, names the wrong packet: rejected, never verified
    const sha = /^artifact_sha256: (\w+)$/m.exec(packetOf("b-c", "G-lane:a"))![1]!;
    const tmp = path.join(p.root, "x.json");
    writeFileSync(
      tmp,
      `{"schema_version":"review_result.v1","packet_id":"${first}","artifact_sha256_reviewed":"${sha}",` +
        `"verdict":"satisfied","blocking_findings":[],"reviewer_model":"gpt-5"}`,
    );
    renameSync(tmp, path.join(p.gateDir("b-c", "G-lane:a"), "result-1.json"));
    await p.waitFor("b-c", "G-lane:a", (f) => !f.includes("result-1.json"), "the foreign result moved aside");
    expect(p.files("b-c", "G-lane:a")).not.toContain("verdict-1.json");
  });

  it("respond never acknowledges an answer its round cannot use (§15)", async () => {
    const p = await reviewing("i3");
    drop(p, "i3", "result-1.json", resultText(p, "i3", 1, "issues"));
    await p.waitFor("i3", GATE, has("verdict-1.json"), "the verdict");
    rmSync(path.join(p.gateDir("i3", GATE), "result-1.json")); // the verified result is removed
    await p.waitFor("i3", GATE, has("escalation-1.json"), "the round ended");
    const answer = "Reviewer-Model: gpt-5\n" + resultText(p, "i3", 1, "satisfied");
    const r = p.cli(["respond", "i3", GATE, "--reviewer-model", "gpt-5"], answer);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/round 1 cannot take an answer: .*verified already/);
    expect(p.files("i3", GATE)).not.toContain("result-1.json");
  });

  it("the same replacement raced against running workers never ends satisfied (§15)", async () => {
    for (let i = 0; i < 4; i++) {
      const p = setup();
      p.startWorker("broker");
      p.startWorker("verifier");
      const run = `race${i}`;
      request(p, run);
      await p.waitFor(run, GATE, has("packet-1.md"), "packet 1");
      drop(p, run, "result-1.json", resultText(p, run, 1, "issues"));
      // replace as soon as any verdict exists, without waiting for the broker to act on it
      await p.waitFor(run, GATE, has("verdict-1.json"), "the verdict", scaled(30_000));
      drop(p, run, "result-1.json", resultText(p, run, 1, "satisfied"));
      const files = await p.waitFor(
        run,
        GATE,
        (f) => f.includes("escalation-1.json") || f.includes("outcome.json") || f.includes("packet-2.md"),
        "the round to end",
      );
      if (files.includes("outcome.json")) expect(outcomeOf(p, run).status).not.toBe("satisfied");
      const s = p.status(run, GATE);
      expect(s.status).not.toBe("satisfied");
    }
  });

  it("a round the bus dispatched takes only its reviewer worker's answer: one planted while it runs is moved aside (§15)", async () => {
    const p = setup();
    const slow = { default: { do: "slow-satisfied" }, slow_ms: 3000, reported_model: "gpt-5-genuine" };
    p.settings({ foreign_grace_ms: 800, providers: { gptrev: scriptedProvider(p.root, "gptrev", "gpt-5", slow) } });
    p.startWorker("broker");
    p.startWorker("verifier");
    p.startWorker("command");
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--author-model", "claude-opus-4", "--run-id", "dk1"]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitFor("dk1", GATE, has("attempt-1.json"), "the dispatch");
    // the planted answer claims the identity a bus reviewer's would have
    drop(p, "dk1", "result-1.json", resultText(p, "dk1", 1, "satisfied", ',"reviewer_model_source":"reported"'));
    await p.waitFor("dk1", GATE, has("outcome.json"), "the outcome", scaled(90_000));
    expect(outcomeOf(p, "dk1").status).toBe("satisfied");
    expect(p.readJson<{ reviewer_model: string; delivery_key?: string }>("dk1", GATE, "result-1.json")).toMatchObject({
      reviewer_model: "gpt-5-genuine",
      delivery_key: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const reasons = readdirSync(path.join(p.gateDir("dk1", GATE), "rejected"))
      .filter((f) => f.endsWith(".reason.json"))
      .map((f) => readFileSync(path.join(p.gateDir("dk1", GATE), "rejected", f), "utf8"));
    expect(reasons.join("\n")).toMatch(
      /which the bus dispatches: this result is not the answer of the worker that recorded attempt-1\.json|no delivery key/,
    );
  });

  it("a result with an invalid UTF-8 byte is bound by its bytes: refused as not text, and a clean re-delivery passes (§5)", async () => {
    const p = await reviewing("i7");
    const [head, tail] = resultText(p, "i7", 1, "satisfied", `,"summary":"caf@"`).split("@");
    drop(p, "i7", "result-1.json", Buffer.concat([Buffer.from(head!), Buffer.from([0xff]), Buffer.from(tail!)]));
    await p.waitFor(
      "i7",
      GATE,
      () =>
        existsSync(path.join(p.gateDir("i7", GATE), "rejected")) &&
        readdirSync(path.join(p.gateDir("i7", GATE), "rejected")).some((n) => n.startsWith("result-1.json.") && n.endsWith(".reason.json")),
      "the invalid result moved aside",
    );
    const reason = readdirSync(path.join(p.gateDir("i7", GATE), "rejected")).find((n) => n.endsWith(".reason.json"))!;
    expect(JSON.parse(readFileSync(path.join(p.gateDir("i7", GATE), "rejected", reason), "utf8")).reason).toMatch(/not valid UTF-8/);
    const clean = resultText(p, "i7", 1, "satisfied");
    drop(p, "i7", "result-1.json", clean);
    await p.waitFor("i7", GATE, has("outcome.json"), "the outcome");
    expect(outcomeOf(p, "i7")).toMatchObject({ status: "satisfied" });
    expect(p.readJson("i7", GATE, "verdict-1.json")).toMatchObject({ result_sha256: sha256Hex(clean) });
  });

  it.each([
    ["invalid JSON", () => "{ junk"],
    [
      "a verdict naming another packet",
      (p: Project) => JSON.stringify({ ...p.readJson("j0", GATE, "verdict-1.json"), packet_id: "G-spec-other-r1" }),
    ],
  ])("a junk verdict dropped before the result (%s) is quarantined and the genuine result is verified (§5)", async (_what, junk) => {
    const p = setup();
    p.startWorker("broker");
    p.startWorker("verifier");
    // a real verdict to copy from, in another run
    await passRound1(p, "j0");
    request(p, "i8");
    await p.waitFor("i8", GATE, has("packet-1.md"), "packet 1");
    // the junk and the genuine result land together: the verifier must not take the junk as a verdict on the result
    drop(p, "i8", "verdict-1.json", junk(p));
    drop(p, "i8", "result-1.json", resultText(p, "i8", 1, "satisfied"));
    await p.waitFor("i8", GATE, has("outcome.json"), "the outcome");
    expect(outcomeOf(p, "i8")).toMatchObject({ status: "satisfied", satisfied_at_round: 1 });
  });

  it.each([
    ["deleted", (file: string) => rmSync(file)],
    [
      "replaced by a directory",
      (file: string) => {
        rmSync(file);
        mkdirSync(file);
      },
    ],
  ])(
    "an artifact %s mid-review escalates artifact_missing; --wait says so with exit 4; restored + retry continues (§14)",
    async (_what, spoil) => {
      const p = setup();
      p.startWorker("broker");
      p.startWorker("verifier");
      const waiting = cliAsync(
        p,
        [
          "review",
          ARTIFACT,
          "--gate",
          GATE,
          "--author",
          "claude",
          "--reviewer",
          "manual",
          "--run-id",
          "i9",
          "--wait",
          "--json",
          "--timeout",
          waitSeconds(60),
        ],
        scaled(90_000),
      );
      await p.waitFor("i9", GATE, has("packet-1.md"), "packet 1");
      const file = path.join(p.root, ARTIFACT);
      spoil(file);
      drop(p, "i9", "result-1.json", resultText(p, "i9", 1, "satisfied"));
      const w = await waiting;
      expect(w.code, w.stderr).toBe(4);
      expect(JSON.parse(w.stdout)).toMatchObject({
        status: "artifact_unusable",
        state: "awaiting_decision",
        detail: expect.stringContaining(ARTIFACT),
      });
      expect(p.readJson("i9", GATE, "escalation-1.json")).toMatchObject({ reason: "artifact_missing", options: ["retry", "rework"] });
      expect(p.files("i9", GATE)).not.toContain("outcome.json");
      rmSync(file, { recursive: true, force: true });
      p.write(ARTIFACT, SPEC_TEXT);
      const d = p.cli(["decide", "i9", GATE, "retry"]);
      expect(d.code, d.stderr).toBe(0);
      await p.waitFor("i9", GATE, has("packet-2.md"), "the retried round");
      expect(packetField(p, "i9", 2, "restart_reason")).toBe("retry");
      expect(p.logs.join("")).not.toMatch(/ENOENT|EISDIR/);
    },
  );

  it("status of a passed gate whose artifact changed since says both shas (§17)", async () => {
    const p = await reviewing("s1");
    drop(p, "s1", "result-1.json", resultText(p, "s1", 1, "satisfied"));
    await p.waitFor("s1", GATE, has("outcome.json"), "the outcome");
    expect(p.status("s1", GATE).detail).toBe("outcome satisfied");
    p.write(ARTIFACT, SPEC_TEXT + "later edit\n");
    expect(p.status("s1", GATE).detail).toBe(
      `outcome satisfied for sha ${sha256Hex(SPEC_TEXT)}; the artifact is now ${sha256Hex(SPEC_TEXT + "later edit\n")} (changed since)`,
    );
  });

  it("status --verify re-derives an outcome from its files and flags a hand-written one (§17)", async () => {
    const p = await reviewing("v1");
    drop(p, "v1", "result-1.json", resultText(p, "v1", 1, "satisfied"));
    await p.waitFor("v1", GATE, has("outcome.json"), "the outcome");
    const ok = p.cli(["status", "v1", GATE, "--verify", "--json"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).gates[0].verify).toEqual({ ok: true, problems: [] });
    // a forged outcome for a gate whose round was never verified
    request(p, "v2");
    await p.waitFor("v2", GATE, has("packet-1.md"), "packet 1 of v2");
    const forged = { ...p.readJson("v1", GATE, "outcome.json"), run_id: "v2", trail_path: `.guild/runs/v2/review/${GATE}/trail.md` };
    drop(p, "v2", "outcome.json", JSON.stringify(forged));
    const bad = p.cli(["status", "v2", GATE, "--verify"]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/verify: FAILED — result-1\.json: .*no such file/);
    // the real outcome no longer holds once its artifact changes
    p.write(ARTIFACT, SPEC_TEXT + "edited after the pass\n");
    const stale = p.cli(["status", "v1", GATE, "--verify"]);
    expect(stale.code).toBe(2);
    expect(stale.stdout).toMatch(/verify: FAILED — the artifact changed since the outcome/);
    // a run directory the bus refuses (a link) hides its gates (v2's forged outcome too): --verify re-derived none of
    // them, so the gates it could read holding (v1 again) is no all-clear
    p.write(ARTIFACT, SPEC_TEXT);
    const runDir = path.join(p.root, ".guild", "runs", "v2");
    renameSync(runDir, `${runDir}-moved`);
    symlinkSync(`${runDir}-moved`, runDir);
    const hidden = p.cli(["status", "--verify"]);
    expect(hidden.code).toBe(2);
    expect(hidden.stdout).toMatch(/ignored: \.guild\/runs\/v2/);
  });

  it("trail.md shows the final disposition by the time the outcome is visible (§16)", async () => {
    const p = setup();
    p.startWorker("broker");
    p.startWorker("verifier");
    for (let i = 0; i < 8; i++) {
      const run = `t${i}`;
      request(p, run);
      await p.waitFor(run, GATE, has("packet-1.md"), "packet 1");
      drop(p, run, "result-1.json", resultText(p, run, 1, "satisfied"));
      await p.waitFor(run, GATE, has("outcome.json"), "the outcome", scaled(30_000));
      // read at once: no waiting for a later broker pass
      expect(readFileSync(path.join(p.gateDir(run, GATE), "trail.md"), "utf8")).toMatch(/## Final disposition[\s\S]*status: satisfied/);
    }
  });
});

describe("hostile directory entries (integration)", () => {
  it("a gate directory that is a symlink out of .guild is never followed: nothing is written there (§2)", async () => {
    const p = setup();
    const outside = tempRoot("guild-bus-outside-");
    const runDir = path.join(p.root, ".guild", "runs", "evil", "review");
    mkdirSync(runDir, { recursive: true });
    writeFileSync(
      path.join(outside, "request.json"),
      JSON.stringify({
        schema_version: "guild_bus.request.v1",
        run_id: "evil",
        gate: GATE,
        artifact_path: ARTIFACT,
        author_host: "claude",
        reviewer: "auto",
        requested_at: new Date().toISOString(),
      }),
    );
    symlinkSync(outside, path.join(runDir, GATE));
    p.startWorker("broker");
    p.startWorker("verifier");
    p.startWorker("manual");
    // a normal gate beside it proves the workers have scanned the tree
    await passRound1(p, "good");
    expect(readdirSync(outside)).toEqual(["request.json"]);
    // the author's side refuses it too: nothing is written through the link
    const other = tempRoot("guild-bus-outside-");
    mkdirSync(path.join(p.root, ".guild", "runs", "evil2", "review"), { recursive: true });
    symlinkSync(other, path.join(p.root, ".guild", "runs", "evil2", "review", GATE));
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--run-id", "evil2"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/symlink refused/);
    expect(readdirSync(other)).toEqual([]);
    const st = p.cli(["status", "--json"]);
    expect(JSON.parse(st.stdout).ignored).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: `.guild/runs/evil/review/${GATE}`, reason: expect.stringMatching(/symlink refused/) }),
      ]),
    );
  });

  it("a directory or FIFO at result-1.json is moved aside, freeing the name for a real result (§5)", async () => {
    const p = await reviewing("h8");
    mkdirSync(path.join(p.gateDir("h8", GATE), "result-1.json"));
    await p.waitFor("h8", GATE, (f) => !f.includes("result-1.json"), "the directory moved aside");
    drop(p, "h8", "result-1.json", resultText(p, "h8", 1, "satisfied"));
    await p.waitFor("h8", GATE, has("outcome.json"), "the outcome");
    expect(outcomeOf(p, "h8").status).toBe("satisfied");
  });

  it("a garbage outcome.json that lands before request.json does not end the gate (§5)", async () => {
    const p = setup();
    p.startWorker("broker");
    p.startWorker("verifier");
    const dir = p.gateDir("h9", GATE);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "outcome.json"), "garbage");
    request(p, "h9");
    await p.waitFor("h9", GATE, has("packet-1.md"), "packet 1 despite the garbage outcome", scaled(30_000));
    const rejected = await p.waitFor("h9", GATE, (f) => !f.includes("outcome.json"), "the garbage moved aside");
    expect(rejected).toContain("rejected");
    drop(p, "h9", "result-1.json", resultText(p, "h9", 1, "satisfied"));
    await p.waitFor("h9", GATE, has("outcome.json"), "the real outcome");
    expect(outcomeOf(p, "h9").status).toBe("satisfied");
  });

  it("a torn result dated in the future is still rejected after the grace period (§5)", async () => {
    const p = await reviewing("h11");
    const file = path.join(p.gateDir("h11", GATE), "result-1.json");
    writeFileSync(file, '{"schema_version":"review_result.v1","packet_id":');
    const future = Date.now() / 1000 + 86_400;
    utimesSync(file, future, future);
    await p.waitFor("h11", GATE, (f) => !f.includes("result-1.json"), "the torn result moved aside", scaled(30_000));
  });

  it("a claim lock dated in the future does not block dispatch forever (§15)", async () => {
    const p = makeProject();
    p.write(ARTIFACT, SPEC_TEXT);
    p.settings({ providers: { gpt: { adapter: "command", model: "gpt-5", argv: [process.execPath, SCRIPTED] } } });
    p.startWorker("broker");
    p.startWorker("verifier");
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "gpt", "--run-id", "h11b"]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitFor("h11b", GATE, has("packet-1.md"), "packet 1");
    const lock = path.join(p.gateDir("h11b", GATE), ".claims", "review-1.lock");
    mkdirSync(lock, { recursive: true });
    const future = Date.now() / 1000 + 86_400;
    utimesSync(lock, future, future);
    p.startWorker("command");
    await p.waitFor("h11b", GATE, has("outcome.json"), "the outcome after the skewed lock turned stale", scaled(60_000));
    expect(outcomeOf(p, "h11b").status).toBe("satisfied");
  });

  /** A request dropped by another tool, bypassing the CLI's own checks. */
  function dropRequest(p: Project, run: string, artifactPath: string): void {
    mkdirSync(p.gateDir(run, GATE), { recursive: true });
    drop(
      p,
      run,
      "request.json",
      JSON.stringify({
        schema_version: "guild_bus.request.v1",
        run_id: run,
        gate: GATE,
        artifact_path: artifactPath,
        author_host: "claude",
        reviewer: "manual",
        requested_at: new Date().toISOString(),
      }),
    );
  }

  it("a dropped request naming an artifact outside the project is refused before round 1, not retried forever (§13)", async () => {
    const p = setup();
    p.startWorker("broker");
    dropRequest(p, "h7", "../outside.md");
    await p.waitFor("h7", GATE, has("escalation-0.json"), "the refusal");
    expect(p.readJson("h7", GATE, "escalation-0.json")).toMatchObject({ reason: "request_refused", options: ["rework"] });
    expect(p.files("h7", GATE)).not.toContain("packet-1.md");
  });

  it.each([
    ["over the size limit", (f: string) => writeFileSync(f, "x".repeat(3 * 1024 * 1024)), "artifact_too_large"],
    ["not UTF-8 text", (f: string) => writeFileSync(f, Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a])), "artifact_not_text"],
    ["a FIFO", (f: string) => spawnSync("mkfifo", [f]), "artifact_missing"],
    ["linked into .guild/ (the bus's own state)", (f: string) => symlinkSync("../.guild/settings.json", f), "artifact_missing"],
  ])(
    "an artifact %s escalates once before round 1: no packet, nothing rewritten or moved aside in a loop (§10, §14)",
    async (_what, make, reason) => {
      const p = setup();
      p.startWorker("broker");
      make(path.join(p.root, "docs", "bad.md"));
      dropRequest(p, "h2", "docs/bad.md");
      await p.waitFor("h2", GATE, has("escalation-0.json"), "the escalation");
      expect(p.readJson("h2", GATE, "escalation-0.json")).toMatchObject({ reason, options: ["retry", "rework"] });
      const files = p.files("h2", GATE);
      expect(files).not.toContain("packet-1.md");
      expect(files).not.toContain("rejected");
      expect(p.status("h2", GATE)).toMatchObject({ state: "awaiting_decision", status: "artifact_unusable" });
    },
  );

  it("a rebuttal that would swell the ruling packet is moved aside with the reason; no ruling is issued (§5, §21)", async () => {
    const p = setup();
    p.write(ARTIFACT, "# Spec\n\n" + "A line of the specification.\n".repeat(36_000)); // about 1 MiB
    p.startWorker("broker");
    p.startWorker("verifier");
    const r = p.cli([
      "review",
      ARTIFACT,
      "--gate",
      GATE,
      "--author",
      "claude",
      "--reviewer",
      "manual",
      "--difficulty",
      "hard",
      "--run-id",
      "big",
    ]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitFor("big", GATE, has("packet-1.md"), "packet 1");
    drop(p, "big", "result-1.json", resultText(p, "big", 1, "issues"));
    await p.waitState("big", GATE, ["awaiting_author"]);
    // the author contests the finding at length, past what `rebut` takes: the ruling packet would carry 3.4 MB of it
    // (the packet-size escalation this once reached: test/core/packet-size.test.ts)
    drop(p, "big", "rebuttal-1.md", "The size is bounded elsewhere. ".repeat(110_000));
    await p.waitFor("big", GATE, (f) => f.includes("rejected") && !f.includes("rebuttal-1.md"), "the rebuttal moved aside");
    const rejected = path.join(p.gateDir("big", GATE), "rejected");
    const reasonFile = readdirSync(rejected).find((f) => f.startsWith("rebuttal-1.md") && f.endsWith(".reason.json"));
    expect(readFileSync(path.join(rejected, reasonFile!), "utf8")).toMatch(/a rebuttal holds at most 65536 bytes/);
    await p.waitState("big", GATE, ["awaiting_author"]);
    expect(p.files("big", GATE)).not.toContain("packet-2.md");
  });

  // Permissions only bind a process that is not root: run the workers and the CLI as nobody (CI runs as root).
  const asRoot = process.getuid?.() === 0;
  it.skipIf(!asRoot)(
    "unreadable (mode 000) files at result and response names are moved aside by workers running unprivileged (§5)",
    async () => {
      const NOBODY = 65534;
      const p = setup();
      const own = { uid: NOBODY, gid: NOBODY };
      const chownAll = (dir: string) => {
        chownSync(dir, NOBODY, NOBODY);
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const f = path.join(dir, e.name);
          if (e.isDirectory()) chownAll(f);
          else lchownSync(f, NOBODY, NOBODY);
        }
      };
      chownAll(p.root);
      const env = { ...process.env, HOME: p.root };
      const worker = (kind: string) => {
        const child = spawn(process.execPath, [BIN, "worker", kind, "--root", p.root, "--reconcile-ms", "300", "--full-scan-ms", "2000"], {
          ...own,
          env,
          stdio: "ignore",
        });
        spawned.push(child);
      };
      const cli = (args: string[], input?: string) =>
        spawnSync(process.execPath, [BIN, ...args, "--root", p.root], { ...own, env, input, encoding: "utf8" });
      try {
        worker("broker");
        worker("verifier");
        worker("manual");
        for (const run of ["u1", "u2"])
          expect(cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", run]).status).toBe(0);
        await p.waitFor("u1", GATE, has("packet-1.md"), "packet 1");
        await p.waitFor("u2", GATE, has("packet-1.md"), "packet 1 of u2");
        for (const [run, name] of [
          ["u1", "result-1.json"],
          ["u2", "response-1.md"],
        ] as const) {
          const f = path.join(p.gateDir(run, GATE), name);
          writeFileSync(f, "{}");
          chownSync(f, NOBODY, NOBODY);
          chmodSync(f, 0o000);
        }
        await p.waitFor("u1", GATE, (f) => !f.includes("result-1.json"), "the unreadable result moved aside", scaled(30_000));
        await p.waitFor("u2", GATE, (f) => !f.includes("response-1.md"), "the unreadable response moved aside", scaled(30_000));
        const r = cli(
          ["respond", "u2", GATE, "--reviewer-model", "gpt-5"],
          "Reviewer-Model: gpt-5\n" + resultText(p, "u2", 1, "satisfied"),
        );
        expect(r.status, r.stderr).toBe(0);
        await p.waitFor("u2", GATE, has("outcome.json"), "the outcome after a readable answer");
      } finally {
        for (const c of spawned.splice(0)) await stopChild(c);
      }
    },
  );

  it("concurrent CLI calls on one gate: one request, one decision, one result; the others are told why (§4)", async () => {
    const p = setup();
    const same = Array.from({ length: 6 }, () =>
      cliAsync(p, ["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "cc", "--cap", "1"]),
    );
    const requests = await Promise.all(same);
    expect(requests.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    for (const r of requests.filter((x) => x.code !== 0)) expect(r.stderr).toMatch(/already has a request|use another --run-id/);
    p.startWorker("broker");
    p.startWorker("verifier");
    await p.waitFor("cc", GATE, has("packet-1.md"), "packet 1");
    const answer = "Reviewer-Model: gpt-5\n" + resultText(p, "cc", 1, "issues");
    const answers = await Promise.all(Array.from({ length: 6 }, () => cliAsync(p, ["respond", "cc", GATE, "--reviewer-model", "gpt-5"])));
    void answer;
    expect(answers.every((r) => r.code !== 0)).toBe(true); // no stdin answer: refused, nothing written
    const text = path.join(p.root, "answer.md");
    writeFileSync(text, answer);
    const sent = await Promise.all(
      Array.from({ length: 6 }, () => cliAsync(p, ["respond", "cc", GATE, "--reviewer-model", "gpt-5", "--file", text])),
    );
    // one delivery wins; a concurrent call with the very same bytes is the idempotent "identical" success (§4)
    expect(sent.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    for (const r of sent.filter((x) => x.code !== 0)) expect(r.stderr).toMatch(/already|cannot take an answer/);
    expect(p.files("cc", GATE).filter((f) => f.startsWith("result-"))).toEqual(["result-1.json"]);
    await p.waitFor("cc", GATE, has("escalation-1.json"), "cap hit");
    const decided = await Promise.all(["force-pass", "rework", "force-pass", "rework"].map((c) => cliAsync(p, ["decide", "cc", GATE, c])));
    expect(decided.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    const choice = p.readJson<{ choice: string }>("cc", GATE, "decision-1.json").choice;
    await p.waitFor("cc", GATE, has("outcome.json"), "the outcome");
    expect(p.files("cc", GATE).filter((f) => f.startsWith("decision-"))).toEqual(["decision-1.json"]);
    expect(p.readJson<{ status: string }>("cc", GATE, "outcome.json").status).toBe(choice === "force-pass" ? "force_passed" : "rework");
  });

  it.skipIf(!asRoot)(
    "a .guild the user cannot write: the CLI says so in one line and what to fix, a worker keeps running without a tight loop (§17, §18)",
    async () => {
      const p = setup();
      request(p, "ro"); // written by root: nobody may read the tree but not write it
      const env = { ...process.env, HOME: p.root };
      chmodSync(p.root, 0o755);
      const r = spawnSync(
        process.execPath,
        [BIN, "review", ARTIFACT, "--gate", GATE, "--author", "claude", "--run-id", "ro2", "--root", p.root],
        { uid: 65534, gid: 65534, env, encoding: "utf8" },
      );
      expect(r.status).toBe(1);
      const [said, fix, ...more] = r.stderr.trim().split("\n");
      expect(said).toMatch(/^guild-bus: .*(EACCES|permission denied)/i);
      expect(fix).toMatch(/make it writable by the user the workers run as .*, then run the command again/);
      expect(more).toEqual([]);
      let log = "";
      const broker = spawn(
        process.execPath,
        [BIN, "worker", "broker", "--root", p.root, "--reconcile-ms", "300", "--full-scan-ms", "1000"],
        { uid: 65534, gid: 65534, env, stdio: ["ignore", "pipe", "pipe"] },
      );
      spawned.push(broker);
      broker.stdout!.on("data", (b: Buffer) => (log += b));
      broker.stderr!.on("data", (b: Buffer) => (log += b));
      try {
        // it tried, said why, and tried again three times: each retry logs a line naming how often it failed
        const retried = /ro\/G-spec: still failing \(4 times in a row\)/;
        const deadline = Date.now() + scaled(60_000);
        while (!retried.test(log) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 200));
        expect(log).toMatch(retried);
        expect(log).toMatch(/EACCES|permission denied/i);
        expect(broker.exitCode).toBeNull();
        // no tight loop: each retry came no sooner than the doubling delay announced before it (load only delays it)
        const tries = log.split("\n").filter((l) => l.includes("ro/G-spec: ") && l.includes("next try in"));
        const at = tries.map((l) => Date.parse(l.slice(0, 24)));
        const delays = tries.map((l) => Number(/next try in (\d+) ms/.exec(l)![1]));
        expect(delays.slice(0, 3)).toEqual([300, 600, 1200]);
        for (let i = 1; i < 4; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(delays[i - 1]! - 5);
        expect(log.slice(0, log.search(retried)).split("\n").length).toBeLessThan(40);
        expect(p.files("ro", GATE)).not.toContain("packet-1.md");
      } finally {
        for (const c of spawned.splice(0)) await stopChild(c);
      }
    },
  );
});

describe("what an independent adversarial review of this fix found (integration)", () => {
  it("a stray verdict that contradicts its result never ends the gate satisfied (§11, §15)", async () => {
    const p = setup();
    p.startWorker("broker"); // no verifier: the stray verdict is the only one
    request(p, "a1");
    await p.waitFor("a1", GATE, has("packet-1.md"), "packet 1");
    const issues = resultText(p, "a1", 1, "issues");
    drop(p, "a1", "result-1.json", issues);
    const stray = forgedPassingVerdict({
      run: "a1",
      gate: GATE,
      round: 1,
      packetId: packetField(p, "a1", 1, "packet_id"),
      resultSha: sha256Hex(issues),
      artifactSha: packetField(p, "a1", 1, "artifact_sha256"),
    });
    drop(p, "a1", "verdict-1.json", JSON.stringify(stray));
    await p.waitFor("a1", GATE, (f) => !f.includes("verdict-1.json"), "the unsealed verdict moved aside");
    p.startWorker("verifier");
    await p.waitFor("a1", GATE, has("verdict-1.json"), "the verifier's own verdict");
    await p.waitState("a1", GATE, ["awaiting_author"]);
    expect(p.files("a1", GATE)).not.toContain("outcome.json");
  });

  it("a seal hard-linked to the result tells nothing: the round fails closed, an in-place rewrite never passes (§15)", async () => {
    const p = await reviewing("a6");
    const dir = p.gateDir("a6", GATE);
    const held = path.join(p.root, "held-result.json");
    writeFileSync(held, resultText(p, "a6", 1, "issues"));
    mkdirSync(path.join(dir, ".verified"), { recursive: true });
    linkSync(held, path.join(dir, ".verified", "result-1.json"));
    linkSync(held, path.join(dir, "result-1.json"));
    await p.waitFor("a6", GATE, has("escalation-1.json"), "the round to fail closed");
    expect(p.readJson<{ reason: string; detail: string }>("a6", GATE, "escalation-1.json")).toMatchObject({
      reason: "no_verdict",
      detail: expect.stringContaining("hard link"),
    });
    writeFileSync(held, resultText(p, "a6", 1, "satisfied")); // in place: every name of the inode changes
    const later = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "a6-after"]);
    expect(later.code, later.stderr).toBe(0);
    await p.waitFor("a6-after", GATE, has("packet-1.md"), "a later gate's packet (the workers have read the tree since)");
    expect(p.files("a6", GATE)).not.toContain("outcome.json");
    expect(p.status("a6", GATE)).toMatchObject({ state: "awaiting_decision", status: "no_verdict" });
    expect(p.cli(["check"]).code).not.toBe(0);
  });

  it("an outcome naming an earlier passing round, with a later round issued, does not verify (§17)", async () => {
    const p = setup();
    p.startWorker("verifier"); // the broker comes later: round 1's pass is verified but ends nothing yet
    request(p, "a7");
    const dir = p.gateDir("a7", GATE);
    const broker = p.startWorker("broker");
    await p.waitFor("a7", GATE, has("packet-1.md"), "packet 1");
    await stopChild(broker);
    drop(p, "a7", "result-1.json", resultText(p, "a7", 1, "satisfied"));
    await p.waitFor("a7", GATE, has("verdict-1.json"), "round 1's passing verdict");
    p.write(ARTIFACT, SPEC_TEXT + "edited before the broker saw the pass\n");
    p.startWorker("broker");
    await p.waitFor("a7", GATE, has("packet-2.md"), "round 2 on the edited artifact");
    drop(p, "a7", "result-2.json", resultText(p, "a7", 2, "issues"));
    await p.waitState("a7", GATE, ["awaiting_author"]);
    p.write(ARTIFACT, SPEC_TEXT); // back to the bytes round 1 passed
    const outcome = {
      schema_version: "guild_bus.outcome.v1",
      run_id: "a7",
      gate: GATE,
      status: "satisfied",
      author_host: "claude",
      author_family: "anthropic",
      reviewer_host: "manual",
      reviewer_model: "gpt-5",
      reviewer_family: "openai",
      independence: "strong",
      rounds: 2,
      satisfied_at_round: 1,
      final_round: 1,
      artifact_sha256: packetField(p, "a7", 1, "artifact_sha256"),
      reason: "all five gate-pass conditions hold",
      trail_path: `.guild/runs/a7/review/${GATE}/trail.md`,
      at: new Date().toISOString(),
    };
    writeFileSync(path.join(dir, "outcome.json"), JSON.stringify(outcome, null, 2));
    const verify = p.cli(["status", "a7", GATE, "--verify"]);
    expect(verify.code, verify.stdout).toBe(2);
    expect(verify.stdout).toContain("the outcome names round 1, but round 2 was issued after it");
    expect(p.cli(["check"]).code).toBe(2);
  });

  it("a decision dated in the future never answers the escalation that comes later (§5)", async () => {
    // far ahead, and within the clock skew allowed between machines: either way it landed before its escalation
    for (const [run, at] of [
      ["a2", "2099-01-01T00:00:00.000Z"],
      ["a2-near", new Date(Date.now() + 60_000).toISOString()],
    ] as const)
      await preAnswered(run, at);
  });

  async function preAnswered(run: string, at: string): Promise<void> {
    const p = setup();
    p.startWorker("broker");
    p.startWorker("verifier");
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", run, "--cap", "1"]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitFor(run, GATE, has("packet-1.md"), "packet 1");
    drop(
      p,
      run,
      "decision-1.json",
      JSON.stringify({
        schema_version: "guild_bus.decision.v1",
        run_id: run,
        gate: GATE,
        round: 1,
        choice: "force-pass",
        at,
      }),
    );
    drop(p, run, "result-1.json", resultText(p, run, 1, "issues"));
    await p.waitFor(run, GATE, has("escalation-1.json"), "cap hit");
    expect((await p.waitState(run, GATE, ["awaiting_decision"])).status).toBe("cap_hit");
    await p.waitFor(run, GATE, (f) => !f.includes("decision-1.json"), "the pre-placed decision moved aside");
    expect(p.files(run, GATE)).not.toContain("outcome.json");
  }

  it("an edit inside a redacted region after the packet still restarts the round (§7, §11)", async () => {
    const p = setup();
    p.write(ARTIFACT, "# Spec\n\nrequire_password: yes\n");
    p.startWorker("broker");
    p.startWorker("verifier");
    request(p, "a3");
    await p.waitFor("a3", GATE, has("packet-1.md"), "packet 1");
    p.write(ARTIFACT, "# Spec\n\nrequire_password: no\n"); // scrubs to the same text
    drop(p, "a3", "result-1.json", resultText(p, "a3", 1, "satisfied"));
    await p.waitFor("a3", GATE, has("packet-2.md"), "the restart");
    expect(packetField(p, "a3", 2, "restart_reason")).toBe("artifact_changed");
    expect(p.files("a3", GATE)).not.toContain("outcome.json");
  });

  it("a custom redaction pattern that matches the empty string escalates scrub_failed instead of growing without bound (§10)", async () => {
    const p = setup();
    p.settings({ foreign_grace_ms: 800, secrets_policy: { redaction_patterns: ["x*"] } });
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "a4"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/matches the empty string/);
    // a request another tool drops anyway: the broker escalates before round 1, once
    p.startWorker("broker");
    mkdirSync(p.gateDir("a4", GATE), { recursive: true });
    drop(
      p,
      "a4",
      "request.json",
      JSON.stringify({
        schema_version: "guild_bus.request.v1",
        run_id: "a4",
        gate: GATE,
        artifact_path: ARTIFACT,
        author_host: "claude",
        reviewer: "manual",
        requested_at: new Date().toISOString(),
      }),
    );
    await p.waitFor("a4", GATE, has("escalation-0.json"), "the escalation");
    expect(p.readJson("a4", GATE, "escalation-0.json")).toMatchObject({
      reason: "scrub_failed",
      detail: expect.stringMatching(/matches the empty string/),
    });
    expect(p.files("a4", GATE)).not.toContain("packet-1.md");
    // status names the pattern as what to fix (settings a person's command refuses, SPEC §3), rather than a gate view
    const st = p.cli(["status", "a4", GATE, "--json"]);
    expect(st.code).toBe(1);
    expect(st.stderr).toMatch(/secrets_policy\.redaction_patterns: .*matches the empty string/);
  });

  it("a linked .guild/tmp is moved aside; events.jsonl and .verified are never written through; status names who acts (§2)", async () => {
    const p = setup();
    const victim = tempRoot("guild-bus-victim-");
    writeFileSync(path.join(victim, "important.txt"), "keep me");
    const old = Date.now() / 1000 - 3 * 3600;
    utimesSync(path.join(victim, "important.txt"), old, old);
    mkdirSync(path.join(p.root, ".guild"), { recursive: true });
    symlinkSync(victim, path.join(p.root, ".guild", "tmp"));
    // the request's delivery moves the link aside (§4) and stages in a directory of its own
    const r = p.cli(["review", ARTIFACT, "--gate", GATE, "--author", "claude", "--reviewer", "manual", "--run-id", "a5"]);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(path.join(p.root, ".guild", "tmp")).isDirectory()).toBe(true);
    const aside = readdirSync(path.join(p.root, ".guild")).filter((n) => n.startsWith("tmp.not-a-directory."));
    expect(aside.map((n) => lstatSync(path.join(p.root, ".guild", n)).isSymbolicLink())).toEqual([true]);
    p.startWorker("broker");
    p.startWorker("verifier");
    const events = path.join(victim, "events.txt");
    writeFileSync(events, "");
    mkdirSync(path.join(p.root, ".guild", "runs", "a6"), { recursive: true });
    symlinkSync(events, path.join(p.root, ".guild", "runs", "a6", "events.jsonl"));
    request(p, "a6");
    await p.waitFor("a6", GATE, has("packet-1.md"), "packet 1");
    symlinkSync(victim, path.join(p.gateDir("a6", GATE), ".verified"));
    drop(p, "a6", "result-1.json", resultText(p, "a6", 1, "satisfied"));
    const s = await (async () => {
      for (const deadline = Date.now() + scaled(30_000); Date.now() < deadline; await new Promise((res) => setTimeout(res, 200))) {
        const st = p.status("a6", GATE);
        if (/a human: \.verified/.test(String(st.waiting_for))) return st;
      }
      return p.status("a6", GATE);
    })();
    expect(String(s.waiting_for)).toMatch(/a human: \.verified — a symlink/);
    expect(readdirSync(victim).sort()).toEqual(["events.txt", "important.txt"]);
    expect(readFileSync(events, "utf8")).toBe("");
  });
});
