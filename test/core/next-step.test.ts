// The next step's notes say why the open round's reviewer is the one it is, and why a round could not run — also for
// the round that escalates for it — and never tell a person to answer a round that no longer waits for one.
import { describe, expect, it } from "vitest";
import { nextStep, type WorkerPresence } from "../../src/core/next-step.js";
import type { GateDecision } from "../../src/core/decide.js";
import { context, Gate, gate, policy } from "../helpers/snapshots.js";
import { gateStatus } from "../../src/core/status.js";
import { decide } from "../../src/core/decide.js";

const ARTIFACT = { ok: true as const, sha: "a".repeat(64), rawSha: "a".repeat(64) };
/** The artifact as `status` reads it (its text too). */
const TEXT = { ...ARTIFACT, text: "# Spec\n" };
const wait = (state: GateDecision["state"], round: number) => ({ state, round, detail: "", action: null }) as unknown as GateDecision;

describe("a gate without a usable request", () => {
  it("whose request.json cannot be read or parsed names it and why, a person's to fix; none at all waits for a request", () => {
    const g = new Gate(null);
    expect(nextStep(g.s, wait("no_request", 0), "d", ARTIFACT)).toMatchObject({ waiting_on: "a request", person_first: true });
    g.s.problems.push({ file: "request.json", reason: "cannot read: EACCES: permission denied", mtimeMs: 0 });
    expect(nextStep(g.s, wait("no_request", 0), "d", ARTIFACT)).toMatchObject({
      waiting_on: "a human: request.json — cannot read: EACCES: permission denied",
      command: null,
      person_first: true,
    });
  });
});

describe("the next step's notes", () => {
  it("name why the open round's reviewer could not run, and that a later round was selected without it only then", () => {
    const g = new Gate().packet(1, { reviewer_provider: "gpt" }).failure(1, "unavailable", "cannot reach 127.0.0.1:9: ECONNREFUSED");
    g.s.failures.get(1)!.reviewer_provider = "gpt";
    expect(nextStep(g.s, wait("awaiting_decision", 1), "d", ARTIFACT).notes).toEqual([
      "round 1: reviewer gpt could not run (cannot reach 127.0.0.1:9: ECONNREFUSED)",
    ]);
    g.packet(2, { reviewer_provider: "manual", reviewer_adapter: "manual", restart_reason: "degraded" });
    const notes = nextStep(g.s, wait("reviewing", 2), "d", ARTIFACT).notes;
    expect(notes[0]).toBe(
      "round 1: reviewer gpt could not run (cannot reach 127.0.0.1:9: ECONNREFUSED); the broker selected again without it",
    );
    expect(notes).toContain("the review fell to the manual reviewer: a person must answer");
    g.result(2);
    expect(nextStep(g.s, wait("verifying", 2), "d", ARTIFACT).notes).not.toContain(
      "the review fell to the manual reviewer: a person must answer",
    );
  });

  it("a wait on a worker that runs is the plain wait; on one that does not, it names the command that starts it", () => {
    const g = new Gate().packet(1, { reviewer_provider: "gpt", reviewer_adapter: "command" });
    const none: WorkerPresence = { running: () => false, supervisedFor: () => null };
    const upOnly: WorkerPresence = { running: (kind) => kind !== "command", supervisedFor: () => 60_000 };
    const upStarting: WorkerPresence = { running: () => false, supervisedFor: () => 2_000 };
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, upStarting)).toMatchObject({ command: null }); // it starts them
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, { running: () => true, supervisedFor: () => 60_000 })).toMatchObject({
      command: null,
    });
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, none)).toMatchObject({
      waiting_on: expect.stringMatching(/, but no command worker is running for this project$/),
      command: "guild-bus up",
    });
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, upOnly)).toMatchObject({ command: "guild-bus worker command" });
    g.result(1);
    expect(nextStep(g.s, wait("verifying", 1), "d", ARTIFACT, upOnly)).toMatchObject({ waiting_on: "the verifier", command: null });
  });

  it("a wait on a worker of this machine that runs but stopped saying so names its pid and how to resume it, not a new worker", () => {
    const g = new Gate().packet(1, { reviewer_provider: "gpt", reviewer_adapter: "command" });
    const stopped: WorkerPresence = {
      running: () => false,
      supervisedFor: () => null,
      unresponsive: (kind) => (kind === "command" ? [4242] : []),
    };
    // before: "no command worker is running for this project — run: guild-bus up", while the stopped one held the claim
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, stopped)).toMatchObject({
      waiting_on: expect.stringMatching(
        /, but the command worker \(pid 4242 on this machine\) has stopped saying it is alive: it is stopped or hung/,
      ),
      command: "kill -CONT 4242",
    });
    // a live worker of the kind beside it: the plain wait (the live one takes the claim over once it is stale)
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, { ...stopped, running: () => true })).toMatchObject({ command: null });
  });

  it("a wait on a reviewer a live worker on another machine advertises names that worker and its machine", () => {
    const g = new Gate().packet(1, { reviewer_provider: "hx", reviewer_model: "gpt-5", reviewer_adapter: "http" });
    const machB = { kind: "http", peer: "machB-1-77", host: "machB", providers: ["hx"] };
    const workers: WorkerPresence = {
      running: () => true,
      supervisedFor: () => 60_000,
      servedBy: (kind, provider) => [machB].filter((a) => a.kind === kind && a.providers.includes(provider)),
    };
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, workers)).toMatchObject({
      waiting_on: "reviewer hx (gpt-5), run by the http worker on machB",
      command: null,
    });
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, { ...workers, servedBy: () => [] }).waiting_on).toBe(
      "reviewer hx (gpt-5), run by `guild-bus up`",
    );
    // no `up`, an http worker started on its own (the demo's) that has not said what it runs yet: that worker
    const alone = { ...workers, supervisedFor: () => null, servedBy: () => [] };
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, alone).waiting_on).toBe("reviewer hx (gpt-5), run by the http worker");
    // one started by hand with --provider for others says so: it will not take this round
    const restricted = { ...alone, advertising: () => [{ ...machB, providers: ["hy", "hz"] }] };
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, restricted).waiting_on).toBe(
      "reviewer hx (gpt-5), run by `guild-bus up` (the running http worker runs only hy, hz)",
    );
  });

  it("a round for an external reviewer is answered outside the bus, by the file its own process writes, not by `up`", () => {
    const g = new Gate().packet(1, { reviewer_provider: "ext", reviewer_adapter: "external" });
    const none: WorkerPresence = { running: () => false, supervisedFor: () => null };
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, none)).toEqual(
      expect.objectContaining({
        waiting_on: "reviewer ext (gpt-5), answered outside the bus (its own process writes d/result-1.json)",
        command: null,
      }),
    );
    // began and died: nothing of the bus ends that round, so the wait says what does
    g.attempt(1);
    expect(nextStep(g.s, wait("dispatched", 1), "d", ARTIFACT, none).waiting_on).toBe(
      "reviewer ext (gpt-5), answered outside the bus (its own process writes d/result-1.json); it recorded attempt-1.json: " +
        "if that process is no longer running, start it again — it ends the round with failure-1.json (no_verdict) and a person decides",
    );
  });
});

describe("a quorum round with one member still reviewing", () => {
  const rule = { need: 2, of: 2 };
  // codex still reviews; gem's result is in and waits for the verifier
  const half = () => gate().memberPacket(1, "codex", "openai", rule).memberPacket(1, "gem", "google", rule).memberAttempt(1, "codex");
  const delivered = () => {
    const g = half();
    g.s.members.get("gem")!.results.set(1, { mtimeMs: 1, size: 100, version: "test" });
    return g;
  };

  it("names the verifier another member's result waits for, as a single reviewer's round does", () => {
    const g = delivered();
    const d = decide(g.s, context({ policy: { quorum: rule } }));
    expect(d.state).toBe("dispatched");
    const upNoVerifier: WorkerPresence = { running: (kind) => kind !== "verifier", supervisedFor: () => 60_000 };
    expect(nextStep(g.s, d, "d", ARTIFACT, upNoVerifier)).toMatchObject({
      waiting_on:
        "reviewer codex (openai-model), run by `guild-bus up`; reviewer gem (google-model): result delivered, waiting for the " +
        "verifier, but no verifier worker is running for this project (`guild-bus up` runs: its log says why)",
      command: "guild-bus worker verifier",
    });
    const none: WorkerPresence = { running: () => false, supervisedFor: () => null };
    expect(nextStep(g.s, d, "d", ARTIFACT, none)).toMatchObject({
      waiting_on: expect.stringMatching(/, but no command or verifier worker is running for this project$/),
      command: "guild-bus up",
    });
    // every worker runs: the plain wait
    expect(nextStep(g.s, d, "d", ARTIFACT, { running: () => true, supervisedFor: () => 60_000 }).command).toBeNull();
  });

  it("a member whose result is verified waits on no verifier", () => {
    const g = half().memberVerdict(1, "gem", "pass");
    const d = decide(g.s, context({ policy: { quorum: rule } }));
    const upNoVerifier: WorkerPresence = { running: (kind) => kind !== "verifier", supervisedFor: () => 60_000 };
    expect(nextStep(g.s, d, "d", ARTIFACT, upNoVerifier)).toMatchObject({ command: null });
  });
});

describe("a retried quorum round that must select more reviewers than it keeps", () => {
  const rule = { need: 2, of: 2 };
  // round 1 went out to codex only (the second family went away between two member packets) and escalated
  // unavailable; the human retried: the broker issues round 2 only once a reviewer of another family is available
  const retried = () => {
    const g = gate().memberPacket(1, "codex", "openai", rule);
    g.escalation(1, "unavailable", ["retry", "force-pass", "rework"]).decision(1, "retry");
    return g;
  };

  it("names what the broker needs and where to look, not a bare wait on the broker (which waits on a person)", () => {
    const g = retried();
    const d = decide(g.s, context({ policy: { quorum: rule } }));
    expect(d).toMatchObject({ state: "broker", action: { type: "packet", round: 2, restart_reason: "retry" } });
    const next = nextStep(g.s, d, "d", ARTIFACT, { running: () => true, supervisedFor: () => 60_000 });
    expect(next.waiting_on).toMatch(/^the broker to select 1 more reviewer of families not yet in round 2/);
    expect(next.waiting_on).toContain("it keeps codex (openai)");
    expect(next.command).toBe("guild-bus providers");
    // no broker at all is still said
    expect(nextStep(g.s, d, "d", ARTIFACT, { running: () => false, supervisedFor: () => null }).command).toBe("guild-bus up");
  });

  it("an ordinary retry, which keeps every member, and the round's first packets are the plain broker wait", () => {
    const g = gate().memberPacket(1, "codex", "openai", rule).memberPacket(1, "gem", "google", rule);
    g.memberVerdict(1, "codex", "pass").memberFailure(1, "gem", "no_verdict");
    g.escalation(1, "no_verdict", ["retry", "rework"]).decision(1, "retry");
    const ctx = context({ policy: { quorum: rule } });
    expect(nextStep(g.s, decide(g.s, ctx), "d", ARTIFACT).waiting_on).toBe("the broker");
    expect(nextStep(gate().s, decide(gate().s, ctx), "d", ARTIFACT).waiting_on).toBe("the broker");
  });

  it("every command it prints that answers a round names that round: a copied command never acts on a later one", () => {
    const g = new Gate().packet(1, { reviewer_provider: "gpt" });
    expect(nextStep(g.s, wait("awaiting_author", 1), "d", ARTIFACT).command).toBe(
      `guild-bus resubmit ${g.s.runId} ${g.s.gate} --round 1 (after revising the artifact)`,
    );
    expect(nextStep(g.s, wait("awaiting_decision", 1), "d", ARTIFACT).command).toBe(
      `guild-bus decide ${g.s.runId} ${g.s.gate} <choice> --round 1`,
    );
    g.packet(2, { reviewer_provider: "manual", reviewer_adapter: "manual" });
    expect(nextStep(g.s, wait("reviewing", 2), "d", ARTIFACT).command).toMatch(
      new RegExp(`^guild-bus respond ${g.s.runId} ${g.s.gate} --round 2 --reviewer-model `),
    );
  });
});

describe("a round whose worker waits for the broker to write its packet's family maps again (SPEC §7)", () => {
  const MAPS = "e".repeat(64);
  const NAME = `family-maps-${MAPS}.json`;
  const none: WorkerPresence = { running: () => false, supervisedFor: () => null };
  const lost = () => gate().packet(1, { family_maps_sha256: MAPS, reviewer_provider: "gpt", reviewer_adapter: "command" });
  const decided = (g: ReturnType<typeof gate>, mapsNow = MAPS) => decide(g.s, { ...context(), mapsNow });

  it("missing: status names the broker, what it must do and why, and how to start it — never the reviewer it holds back", () => {
    const g = lost();
    const d = decided(g);
    const why = `the broker to write ${NAME} again (it is missing): reviewer gpt is not sent the round without it`;
    expect(d).toMatchObject({ state: "reviewing", action: null, detail: `waiting for ${why}` });
    expect(nextStep(g.s, d, "d", ARTIFACT, none)).toMatchObject({
      waiting_on: `${why}, but no broker worker is running for this project`,
      command: "guild-bus up",
      person_first: true,
    });
    // the reviewer's worker running changes nothing: it does not dispatch the round
    const reviewerOnly: WorkerPresence = { running: (kind) => kind === "command", supervisedFor: () => null };
    expect(nextStep(g.s, d, "d", ARTIFACT, reviewerOnly)).toMatchObject({ command: "guild-bus up" });
    expect(gateStatus(g.s, d, TEXT, policy(), "t").waiting_for).toBe("the broker");
    // the file back, the reviewer is the one again
    g.s.familyMaps.set(MAPS, { family_aliases: {}, host_families: {} });
    const back = decided(g);
    expect(back).toMatchObject({ state: "reviewing", detail: "waiting for reviewer gpt" });
    expect(nextStep(g.s, back, "d", ARTIFACT, none).waiting_on).toMatch(/^reviewer gpt .*, but no command worker is running/);
    expect(gateStatus(g.s, back, TEXT, policy(), "t").waiting_for).toBe("the reviewer");
  });

  it("a file of other bytes under its name (in its grace period): the broker moves it aside first, and says when", () => {
    const g = lost();
    g.s.problems.push({ file: NAME, reason: "its bytes are not the sha256 its name binds", mtimeMs: 1 });
    const d = decided(g);
    expect(d.detail).toBe(
      `waiting for the broker to write ${NAME} again (it holds other bytes: moved to rejected/ once foreign_grace_ms has ` +
        "passed): reviewer gpt is not sent the round without it",
    );
    expect(nextStep(g.s, d, "d", ARTIFACT, none).waiting_on).toMatch(/^the broker to write .* but no broker worker is running/);
  });

  it("a manual round waits for the broker too, not for a person's answer the verifier would not seal", () => {
    const g = gate().packet(1, { family_maps_sha256: MAPS, reviewer_provider: "manual", reviewer_adapter: "manual" });
    const d = decided(g);
    expect(nextStep(g.s, d, "d", ARTIFACT, none)).toMatchObject({
      waiting_on: expect.stringMatching(/^the broker to write .*: reviewer manual is not sent the round without it/),
      command: "guild-bus up",
    });
  });

  it("an answer in: the verifier seals it only once the broker has written the maps again, while the broker can", () => {
    const g = lost().result(1);
    const d = decided(g);
    expect(d).toMatchObject({
      state: "verifying",
      detail:
        `result delivered; waiting for the broker to write ${NAME} again (it is missing): ` +
        "the verifier seals no answer to packet-1.md without it",
    });
    expect(nextStep(g.s, d, "d", ARTIFACT, none)).toMatchObject({
      waiting_on: expect.stringMatching(/^the broker to write .*, but no broker worker is running for this project$/),
      command: "guild-bus up",
    });
    expect(gateStatus(g.s, d, TEXT, policy(), "t").waiting_for).toBe("the broker");
    // the settings give other maps now: the broker cannot write them, and the verifier seals the answer as it is
    const other = decided(g, "f".repeat(64));
    expect(other).toMatchObject({ state: "verifying", detail: "result delivered; waiting for the verifier" });
    expect(nextStep(g.s, other, "d", ARTIFACT, none).waiting_on).toBe("the verifier, but no verifier worker is running for this project");
  });

  it("a round already dispatched ends as before: its reviewer's worker delivers the answer or the failure", () => {
    const g = lost().attempt(1);
    const d = decided(g);
    expect(d).toMatchObject({ state: "dispatched", detail: "dispatched to gpt" });
    expect(d.held).toBeUndefined();
  });

  it("a quorum round names the broker once, with each member that waits on it, beside the members that go on", () => {
    const rule = { need: 2, of: 2 };
    const g = gate()
      .memberPacket(1, "codex", "openai", rule, { family_maps_sha256: MAPS })
      .memberPacket(1, "gem", "google", rule, { family_maps_sha256: MAPS })
      .memberAttempt(1, "codex");
    const d = decide(g.s, { ...context({ policy: { quorum: rule } }), mapsNow: MAPS });
    expect(d.detail).toMatch(new RegExp(`; waiting for the broker to write ${NAME} again \\(it is missing\\): reviewer gem is not sent`));
    expect(nextStep(g.s, d, "d", ARTIFACT, none)).toMatchObject({
      waiting_on:
        `the broker to write ${NAME} again (it is missing): reviewer gem is not sent the round without it; ` +
        "reviewer codex (openai-model), run by `guild-bus up`, but no broker or command worker is running for this project",
      command: "guild-bus up",
    });
  });
});

describe("a round whose reviewer cannot record its attempt: an invalid file holds the name (SPEC §5)", () => {
  const none: WorkerPresence = { running: () => false, supervisedFor: () => null };
  const invalid = { file: "attempt-1.json", reason: "missing required field: run_id", mtimeMs: 1 };

  it("waits for the broker to move it aside at the end of its grace period, not for the reviewer, which dispatches only then", () => {
    const g = gate().packet(1, { reviewer_provider: "gpt", reviewer_adapter: "command" });
    g.s.problems.push(invalid);
    const d = decide(g.s, context());
    const why =
      "the broker to move the invalid attempt-1.json aside (moved to rejected/ once foreign_grace_ms has passed): " +
      "reviewer gpt is not sent the round until then";
    expect(d).toMatchObject({ state: "reviewing", detail: `waiting for ${why}` });
    expect(nextStep(g.s, d, "d", ARTIFACT, none)).toMatchObject({
      waiting_on: `${why}, but no broker worker is running for this project`,
      command: "guild-bus up",
    });
    expect(gateStatus(g.s, d, TEXT, policy(), "t").waiting_for).toBe("the broker");
  });

  it("a reviewer outside the bus, or a person, writes no attempt: the file holds nobody back", () => {
    for (const reviewer_adapter of ["manual", "external"]) {
      const g = gate().packet(1, { reviewer_provider: "x", reviewer_adapter });
      g.s.problems.push(invalid);
      expect(decide(g.s, context())).toMatchObject({ state: "reviewing", detail: "waiting for reviewer x" });
    }
  });
});
