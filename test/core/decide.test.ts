// The round loop (decide) step by step, on hand-built snapshots: no filesystem.
import { describe, expect, it } from "vitest";
import { decide, type OutcomeAction, waitExitCode } from "../../src/core/decide.js";
import { effectiveCap } from "../../src/core/gate-queries.js";
import { type GateReads, outcomeRecord } from "../../src/core/broker-plan.js";
import type { ArtifactState } from "../../src/core/artifact-view.js";
import { failReasons, verdictPasses } from "../../src/core/verdict-pass.js";
import { MAX_LISTED_FINDINGS } from "../../src/core/findings.js";
import { contestRefusal, rebuttalRefusal } from "../../src/core/gate-queries.js";
import { packetId } from "../../src/core/packet.js";
import { resolvePolicy } from "../../src/core/policy.js";
import type { DecisionChoice, PacketFrontMatter } from "../../src/spec/schemas.js";
import { AT, context, gate, openRound, packet, RAW_SHA, request, scoreGate, settle, SHA_A, SHA_B, verdict } from "../helpers/snapshots.js";

/** The artifact as the test contexts give it: still the bytes the test gates' outcomes bind. */
const UNCHANGED = { ok: true as const, sha: SHA_A, rawSha: RAW_SHA };
const CAP: DecisionChoice[] = ["force-pass", "extend-cap", "rework"];
const RETRY: DecisionChoice[] = ["retry", "force-pass", "rework"];

describe("decide: before any packet", () => {
  it("no request → no_request, no action", () => {
    const d = decide(gate(null).s, context());
    expect(d).toEqual({ state: "no_request", round: 0, action: null, detail: "no request.json" });
  });

  it("a request.json that is there but unusable → no_request, its detail naming the file and why (as the waiting line does)", () => {
    const g = gate(null);
    g.s.problems.push({ file: "request.json", reason: "not valid JSON", mtimeMs: 0 });
    expect(decide(g.s, context())).toMatchObject({ state: "no_request", detail: "request.json — not valid JSON" });
  });

  it("an outcome on disk → done at its final round, whatever else is there", () => {
    const g = gate().packet(1).verdict(1, "issues").outcome("rework", 1);
    expect(decide(g.s, context())).toMatchObject({ state: "done", round: 1, action: null, detail: "outcome rework" });
  });

  it("step 0: review not required → skipped outcome at round 0 (the only clean skip)", () => {
    const d = decide(gate().s, context({ policy: { required: false, requiredBecause: "review=off" } }));
    expect(d.state).toBe("broker");
    expect(d.action).toEqual({ type: "outcome", status: "skipped", reason: "review not required (review=off)", round: 0 });
  });

  it("step 0 comes before the codex-skip block: a not-required review is skipped even when blocked", () => {
    const d = decide(gate().s, context({ policy: { required: false }, blocked: true, enforcement: "block" }));
    expect(d.action).toMatchObject({ type: "outcome", status: "skipped" });
  });

  it("review=off with risk high is required: a first packet, not a skip (policy → decide)", () => {
    const ctx = {
      policy: resolvePolicy(request({ review: "off", risk: "high" }), {}),
      codexSkip: { blocked: false, enforcement: "warn" as const },
      artifact: () => ({ ok: true as const, sha: SHA_A, rawSha: SHA_A }),
    };
    expect(decide(gate().s, ctx).action).toMatchObject({ type: "packet", round: 1 });
    const off = { ...ctx, policy: resolvePolicy(request({ review: "off" }), {}) };
    expect(decide(gate().s, off).action).toMatchObject({ type: "outcome", status: "skipped", reason: "review not required (review=off)" });
  });

  it("required review → first packet: round 1, counted 1, no restart, select now, cap in force", () => {
    const d = decide(gate().s, context({ policy: { cap: 3 } }));
    expect(d).toMatchObject({ state: "broker", round: 1, detail: "first packet" });
    expect(d.action).toEqual({ type: "packet", round: 1, counted_round: 1, restart_of: null, restart_reason: null, cap: 3, inherit: null });
  });

  it("a required review never resolves skipped, whatever the mode", () => {
    for (const mode of ["cross", "local", "off"] as const) {
      const { decision, actions } = settle(gate().s, context({ policy: { mode, required: true } }));
      expect(actions.some((a) => a.type === "outcome")).toBe(false);
      expect(decision.state).toBe("reviewing");
    }
  });
});

describe("decide: codex-skip sentinel (step 1)", () => {
  it("blocked + warn → proceeds to the first packet", () => {
    expect(decide(gate().s, context({ blocked: true, enforcement: "warn" })).action).toMatchObject({ type: "packet", round: 1 });
  });

  it("not blocked + block → proceeds", () => {
    expect(decide(gate().s, context({ blocked: false, enforcement: "block" })).action).toMatchObject({ type: "packet", round: 1 });
  });

  it("blocked + block → escalation at round 0 with override|rework, before any host is resolved", () => {
    const d = decide(gate().s, context({ blocked: true, enforcement: "block" }));
    expect(d.action).toEqual({
      type: "escalation",
      round: 0,
      reason: "codex_skip_blocked",
      detail: "codex-skip streak is blocked and codex_skip_enforcement=block",
      options: ["override", "rework"],
    });
  });

  it("escalated, no decision → awaiting_decision at round 0 (exit 4)", () => {
    const g = gate().escalation(0, "codex_skip_blocked", ["override", "rework"]);
    const d = decide(g.s, context({ blocked: true, enforcement: "block" }));
    expect(d).toMatchObject({ state: "awaiting_decision", round: 0, action: null });
    expect(waitExitCode(g.s, d, UNCHANGED)).toBe(4);
  });

  it("override → first packet", () => {
    const g = gate().escalation(0, "codex_skip_blocked", ["override", "rework"]).decision(0, "override");
    expect(decide(g.s, context({ blocked: true, enforcement: "block" })).action).toMatchObject({
      type: "packet",
      round: 1,
      counted_round: 1,
      inherit: null,
    });
  });

  it("rework → rework outcome at round 0", () => {
    const g = gate().escalation(0, "codex_skip_blocked", ["override", "rework"]).decision(0, "rework");
    expect(decide(g.s, context({ blocked: true, enforcement: "block" })).action).toEqual({
      type: "outcome",
      status: "rework",
      reason: "rework chosen at the codex-skip block",
      round: 0,
    });
  });

  it("a choice that was not offered (force-pass) is ignored: still awaiting the decision", () => {
    const g = gate().escalation(0, "codex_skip_blocked", ["override", "rework"]).decision(0, "force-pass");
    expect(decide(g.s, context({ blocked: true, enforcement: "block" }))).toMatchObject({
      state: "awaiting_decision",
      round: 0,
      action: null,
    });
  });
});

describe("decide: waiting on the open round", () => {
  it("packet only → reviewing", () => {
    expect(decide(gate().packet(1).s, context())).toMatchObject({
      state: "reviewing",
      round: 1,
      action: null,
      detail: "waiting for reviewer codex",
    });
  });
  it("attempt recorded → dispatched", () => {
    expect(decide(gate().packet(1).attempt(1).s, context())).toMatchObject({ state: "dispatched", round: 1, action: null });
  });
  it("manual response delivered → normalizing", () => {
    expect(decide(gate().packet(1).response(1).s, context())).toMatchObject({ state: "normalizing", round: 1, action: null });
  });
  it("result delivered, no verdict yet → verifying (even with an attempt and a response)", () => {
    expect(decide(gate().packet(1).attempt(1).response(1).result(1).s, context())).toMatchObject({
      state: "verifying",
      round: 1,
      action: null,
    });
  });
  it("waiting states have no exit code (the gate still moves on its own)", () => {
    const g = gate().packet(1);
    expect(waitExitCode(g.s, decide(g.s, context()), UNCHANGED)).toBeNull();
  });
  it("only the latest round is looked at: an old pass does not satisfy a newer open round", () => {
    const g = gate().packet(1).verdict(1, "pass").packet(2, { counted_round: 2 });
    expect(decide(g.s, context())).toMatchObject({ state: "reviewing", round: 2 });
  });
});

describe("decide: verdicts (step 8)", () => {
  it("pass → satisfied, with the packet's independence (strong)", () => {
    const d = decide(gate().packet(1).verdict(1, "pass").s, context());
    expect(d.action).toEqual({
      type: "outcome",
      status: "satisfied",
      reason: "all five gate-pass conditions hold",
      round: 1,
      independence: "strong",
    });
  });

  it("pass on the weak path → satisfied, independence weak (still gated, never up-converted)", () => {
    const g = gate().packet(1, { independence: "weak", selection_status: "degraded-local" }).verdict(1, "pass");
    expect(decide(g.s, context()).action).toMatchObject({ type: "outcome", status: "satisfied", independence: "weak" });
  });

  it("pass reported by the author's own family → satisfied but recorded weak", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "pass", { independence_violation: true, reviewer_family: "anthropic", reviewer_model: "claude-opus-4" });
    const a = decide(g.s, context()).action!;
    expect(a).toMatchObject({ type: "outcome", status: "satisfied", round: 1, independence: "weak" });
    expect(a.type === "outcome" && a.reason).toMatch(/anthropic, the author's family/);
  });

  it("the weak pass's outcome says where the model name came from: the reviewer's report, or the settings' word", () => {
    const g = gate()
      .packet(1, { reviewer_model: "claude-opus-4" })
      .verdict(1, "pass", { independence_violation: true, reviewer_family: "anthropic", reviewer_model: "claude-opus-4" });
    const action = decide(g.s, context()).action!;
    expect(action.type).toBe("outcome");
    const reason = (source: string) =>
      outcomeRecord(g.s, action as OutcomeAction, { ok: true, sha: SHA_A, rawSha: SHA_A, text: "" } as ArtifactState, {
        settings: {},
        reads: { result: () => ({ reviewer_model_source: source }) } as unknown as GateReads,
        now: AT,
        trailPath: "trail.md",
      }).reason;
    // the result named no model: the verdict's is the packet's, requested from the settings, never "reported"
    expect(reason("requested")).toBe(
      'gate passed, but reviewer model "claude-opus-4" is anthropic, the author\'s family: recorded as a weak review; ' +
        "reviewer model the one requested, not reported by the reviewer (unverified)",
    );
    expect(reason("declared")).toMatch(/; reviewer model as the settings declare it, not reported by the reviewer \(unverified\)$/);
    expect(reason("reported")).toMatch(/; reviewer model reported by the reviewer$/);
    expect(reason("requested")).not.toMatch(/the reviewer reported/);
  });

  it("a violation sealed only under the settings when it was verified says so, not that the author cannot be told", () => {
    const sealed = { independence_violation: true, reviewer_family: "openai" as const, reviewer_model: "gpt-5" };
    const why = (over: Partial<PacketFrontMatter>) =>
      (decide(gate().packet(1, over).verdict(1, "pass", sealed).s, context()).action as OutcomeAction).reason;
    // the packet's maps class claude anthropic and gpt-5 openai: only the settings then can have made it weak
    expect(why({ family_maps: { family_aliases: {}, host_families: {} } })).toMatch(
      /not the author's family under the family maps its packet was issued with, but the settings/,
    );
    expect(why({ family_maps: { family_aliases: {}, host_families: {} } })).not.toMatch(/cannot be told/);
    // maps under which request.json's claude is not the packet's anthropic: the author cannot be told
    expect(why({ family_maps: { family_aliases: {}, host_families: { claude: "google" } } })).toMatch(
      /the author's family cannot be told from request.json/,
    );
  });

  it("pass by a reviewer of unknown family → escalation identity_unverified with retry|force-pass|rework", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "pass", { independence_violation: true, reviewer_family: "unknown", reviewer_model: "mystery-1" });
    expect(decide(g.s, context()).action).toMatchObject({ type: "escalation", round: 1, reason: "identity_unverified", options: RETRY });
    expect((decide(g.s, context()).action as { detail: string }).detail).toContain('"mystery-1"');
  });

  it("nightmare: a pass of a file written after its packet was sent restarts, whatever it holds now (the reviewer read it live)", () => {
    const sent = Date.parse(AT);
    const pass = (difficulty: "medium" | "nightmare", changedAtMs: number) => {
      const g = gate().packet(1, { difficulty }).verdict(1, "pass");
      return decide(g.s, context({ policy: { difficulty }, artifact: { ok: true, sha: SHA_A, rawSha: SHA_A, changedAtMs } }));
    };
    const swapped = pass("nightmare", sent + 5_000);
    expect(swapped.action).toMatchObject({ type: "packet", round: 2, restart_of: 1, restart_reason: "artifact_changed" });
    expect(swapped.detail).toMatch(
      /^the artifact file was written after packet 1 was sent \(2025-01-01T00:00:05\.000Z\), while its reviewer read it/,
    );
    expect(pass("nightmare", sent - 1).action).toMatchObject({ type: "outcome", status: "satisfied" });
    expect(pass("nightmare", sent + 0.9).action).toMatchObject({ type: "outcome", status: "satisfied" }); // the same millisecond
    // below nightmare the packet carries the bytes the reviewer judged: a later write of the same bytes changes nothing
    expect(pass("medium", sent + 5_000).action).toMatchObject({ type: "outcome", status: "satisfied" });
  });

  it("nightmare: the file's ctime is compared with the one the packet recorded, by one clock (a broker clock ahead hides nothing)", () => {
    const ctimeAtIssue = Date.parse(AT) - 60_000; // the file system's clock a minute behind the broker's
    const pass = (changedAtMs: number) => {
      const g = gate().packet(1, { difficulty: "nightmare", artifact_changed_at_ms: ctimeAtIssue }).verdict(1, "pass");
      const artifact = { ok: true as const, sha: SHA_A, rawSha: SHA_A, changedAtMs };
      return decide(g.s, context({ policy: { difficulty: "nightmare" }, artifact }));
    };
    expect(pass(ctimeAtIssue).action).toMatchObject({ type: "outcome", status: "satisfied" });
    expect(pass(ctimeAtIssue + 1_000).action).toMatchObject({ type: "packet", round: 2, restart_reason: "artifact_changed" });
  });

  it("sha mismatch → restart packet on the current bytes: restart_of, artifact_changed, counted round unchanged", () => {
    const g = gate().packet(1, { counted_round: 1, cap: 1 }).verdict(1, "sha");
    const d = decide(g.s, context({ policy: { cap: 1 } }));
    expect(d.action).toEqual({
      type: "packet",
      round: 2,
      counted_round: 1,
      restart_of: 1,
      restart_reason: "artifact_changed",
      cap: 1,
      inherit: g.s.packets.get(1),
    });
  });

  it("a result naming bytes its packet never sent, the artifact unchanged: the reviewer's mistake (malformed), not a restart loop", () => {
    const wrong = { artifact_sha256_reviewed: "c".repeat(64) }; // e.g. the raw file's sha, not the packet's scrubbed one
    const g = gate().packet(1).verdict(1, "sha", wrong);
    expect(decide(g.s, context()).action).toMatchObject({ type: "packet", round: 2, counted_round: 2, restart_reason: "malformed" });
    expect(decide(g.s, context()).detail).toMatch(/names artifact_sha256_reviewed c{64}, not its packet's a{64} \(copy it from the packet/);
    g.packet(2, { counted_round: 2, restart_of: 1, restart_reason: "malformed" }).verdict(2, "sha", wrong);
    expect(decide(g.s, context()).action).toMatchObject({ type: "escalation", reason: "malformed_termination_x2", options: CAP });
    // the artifact did change (the reviewer read newer bytes): a restart on the current bytes, as ever
    const moved = { ok: true as const, sha: "c".repeat(64), rawSha: "d".repeat(64) };
    expect(decide(gate().packet(1).verdict(1, "sha", wrong).s, context({ artifact: moved })).action).toMatchObject({
      type: "packet",
      restart_reason: "artifact_changed",
    });
  });

  it("sha mismatch at the cap still restarts (restarts never consume the cap)", () => {
    const g = gate().packet(1).packet(2, { counted_round: 2 }).verdict(2, "sha");
    expect(decide(g.s, context({ policy: { cap: 2 } })).action).toMatchObject({
      type: "packet",
      round: 3,
      counted_round: 2,
      restart_reason: "artifact_changed",
    });
  });

  it("restart cap: restartCap restarts in a row are allowed, the next mismatch escalates restart_cap_hit", () => {
    const ctx = context({ policy: { restartCap: 2 } });
    const g = gate()
      .packet(1)
      .verdict(1, "sha")
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "artifact_changed" })
      .verdict(2, "sha");
    expect(decide(g.s, ctx).action).toMatchObject({ type: "packet", round: 3, restart_of: 2, counted_round: 1 });
    g.packet(3, { counted_round: 1, restart_of: 2, restart_reason: "artifact_changed" }).verdict(3, "sha");
    const d = decide(g.s, ctx);
    expect(d.action).toMatchObject({
      type: "escalation",
      round: 3,
      reason: "restart_cap_hit",
      options: RETRY,
      detail: "artifact changed mid-review 3 times in a row",
    });
  });

  it("restarts separated by a counted round do not add up", () => {
    const ctx = context({ policy: { restartCap: 1 } });
    const g = gate()
      .packet(1)
      .verdict(1, "sha")
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "artifact_changed" })
      .verdict(2, "issues")
      .resubmit(2)
      .packet(3, { counted_round: 2 })
      .verdict(3, "sha");
    expect(decide(g.s, ctx).action).toMatchObject({ type: "packet", round: 4, restart_reason: "artifact_changed", counted_round: 2 });
  });

  it("a restart chain that points at itself does not hang decide", () => {
    const g = gate().packet(2, { counted_round: 1, restart_of: 2, restart_reason: "artifact_changed" }).verdict(2, "sha");
    const d = decide(g.s, context({ policy: { restartCap: 3 } }));
    expect(d.action).toMatchObject({ type: "packet", round: 3, restart_of: 2, restart_reason: "artifact_changed" });
  });

  it("issues below the cap → awaiting_author with the reasons (exit 3)", () => {
    const g = gate().packet(1).verdict(1, "issues");
    const d = decide(g.s, context());
    expect(d).toEqual({
      state: "awaiting_author",
      round: 1,
      action: null,
      detail: 'verdict is "issues", not "satisfied"; 1 blocking finding(s) remain',
    });
    expect(waitExitCode(g.s, d, UNCHANGED)).toBe(3);
  });

  it("a satisfied verdict that still lists blockers is not a pass → awaiting_author", () => {
    expect(decide(gate().packet(1).verdict(1, "blockers").s, context())).toMatchObject({ state: "awaiting_author", round: 1 });
  });

  it("issues + resubmit → next packet, counted round + 1, same reviewer, not a restart", () => {
    const g = gate().packet(1).verdict(1, "issues").resubmit(1);
    expect(decide(g.s, context()).action).toEqual({
      type: "packet",
      round: 2,
      counted_round: 2,
      restart_of: null,
      restart_reason: null,
      cap: 5,
      inherit: g.s.packets.get(1),
    });
  });

  it("issues at counted_round == cap → escalation cap_hit with force-pass|extend-cap|rework (even if resubmitted)", () => {
    const g = gate().packet(1).verdict(1, "issues").resubmit(1).packet(2, { counted_round: 2 }).verdict(2, "issues").resubmit(2);
    const d = decide(g.s, context({ policy: { cap: 2 } }));
    expect(d.action).toMatchObject({ type: "escalation", round: 2, reason: "cap_hit", options: CAP });
    expect((d.action as { detail: string }).detail).toMatch(/^round cap 2 reached with /);
  });

  it("issues beyond the cap (counted_round > cap) also escalate", () => {
    const g = gate().packet(1, { counted_round: 4 }).verdict(1, "issues");
    expect(decide(g.s, context({ policy: { cap: 3 } })).action).toMatchObject({ type: "escalation", reason: "cap_hit" });
  });

  it("counted rounds, not packet rounds, meet the cap: restarts before a counted round do not bring the cap closer", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "sha")
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "artifact_changed" })
      .verdict(2, "issues");
    expect(decide(g.s, context({ policy: { cap: 2 } }))).toMatchObject({ state: "awaiting_author", round: 2 });
  });

  it("a verdict whose result did not parse or named another packet is a malformed round", () => {
    for (const kind of ["unparsed", "packet_id"] as const) {
      const g = gate().packet(1).verdict(1, kind);
      expect(decide(g.s, context()).action).toMatchObject({
        type: "packet",
        round: 2,
        counted_round: 2,
        restart_of: 1,
        restart_reason: "malformed",
      });
    }
  });
});

describe("decide: rounds that ended without a result", () => {
  it("malformed → next round (consumes a counted round), restart_of pointing at it", () => {
    const g = gate().packet(1).failure(1, "malformed", "envelope missing");
    const d = decide(g.s, context());
    expect(d.action).toEqual({
      type: "packet",
      round: 2,
      counted_round: 2,
      restart_of: 1,
      restart_reason: "malformed",
      cap: 5,
      inherit: g.s.packets.get(1),
    });
    expect(d.detail).toBe("malformed: envelope missing");
  });

  it("two malformed terminations in a row → malformed_termination_x2 with the cap options", () => {
    const g = gate()
      .packet(1)
      .failure(1, "malformed")
      .packet(2, { counted_round: 2, restart_of: 1, restart_reason: "malformed" })
      .failure(2, "malformed", "sentinel repeated");
    const d = decide(g.s, context());
    expect(d.action).toMatchObject({
      type: "escalation",
      round: 2,
      reason: "malformed_termination_x2",
      options: CAP,
      // where to look before paying for another round
      detail:
        "two malformed terminations in a row: sentinel repeated — the reviewer's answers could not be read twice: check its " +
        "model and settings (`guild-bus providers`, the workers' log) before extend-cap",
    });
  });

  it("a malformed verdict (unparsed) followed by a malformed failure also counts as two in a row", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "unparsed")
      .packet(2, { counted_round: 2, restart_of: 1, restart_reason: "malformed" })
      .failure(2, "malformed");
    expect(decide(g.s, context()).action).toMatchObject({ type: "escalation", reason: "malformed_termination_x2" });
  });

  it("malformed, then a good issues round, then malformed again is not 'two in a row'", () => {
    const g = gate()
      .packet(1)
      .failure(1, "malformed")
      .packet(2, { counted_round: 2, restart_of: 1, restart_reason: "malformed" })
      .verdict(2, "issues")
      .resubmit(2)
      .packet(3, { counted_round: 3 })
      .failure(3, "malformed");
    expect(decide(g.s, context()).action).toMatchObject({ type: "packet", round: 4, counted_round: 4, restart_reason: "malformed" });
  });

  it("malformed at the cap → cap_hit", () => {
    const g = gate().packet(1).failure(1, "malformed", "envelope missing");
    const d = decide(g.s, context({ policy: { cap: 1 } }));
    expect(d.action).toMatchObject({
      type: "escalation",
      round: 1,
      reason: "cap_hit",
      options: CAP,
      detail: "round cap 1 reached (last round malformed: envelope missing)",
    });
  });

  it("no_verdict → escalation no_verdict with retry|force-pass|rework (never cap_hit, never skipped)", () => {
    const g = gate().packet(1).failure(1, "no_verdict", "reviewer refused twice");
    g.s.failures.set(1, { ...g.s.failures.get(1)!, end_key: "its worker's end key" });
    expect(decide(g.s, context({ policy: { cap: 1 } })).action).toEqual({
      type: "escalation",
      round: 1,
      reason: "no_verdict",
      detail: "reviewer refused twice",
      options: RETRY,
    });
  });

  it("a no_verdict without its worker's end key offers no force-pass: nothing shows a review ran", () => {
    const g = gate().packet(1).failure(1, "no_verdict", "the reviewer timed out");
    expect(decide(g.s, context()).action).toMatchObject({ type: "escalation", reason: "no_verdict", options: ["retry", "rework"] });
    const manual = gate().packet(1, { reviewer_adapter: "manual", reviewer_provider: "manual" }).failure(1, "no_verdict");
    expect(decide(manual.s, context()).action).toMatchObject({ options: RETRY });
  });

  it("unavailable → select again without that reviewer (never hard-block), same counted round", () => {
    const g = gate().packet(1).failure(1, "unavailable", "codex not on PATH");
    const P = g.s.packets.get(1)!;
    expect(decide(g.s, context()).action).toEqual({
      type: "packet",
      round: 2,
      counted_round: 1,
      restart_of: 1,
      restart_reason: "degraded",
      cap: 5,
      inherit: null,
      exclude: [P.reviewer_provider],
      excludeWhy: "codex not on PATH", // quoted if nobody else can review
    });
  });

  it("unavailable again after re-selecting → escalation unavailable; awaiting it exits 5", () => {
    const g = gate()
      .packet(1)
      .failure(1, "unavailable")
      .packet(2, { restart_of: 1, restart_reason: "degraded" })
      .failure(2, "unavailable", "no reviewer left");
    expect(decide(g.s, context()).action).toEqual({
      type: "escalation",
      round: 2,
      reason: "unavailable",
      detail: "no reviewer left",
      options: RETRY,
    });
    g.escalation(2, "unavailable", RETRY);
    const d = decide(g.s, context());
    expect(d).toMatchObject({ state: "awaiting_decision", round: 2 });
    expect(waitExitCode(g.s, d, UNCHANGED)).toBe(5);
  });

  it("a failure outranks a verdict for the same round", () => {
    const g = gate().packet(1).verdict(1, "pass").failure(1, "no_verdict");
    expect(decide(g.s, context()).action).toMatchObject({ type: "escalation", reason: "no_verdict" });
  });
});

describe("decide: human decisions on an escalation", () => {
  const capHit = () => gate().packet(1).verdict(1, "issues").escalation(1, "cap_hit", CAP);

  it("no decision → awaiting_decision (exit 4)", () => {
    const g = capHit();
    const d = decide(g.s, context({ policy: { cap: 1 } }));
    expect(d).toMatchObject({ state: "awaiting_decision", round: 1, action: null });
    expect(d.detail).toContain("cap_hit");
    expect(waitExitCode(g.s, d, UNCHANGED)).toBe(4);
  });

  it("force-pass → force_passed outcome (exit 0 once written)", () => {
    const g = capHit().decision(1, "force-pass");
    const d = decide(g.s, context({ policy: { cap: 1 } }));
    expect(d.action).toEqual({ type: "outcome", status: "force_passed", reason: "human force-pass after cap_hit", round: 1 });
    g.outcome("force_passed", 1);
    expect(waitExitCode(g.s, decide(g.s, context()), UNCHANGED)).toBe(0);
  });

  it("force-pass passes the bytes its round sent: it ends the gate whatever the artifact holds now (unreadable or edited)", () => {
    const g = capHit().decision(1, "force-pass");
    const gone = { ok: false as const, problem: "artifact_missing" as const, detail: "docs/spec.md does not exist" };
    const edited = { ok: true as const, sha: SHA_B, rawSha: SHA_B };
    for (const artifact of [gone, edited])
      expect(decide(g.s, context({ policy: { cap: 1 }, artifact })).action).toMatchObject({ type: "outcome", status: "force_passed" });
  });

  it("a pass whose bytes are no longer the artifact's exits 2, as check judges it; a gate that did not pass keeps its code", () => {
    const edited = { ok: true as const, sha: SHA_B, rawSha: SHA_B };
    const rawEdited = { ok: true as const, sha: SHA_A, rawSha: SHA_B }; // an edit inside a redacted region
    const gone = { ok: false as const, problem: "artifact_missing" as const, detail: "docs/spec.md does not exist" };
    for (const status of ["satisfied", "force_passed"] as const) {
      const g = gate()
        .packet(1)
        .verdict(1, status === "satisfied" ? "pass" : "issues");
      g.outcome(status, 1, { artifact_raw_sha256: RAW_SHA });
      const d = decide(g.s, context());
      expect(waitExitCode(g.s, d, UNCHANGED), status).toBe(0);
      for (const now of [edited, rawEdited, gone]) expect(waitExitCode(g.s, d, now), `${status} ${JSON.stringify(now)}`).toBe(2);
    }
    const reworked = gate().packet(1).verdict(1, "issues");
    reworked.outcome("rework", 1);
    expect(waitExitCode(reworked.s, decide(reworked.s, context()), edited)).toBe(3);
  });

  it("the human deciding is told when the artifact changed since the escalated round was sent", () => {
    const g = capHit();
    const edited = decide(g.s, context({ policy: { cap: 1 }, artifact: { ok: true, sha: SHA_B, rawSha: SHA_B } }));
    expect(edited.detail).toContain("the artifact changed since round 1 was sent: a force-pass passes the bytes round 1 sent, not these");
    expect(decide(g.s, context({ policy: { cap: 1 } })).detail).not.toContain("changed since");
    // an escalation that offers no force-pass gets no word about one
    const noForcePass = gate().packet(1).verdict(1, "issues").escalation(1, "human_checkpoint", ["continue", "stop", "rework"]);
    const checkpoint = decide(noForcePass.s, context({ policy: { cap: 3 }, artifact: { ok: true, sha: SHA_B, rawSha: SHA_B } }));
    expect(checkpoint.detail).not.toContain("force-pass");
  });

  it("rework → rework outcome (exit 3 once written)", () => {
    const g = capHit().decision(1, "rework");
    expect(decide(g.s, context({ policy: { cap: 1 } })).action).toEqual({
      type: "outcome",
      status: "rework",
      reason: "human chose rework after cap_hit",
      round: 1,
    });
    g.outcome("rework", 1);
    expect(waitExitCode(g.s, decide(g.s, context()), UNCHANGED)).toBe(3);
  });

  it("extend-cap N → cap + N, the gate waits for the author, then continues at counted round + 1 with the new cap", () => {
    const g = capHit().decision(1, "extend-cap", 2);
    const ctx = context({ policy: { cap: 1 } });
    expect(effectiveCap(g.s, ctx.policy)).toBe(3);
    const d = decide(g.s, ctx);
    expect(d).toEqual({ state: "awaiting_author", round: 1, action: null, detail: "cap extended: revise the artifact and resubmit" });
    expect(waitExitCode(g.s, d, UNCHANGED)).toBe(3);
    g.resubmit(1);
    expect(decide(g.s, ctx).action).toEqual({
      type: "packet",
      round: 2,
      counted_round: 2,
      restart_of: null,
      restart_reason: null,
      cap: 3,
      inherit: g.s.packets.get(1),
    });
  });

  it("after an extension the loop runs exactly N more counted rounds before the next cap_hit", () => {
    const ctx = context({ policy: { cap: 1 } });
    const g = capHit().decision(1, "extend-cap", 2).resubmit(1);
    settle(g.s, ctx);
    g.verdict(2, "issues").resubmit(2);
    expect(settle(g.s, ctx).decision).toMatchObject({ state: "reviewing", round: 3 });
    expect(g.s.packets.get(3)).toMatchObject({ counted_round: 3, cap: 3 });
    g.verdict(3, "issues");
    const { decision, actions } = settle(g.s, ctx);
    expect(actions).toEqual([expect.objectContaining({ type: "escalation", round: 3, reason: "cap_hit" })]);
    expect(decision.state).toBe("awaiting_decision");
  });

  it("extend-cap without extend_by adds one round", () => {
    expect(effectiveCap(capHit().decision(1, "extend-cap").s, context({ policy: { cap: 1 } }).policy)).toBe(2);
  });

  it("extend-cap on malformed_termination_x2 → next round straight away (nothing for the author to revise)", () => {
    const g = gate()
      .packet(1)
      .failure(1, "malformed")
      .packet(2, { counted_round: 2, restart_of: 1, restart_reason: "malformed" })
      .failure(2, "malformed")
      .escalation(2, "malformed_termination_x2", CAP)
      .decision(2, "extend-cap", 1);
    // a fresh round: one more malformed answer is not "twice in a row" again
    expect(decide(g.s, context()).action).toMatchObject({
      type: "packet",
      round: 3,
      counted_round: 3,
      restart_of: null,
      restart_reason: null,
      cap: 6,
    });
  });

  it("retry on no_verdict / unavailable / identity_unverified / restart_cap_hit → new packet, same counted round", () => {
    for (const reason of ["no_verdict", "unavailable", "identity_unverified", "restart_cap_hit"] as const) {
      const g = gate().packet(1).packet(2, { counted_round: 2 }).failure(2, "no_verdict").escalation(2, reason, RETRY).decision(2, "retry");
      expect(decide(g.s, context()).action).toEqual({
        type: "packet",
        round: 3,
        counted_round: 2,
        restart_of: 2,
        restart_reason: "retry",
        cap: 5,
        inherit: g.s.packets.get(2),
      });
    }
  });

  it("force-pass and rework also end no_verdict / unavailable escalations", () => {
    const g = gate().packet(1).failure(1, "unavailable").escalation(1, "unavailable", RETRY).decision(1, "force-pass");
    expect(decide(g.s, context()).action).toMatchObject({
      type: "outcome",
      status: "force_passed",
      reason: "human force-pass after unavailable",
    });
  });

  it("a choice that is not among the options is ignored: still awaiting_decision", () => {
    const cases: Array<[ReturnType<typeof gate>, string]> = [
      [capHit().decision(1, "retry"), "cap_hit"],
      [capHit().decision(1, "override"), "cap_hit"],
      [gate().packet(1).failure(1, "no_verdict").escalation(1, "no_verdict", RETRY).decision(1, "extend-cap", 3), "no_verdict"],
    ];
    for (const [g, reason] of cases) {
      const d = decide(g.s, context({ policy: { cap: 1 } }));
      expect(d).toMatchObject({ state: "awaiting_decision", round: 1, action: null });
      expect(d.detail).toContain(reason);
    }
  });

  it("an ignored extend-cap decision does not extend the cap", () => {
    const g = gate().packet(1).failure(1, "no_verdict").escalation(1, "no_verdict", RETRY).decision(1, "extend-cap", 3);
    expect(effectiveCap(g.s, context({ policy: { cap: 1 } }).policy)).toBe(1);
  });

  it("a decision with no escalation to answer changes nothing (the cap is not silently extended)", () => {
    const g = gate().packet(1).verdict(1, "issues").decision(1, "extend-cap", 5);
    const d = decide(g.s, context({ policy: { cap: 1 } }));
    expect(d.action).toMatchObject({ type: "escalation", round: 1, reason: "cap_hit" });
  });

  it("a decision for an older round does not answer the current escalation", () => {
    const g = gate()
      .packet(1)
      .failure(1, "no_verdict")
      .escalation(1, "no_verdict", RETRY)
      .decision(1, "retry")
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "retry" })
      .failure(2, "unavailable")
      .escalation(2, "unavailable", RETRY);
    expect(decide(g.s, context())).toMatchObject({ state: "awaiting_decision", round: 2 });
  });
});

describe("decide: a whole gate, driven like the broker", () => {
  it("issues → resubmit → sha restart → satisfied: packets, counted rounds and outcome", () => {
    const ctx = context({ policy: { cap: 2 } });
    const g = gate();
    expect(settle(g.s, ctx).decision).toMatchObject({ state: "reviewing", round: 1 });
    g.verdict(1, "issues");
    expect(settle(g.s, ctx).decision.state).toBe("awaiting_author");
    g.resubmit(1);
    settle(g.s, ctx);
    g.verdict(2, "sha");
    settle(g.s, ctx);
    g.verdict(3, "pass");
    const { decision, actions } = settle(g.s, ctx);
    expect(actions).toEqual([
      { type: "outcome", status: "satisfied", reason: "all five gate-pass conditions hold", round: 3, independence: "strong" },
    ]);
    expect(decision).toMatchObject({ state: "done", round: 3 });
    expect([...g.s.packets.values()].map((p) => [p.round, p.counted_round, p.restart_of, p.restart_reason])).toEqual([
      [1, 1, null, null],
      [2, 2, null, null],
      [3, 2, 2, "artifact_changed"],
    ]);
    expect(g.s.packets.get(3)!.packet_id).toBe(packetId("run1", "G-spec", 3));
    expect(g.s.packets.get(3)!.artifact_sha256).toBe(SHA_A);
    expect(waitExitCode(g.s, decision, UNCHANGED)).toBe(0);
    expect(openRound(g.s)).toBe(3);
  });

  it("skipped once written → done, exit 0", () => {
    const g = gate();
    const { decision } = settle(g.s, context({ policy: { required: false } }));
    expect(decision).toMatchObject({ state: "done", round: 0 });
    expect(g.s.outcome!.status).toBe("skipped");
    expect(waitExitCode(g.s, decision, UNCHANGED)).toBe(0);
  });

  it("decide does not mutate the snapshot", () => {
    const g = gate().packet(1).verdict(1, "issues").resubmit(1).decision(1, "force-pass");
    const before = structuredClone(g.s);
    decide(g.s, context());
    expect(g.s).toEqual(before);
    expect(packet(1)).toEqual(g.s.packets.get(1));
  });
});

const CHECKPOINT: DecisionChoice[] = ["continue", "stop", "rework"];
const score = context({ policy: { stop: "score", cap: 4 } });
const hard = context({ policy: { difficulty: "hard" } });

describe("decide: the score stop policy (ARIS: score ≥ 6 AND readiness ready|almost)", () => {
  it("a positive score with the checksum-bound conditions passes, whatever the verdict word", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "pass", { result_verdict: "issues", score_gate: scoreGate("positive") });
    g.s.verdicts.get(1)!.gate_pass.conditions.satisfied = false;
    expect(decide(g.s, score).action).toEqual({
      type: "outcome",
      status: "satisfied",
      round: 1,
      independence: "strong",
      reason: "score gate passed (score 6/10, readiness almost) with the checksum-bound conditions",
    });
    // the same verdict under the verdict policy is not a pass
    expect(decide(g.s, context())).toMatchObject({ state: "awaiting_author", round: 1 });
  });

  it("a satisfied verdict with a score that is not positive does not pass: the author's turn, with the score's reason", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "pass", { score_gate: scoreGate("negative") });
    const d = decide(g.s, score);
    expect(d).toMatchObject({ state: "awaiting_author", round: 1, action: null });
    expect(d.detail).toMatch(/score 5\.99\/10, readiness almost/);
    expect(decide(g.s, context()).action).toMatchObject({ type: "outcome", status: "satisfied" }); // verdict policy ignores the score
  });

  it("the score never replaces the checksum-bound conditions: blockers, a stale sha or another packet still fail", () => {
    const blockers = gate()
      .packet(1)
      .verdict(1, "blockers", { score_gate: scoreGate("positive") });
    expect(decide(blockers.s, score)).toMatchObject({ state: "awaiting_author", detail: "2 blocking finding(s) remain" });
    const sha = gate()
      .packet(1)
      .verdict(1, "sha", { score_gate: scoreGate("positive") });
    expect(decide(sha.s, score).action).toMatchObject({ type: "packet", restart_reason: "artifact_changed" });
    const other = gate()
      .packet(1)
      .verdict(1, "packet_id", { score_gate: scoreGate("positive") });
    expect(decide(other.s, score).action).toMatchObject({ type: "packet", restart_reason: "malformed" });
  });

  it("an unavailable score (out of range, unparsable, or no evaluation at all) escalates score_unavailable; retry keeps the count", () => {
    for (const over of [{ score_gate: scoreGate("unavailable") }, {}]) {
      const g = gate().packet(1).verdict(1, "pass", over);
      const d = decide(g.s, score);
      expect(d.action).toMatchObject({ type: "escalation", round: 1, reason: "score_unavailable", options: RETRY });
      expect((d.action as { detail: string }).detail).toMatch(/^no usable score from the reviewer: /);
      g.escalation(1, "score_unavailable", RETRY).decision(1, "retry");
      expect(decide(g.s, score).action).toMatchObject({ type: "packet", round: 2, counted_round: 1, restart_reason: "retry" });
    }
  });

  it("a round with blocking findings and no usable score failed on its blockers: the author's turn, not a retry", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "issues", { score_gate: scoreGate("unavailable") });
    const d = decide(g.s, score);
    expect(d.action).toBeNull();
    expect(d.state).toBe("awaiting_author");
  });

  it("verdictPasses and failReasons state the policy in one place", () => {
    const v = verdict(1, "issues", { score_gate: scoreGate("positive") });
    v.gate_pass.conditions.no_blockers = true;
    expect(verdictPasses(v, "score")).toBe(true);
    expect(verdictPasses(v, "verdict")).toBe(false);
    expect(failReasons(verdict(1, "issues", { score_gate: scoreGate("negative") }), "score")).toEqual([
      "1 blocking finding(s) remain",
      scoreGate("negative").reasons[0],
    ]);
  });

  it("the cap under the score policy defaults to ARIS's 4; --cap and settings still override", () => {
    expect(resolvePolicy(request({ stop: "score" }), {}).cap).toBe(4);
    expect(resolvePolicy(request(), { stop: "score" }).cap).toBe(4);
    expect(resolvePolicy(request({ stop: "score", cap: 2 }), {}).cap).toBe(2);
    expect(resolvePolicy(request({ stop: "score" }), { codex_cap: 6 }).cap).toBe(6);
    expect(resolvePolicy(request({ stop: "verdict" }), { stop: "score" }).cap).toBe(5);
  });
});

describe("decide: the debate (hard and nightmare)", () => {
  it("a rebuttal of a round with blocking findings → a ruling packet on the same counted round, restart_of that round", () => {
    const g = gate().packet(1).verdict(1, "issues").rebuttal(1);
    expect(decide(g.s, hard).action).toEqual({
      type: "packet",
      round: 2,
      counted_round: 1,
      restart_of: 1,
      restart_reason: "ruling",
      cap: 5,
      inherit: g.s.packets.get(1),
    });
    expect(decide(g.s, context({ policy: { difficulty: "nightmare" } })).action).toMatchObject({ restart_reason: "ruling" });
  });

  it("a rebuttal after the artifact changed since its round was sent → a full round, never a ruling on the new bytes", () => {
    const g = gate().packet(1, { artifact_raw_sha256: RAW_SHA }).verdict(1, "issues").rebuttal(1);
    for (const artifact of [
      { ok: true as const, sha: SHA_B, rawSha: SHA_B },
      { ok: true as const, sha: SHA_A, rawSha: SHA_B }, // an edit inside a redacted region
    ]) {
      const d = decide(g.s, context({ policy: { difficulty: "hard" }, artifact }));
      expect(d.action).toMatchObject({ type: "packet", round: 2, counted_round: 2, restart_of: null, restart_reason: null });
      expect(d.detail).toContain("the artifact changed since round 1 was sent: a full round reviews it");
    }
    expect(decide(g.s, context({ policy: { difficulty: "hard" } })).action).toMatchObject({ restart_reason: "ruling" });
  });

  it("a retried ruling rules again on the contested findings (never a plain round, which a second rebuttal could contest)", () => {
    const g = gate()
      .packet(1, { artifact_raw_sha256: RAW_SHA })
      .verdict(1, "issues")
      .rebuttal(1)
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "ruling", artifact_raw_sha256: RAW_SHA })
      .failure(2, "no_verdict")
      .escalation(2, "no_verdict", ["retry", "force-pass", "rework"])
      .decision(2, "retry");
    expect(decide(g.s, hard).action).toMatchObject({ type: "packet", round: 3, counted_round: 1, restart_of: 1, restart_reason: "ruling" });
    // the artifact edited meanwhile: an ordinary retry on the new bytes, as a rebuttal of edited bytes gets a full round
    const edited = decide(g.s, context({ policy: { difficulty: "hard" }, artifact: { ok: true, sha: SHA_B, rawSha: SHA_B } }));
    expect(edited.action).toMatchObject({ round: 3, counted_round: 1, restart_of: 2, restart_reason: "retry" });
    g.packet(3, { counted_round: 1, restart_of: 1, restart_reason: "ruling" }).verdict(3, "issues");
    expect(rebuttalRefusal(g.s, 3)).toMatch(/a ruling is final/);
  });

  it("the rebuttal is taken before a resubmit of the same round", () => {
    const g = gate().packet(1).verdict(1, "issues").rebuttal(1).resubmit(1);
    expect(decide(g.s, hard).action).toMatchObject({ restart_reason: "ruling" });
  });

  it("a rebuttal is ignored at medium, after a ruling (a ruling is final), and when nothing blocks", () => {
    expect(decide(gate().packet(1).verdict(1, "issues").rebuttal(1).s, context())).toMatchObject({ state: "awaiting_author" });
    const ruled = gate()
      .packet(1)
      .verdict(1, "issues")
      .rebuttal(1)
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "ruling" })
      .verdict(2, "issues")
      .rebuttal(2);
    expect(decide(ruled.s, hard)).toMatchObject({ state: "awaiting_author", round: 2 });
    ruled.resubmit(2);
    expect(decide(ruled.s, hard).action).toMatchObject({ type: "packet", round: 3, counted_round: 2, restart_reason: null });
    const nothing = gate().packet(1).verdict(1, "issues", { blocking_count: 0 }).rebuttal(1);
    expect(decide(nothing.s, hard)).toMatchObject({ state: "awaiting_author" });
  });

  it("a round whose own files say it can never be contested makes its rebuttal file invalid (the reader reports it)", () => {
    const medium = gate().packet(1, { difficulty: "medium" }).verdict(1, "issues");
    expect(rebuttalRefusal(medium.s, 1)).toBe("rebuttals need difficulty hard or nightmare; this gate runs at medium");
    const ruling = gate()
      .packet(1, { difficulty: "hard" })
      .verdict(1, "issues")
      .packet(2, { difficulty: "hard", counted_round: 1, restart_of: 1, restart_reason: "ruling" })
      .verdict(2, "issues");
    expect(rebuttalRefusal(ruling.s, 1)).toBeNull();
    expect(rebuttalRefusal(ruling.s, 2)).toMatch(/round 2 is the ruling on a rebuttal, and a ruling is final/);
    const nothing = gate().packet(1, { difficulty: "hard" }).verdict(1, "issues", { blocking_count: 0 });
    expect(rebuttalRefusal(nothing.s, 1)).toBe("round 1 has no blocking findings to contest");
    const many = gate()
      .packet(1, { difficulty: "nightmare" })
      .verdict(1, "issues", { blocking_count: MAX_LISTED_FINDINGS + 1 });
    expect(rebuttalRefusal(many.s, 1)).toMatch(/more than a ruling round lists/);
    const quorum = gate().memberPacket(1, "codex", "openai", { need: 1, of: 1 }, { difficulty: "hard" });
    expect(rebuttalRefusal(quorum.s, 1)).toMatch(/a quorum round's findings are not contested/);
    // what the files do not say yet is not judged: the verdict still to come, a round not issued, no recorded difficulty
    expect(rebuttalRefusal(gate().packet(1, { difficulty: "hard" }).s, 1)).toBeNull();
    expect(rebuttalRefusal(gate().packet(1, { difficulty: "hard" }).s, 2)).toBeNull();
    expect(rebuttalRefusal(gate().packet(1).verdict(1, "issues").s, 1)).toBeNull();
    expect(rebuttalRefusal(gate().packet(1).verdict(1, "issues").s, 1, "medium")).toMatch(/this gate runs at medium/);
  });

  it("a rebuttal of more findings than a ruling packet lists is ignored: the unlisted ones could never be ruled on", () => {
    const listed = gate().packet(1).verdict(1, "issues", { blocking_count: MAX_LISTED_FINDINGS }).rebuttal(1);
    expect(decide(listed.s, hard).action).toMatchObject({ restart_reason: "ruling" });
    const more = gate()
      .packet(1)
      .verdict(1, "issues", { blocking_count: MAX_LISTED_FINDINGS + 1 })
      .rebuttal(1);
    expect(decide(more.s, hard)).toMatchObject({ state: "awaiting_author", round: 1 });
    expect(contestRefusal(more.s, 1, { difficulty: "hard" })).toBe(
      `round 1 has 51 blocking findings, more than a ruling round lists (50): revise the artifact and resubmit`,
    );
  });

  it("an upheld ruling keeps the gate closed even when the reviewer left blocking_findings empty", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "issues")
      .rebuttal(1)
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "ruling" })
      .verdict(2, "pass", { rulings: { upheld: 1, withdrawn: 1 } });
    const d = decide(g.s, hard);
    expect(d).toMatchObject({ state: "awaiting_author", round: 2, detail: "1 contested finding(s) upheld" });
    g.s.verdicts.get(2)!.rulings = { upheld: 0, withdrawn: 2 };
    expect(decide(g.s, hard).action).toMatchObject({ type: "outcome", status: "satisfied", round: 2 });
  });

  it("after extend-cap at the cap, the author may contest instead of resubmitting", () => {
    const g = gate().packet(1).verdict(1, "issues").escalation(1, "cap_hit", CAP).decision(1, "extend-cap", 1).rebuttal(1);
    expect(decide(g.s, context({ policy: { difficulty: "hard", cap: 1 } })).action).toMatchObject({
      type: "packet",
      round: 2,
      counted_round: 1,
      restart_reason: "ruling",
      cap: 2,
    });
  });
});

describe("decide: the human checkpoint", () => {
  const cp = context({ policy: { humanCheckpoint: true } });

  it("a round that does not end the gate waits for continue|stop|rework (exit 4); a pass ends the gate without a checkpoint", () => {
    const g = gate().packet(1).verdict(1, "issues");
    const d = decide(g.s, cp);
    expect(d.action).toMatchObject({ type: "escalation", round: 1, reason: "human_checkpoint", options: CHECKPOINT });
    g.escalation(1, "human_checkpoint", CHECKPOINT);
    expect(waitExitCode(g.s, decide(g.s, cp), UNCHANGED)).toBe(4);
    expect(decide(gate().packet(1).verdict(1, "pass").s, cp).action).toMatchObject({ type: "outcome", status: "satisfied" });
  });

  it("at the cap the cap escalation is the checkpoint; restarts and malformed rounds are bus mechanics, not checkpoints", () => {
    expect(decide(gate().packet(1).verdict(1, "issues").s, context({ policy: { humanCheckpoint: true, cap: 1 } })).action).toMatchObject({
      reason: "cap_hit",
    });
    expect(decide(gate().packet(1).verdict(1, "sha").s, cp).action).toMatchObject({ type: "packet", restart_reason: "artifact_changed" });
    expect(decide(gate().packet(1).failure(1, "malformed").s, cp).action).toMatchObject({ type: "packet", restart_reason: "malformed" });
  });

  it("continue → the loop goes on as it would: the author's turn, then the next round (or a ruling at hard)", () => {
    const g = gate()
      .packet(1)
      .verdict(1, "issues")
      .escalation(1, "human_checkpoint", CHECKPOINT)
      .decision(1, "continue", undefined, "check the rollback");
    expect(decide(g.s, cp)).toMatchObject({ state: "awaiting_author", round: 1 });
    g.resubmit(1);
    expect(decide(g.s, cp).action).toMatchObject({ type: "packet", round: 2, counted_round: 2, restart_reason: null });
    const h = gate().packet(1).verdict(1, "issues").escalation(1, "human_checkpoint", CHECKPOINT).decision(1, "continue").rebuttal(1);
    expect(decide(h.s, context({ policy: { humanCheckpoint: true, difficulty: "hard" } })).action).toMatchObject({
      restart_reason: "ruling",
    });
  });

  it("stop ends the gate stopped (exit 3, never a pass); rework ends it rework", () => {
    const g = gate().packet(1).verdict(1, "issues").escalation(1, "human_checkpoint", CHECKPOINT).decision(1, "stop");
    const { decision } = settle(g.s, cp);
    expect(g.s.outcome).toMatchObject({ status: "stopped", reason: "human stopped the loop after human_checkpoint" });
    expect(waitExitCode(g.s, decision, UNCHANGED)).toBe(3);
    const r = gate().packet(1).verdict(1, "issues").escalation(1, "human_checkpoint", CHECKPOINT).decision(1, "rework");
    expect(decide(r.s, cp).action).toMatchObject({ type: "outcome", status: "rework" });
  });
});

describe("decide: requests the bus cannot serve", () => {
  const refused = context({ policy: { difficulty: "nightmare", refusal: "difficulty nightmare … manual" } });

  it("a refusal escalates request_refused before round 1; rework ends it; nothing else issues a packet", () => {
    const g = gate();
    expect(decide(g.s, refused).action).toEqual({
      type: "escalation",
      round: 0,
      reason: "request_refused",
      detail: "difficulty nightmare … manual",
      options: ["rework"],
    });
    g.escalation(0, "request_refused", ["rework"]);
    expect(decide(g.s, refused)).toMatchObject({ state: "awaiting_decision", round: 0 });
    g.decision(0, "rework");
    expect(decide(g.s, refused).action).toEqual({
      type: "outcome",
      status: "rework",
      reason: "human chose rework after request_refused",
      round: 0,
    });
  });

  it("an override of the codex-skip block never issues a packet to a refused request", () => {
    const g = gate().escalation(0, "codex_skip_blocked", ["override", "rework"]).decision(0, "override");
    expect(decide(g.s, { ...refused, codexSkip: { blocked: true, enforcement: "block" } })).toMatchObject({
      state: "awaiting_decision",
      round: 0,
      action: null,
    });
  });

  it("a round-0 unavailable escalation (no file-reading reviewer) waits for rework", () => {
    const g = gate().escalation(0, "unavailable", ["rework"]);
    expect(decide(g.s, context())).toMatchObject({ state: "awaiting_decision", round: 0 });
    expect(waitExitCode(g.s, decide(g.s, context()), UNCHANGED)).toBe(5);
    g.decision(0, "rework");
    expect(decide(g.s, context()).action).toMatchObject({ type: "outcome", status: "rework", round: 0 });
  });
});

describe("decide: a copilot pass needs a different-family finalizer (ARIS compatibility drive)", () => {
  const COPILOT = { reviewer_provider: "copilot", reviewer_adapter: "copilot", reviewer_model: null, reviewer_family: "openai" as const };

  it("copilot satisfied → a finalizer packet on the same counted round, selected afresh without the copilot provider", () => {
    const g = gate().packet(1, COPILOT).verdict(1, "pass");
    const d = decide(g.s, context());
    expect(d.state).toBe("broker");
    expect(d.action).toEqual({
      type: "packet",
      round: 2,
      counted_round: 1,
      restart_of: 1,
      restart_reason: "finalizer",
      cap: 5,
      inherit: null,
      exclude: ["copilot"],
    });
  });

  it("even an identity or weak problem of the copilot result asks for the finalizer, never a satisfied outcome", () => {
    const unknown = gate().packet(1, COPILOT).verdict(1, "pass", { independence_violation: true, reviewer_family: "unknown" });
    expect(decide(unknown.s, context()).action).toMatchObject({ type: "packet", restart_reason: "finalizer" });
    const weak = gate()
      .packet(1, { ...COPILOT, independence: "weak" })
      .verdict(1, "pass");
    expect(decide(weak.s, context()).action).toMatchObject({ type: "packet", restart_reason: "finalizer" });
  });

  it("only the finalizer's pass ends the gate satisfied", () => {
    const g = gate()
      .packet(1, COPILOT)
      .verdict(1, "pass")
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "finalizer" })
      .verdict(2, "pass");
    expect(decide(g.s, context()).action).toEqual({
      type: "outcome",
      status: "satisfied",
      reason: "all five gate-pass conditions hold",
      round: 2,
      independence: "strong",
    });
  });

  it("a finalizer whose reviewer reports the author's family confirms nothing: a human decides (SPEC §14 rule 10)", () => {
    const g = gate()
      .packet(1, COPILOT)
      .verdict(1, "pass")
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "finalizer" })
      .verdict(2, "pass", { independence_violation: true, reviewer_model: "claude-opus-4-1", reviewer_family: "anthropic" });
    expect(decide(g.s, context()).action).toMatchObject({
      type: "escalation",
      round: 2,
      reason: "identity_unverified",
      options: RETRY,
      detail: expect.stringMatching(/anthropic, the author's family/),
    });
  });

  it("a finalizer with issues does not pass: the author revises, and the finalizer's reviewer continues", () => {
    const g = gate()
      .packet(1, COPILOT)
      .verdict(1, "pass")
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "finalizer" })
      .verdict(2, "issues");
    expect(decide(g.s, context())).toMatchObject({ state: "awaiting_author", round: 2, action: null });
    g.resubmit(2);
    expect(decide(g.s, context()).action).toMatchObject({
      type: "packet",
      round: 3,
      counted_round: 2,
      restart_reason: null,
      inherit: { reviewer_provider: "codex" },
    });
  });

  it("copilot with issues is an ordinary round: no finalizer", () => {
    const g = gate().packet(1, COPILOT).verdict(1, "issues");
    expect(decide(g.s, context())).toMatchObject({ state: "awaiting_author", action: null });
  });

  it("a finalizer that proves unavailable goes to a human at once (re-selection could land on copilot again)", () => {
    const g = gate()
      .packet(1, COPILOT)
      .verdict(1, "pass")
      .packet(2, { counted_round: 1, restart_of: 1, restart_reason: "finalizer" })
      .failure(2, "unavailable");
    expect(decide(g.s, context()).action).toMatchObject({ type: "escalation", round: 2, reason: "unavailable", options: RETRY });
  });

  it("settles: copilot pass, finalizer pass → satisfied at the finalizer's round with one counted round", () => {
    const g = gate();
    settle(g.s, context(), COPILOT);
    g.verdict(1, "pass");
    settle(g.s, context(), COPILOT);
    expect(g.s.packets.get(2)).toMatchObject({ restart_reason: "finalizer", reviewer_adapter: "codex", counted_round: 1 });
    expect(g.s.outcome).toBeNull();
    g.verdict(2, "pass");
    settle(g.s, context(), COPILOT);
    expect(g.s.outcome).toMatchObject({ status: "satisfied", final_round: 2 });
  });
});

describe("decide: a round is judged under its own packet's stop policy (adversarial check)", () => {
  it("settings switched to stop=score after an issues verdict do not turn a positive score into a pass", () => {
    const conditions = { parses: true, packet_id_match: true, sha256_match: true, satisfied: false, no_blockers: true };
    const g = gate()
      .packet(1, { stop: "verdict" })
      .verdict(1, "issues", {
        score_gate: scoreGate("positive"),
        blocking_count: 0,
        gate_pass: { pass: false, conditions, recomputed_sha256: SHA_A, reasons: ['verdict is "issues", not "satisfied"'] },
      });
    expect(decide(g.s, context({ policy: { stop: "verdict" } }))).toMatchObject({ state: "awaiting_author" });
    const d = decide(g.s, context({ policy: { stop: "score" } }));
    expect(d).toMatchObject({ state: "awaiting_author", action: null });
  });
});

describe("decide: an edit inside a redacted region is still an edit (adversarial check)", () => {
  it("a pass whose scrubbed sha still matches but whose raw bytes changed since the packet restarts the round", () => {
    const g = gate()
      .packet(1, { artifact_raw_sha256: "d".repeat(64) })
      .verdict(1, "pass");
    expect(decide(g.s, context()).action).toMatchObject({ type: "outcome", status: "satisfied" });
    const edited = decide(g.s, context({ artifact: { ok: true, sha: SHA_A, rawSha: "e".repeat(64) } }));
    expect(edited.action).toMatchObject({ type: "packet", round: 2, restart_reason: "artifact_changed", restart_of: 1 });
  });
});
