// `status --verify` and `check` (SPEC §17): an ended gate's pass re-derives from its files, or says why not. Each case
// is an outcome a broker would never write, which a careless or hostile writer could.
import { describe, expect, it } from "vitest";
import { reverifyOutcome } from "../../src/core/reverify.js";
import { sha256Hex } from "../../src/core/sha.js";
import { type Outcome, type PacketFrontMatter, type Request, Settings, type VerdictFile } from "../../src/spec/schemas.js";
import { DELIVERY_KEY, gate, outcome, packet, policy, SETTINGS } from "../helpers/snapshots.js";

const TEXT = "# Spec\n\nThe cache keeps 100 entries.\n";
const SHA = sha256Hex(TEXT);
const RAW = sha256Hex(`${TEXT}raw`);
const artifact = { ok: true as const, text: TEXT, sha: SHA, rawSha: RAW };
const RESULT = Buffer.from(
  JSON.stringify({
    schema_version: "review_result.v1",
    packet_id: packet(1).packet_id,
    artifact_sha256_reviewed: SHA,
    verdict: "satisfied",
    findings: [],
    blocking_findings: [],
    reviewer_model: "gpt-5",
    delivery_key: DELIVERY_KEY,
  }),
);

/** A gate that passed round 1 on TEXT, with what a case changes. */
function passed(o: { outcome?: Partial<Outcome>; packet?: Partial<PacketFrontMatter>; verdict?: Partial<VerdictFile> } = {}) {
  const g = gate()
    .packet(1, { artifact_sha256: SHA, ...o.packet })
    .attempt(1)
    .verdict(1, "pass", { result_sha256: sha256Hex(RESULT), artifact_sha256_reviewed: SHA, ...o.verdict });
  g.s.outcome = outcome("satisfied", 1, { artifact_sha256: SHA, artifact_raw_sha256: RAW, ...o.outcome });
  return g;
}
const input = {
  settings: SETTINGS,
  policy: policy(),
  artifact,
  resultBytes: (() => ({ ok: true as const, bytes: RESULT, text: RESULT.toString() })) as (round: number) => {
    ok: true;
    bytes: Buffer;
    text: string;
  },
};
const problems = (g: ReturnType<typeof passed>, over: Partial<typeof input> = {}) => reverifyOutcome(g.s, { ...input, ...over })!.problems;

/** A ruling round (2) on round 1's two findings, passed by a verdict that counted both withdrawn. */
function rulingRoundPassed() {
  const g = gate()
    .packet(1, { artifact_sha256: SHA })
    .verdict(1, "issues", { blocking_count: 2 })
    .packet(2, { artifact_sha256: SHA, counted_round: 1, restart_of: 1, restart_reason: "ruling" })
    .attempt(2)
    .verdict(2, "pass", { result_sha256: sha256Hex(RESULT), artifact_sha256_reviewed: SHA, rulings: { upheld: 0, withdrawn: 2 } });
  g.s.outcome = outcome("satisfied", 2, { artifact_sha256: SHA, artifact_raw_sha256: RAW });
  return g;
}

describe("reverifyOutcome", () => {
  it("a pass the broker wrote re-derives", () => {
    expect(problems(passed())).toEqual([]);
  });

  it("an outcome whose families contradict its independence or each other does not (one judgement, SPEC §6)", () => {
    const families = { author_family: "anthropic", reviewer_family: "openai", family_relation: "different" } as const;
    expect(problems(passed({ outcome: families }))).toEqual([]);
    expect(problems(passed({ outcome: { ...families, reviewer_family: "anthropic", family_relation: "same" } }))).toEqual([
      "independence strong, but the families it records are same",
    ]);
    expect(problems(passed({ outcome: { ...families, reviewer_family: "anthropic" } }))).toEqual([
      "family_relation different is not the relation of its author_family anthropic and reviewer_family anthropic",
    ]);
    // a weak pass may be of one family: that is what made it weak
    const weak = { ...families, reviewer_family: "anthropic", family_relation: "same", independence: "weak" } as const;
    expect(problems(passed({ outcome: weak }))).toEqual([]);
  });

  it("a verdict the reader left out is named with the reader's reason: a removed seal is not a missing verdict", () => {
    const g = passed();
    g.s.verdicts.delete(1);
    expect(problems(g)).toContain("no verdict-1.json bound to result-1.json");
    const reason = "verdict the verifier did not seal: its seal .verified/result-1.json is missing (removed, or never written)";
    g.s.problems.push({ file: "verdict-1.json", reason, mtimeMs: 0 });
    expect(problems(g)).toContain(`verdict-1.json: ${reason}`);
    expect(problems(g)).not.toContain("no verdict-1.json bound to result-1.json");
  });

  it("an outcome naming an earlier round while a later one was issued does not", () => {
    const g = passed().packet(2, { artifact_sha256: SHA });
    expect(problems(g)).toContain("the outcome names round 1, but round 2 was issued after it");
    // its own packet gone (or refused): said as that, not as a round 0 issued after it
    const bare = passed();
    bare.s.packets.delete(1);
    expect(problems(bare)).toContain("the outcome names round 1, but no valid packet issued it (the last round issued is 0)");
    expect(problems(bare).join("; ")).not.toMatch(/round 0 was issued after it/);
  });

  it("an edit inside a redacted region since the outcome is a change (the raw bytes are bound too)", () => {
    expect(problems(passed(), { artifact: { ...artifact, rawSha: "f".repeat(64) } })).toEqual([
      `the artifact's raw bytes changed since the outcome (an edit inside a redacted region; now ${"f".repeat(64)})`,
    ]);
    // an outcome from before the raw sha was recorded is held to its scrubbed sha only
    expect(
      problems(passed({ outcome: { artifact_raw_sha256: undefined } }), { artifact: { ...artifact, rawSha: "f".repeat(64) } }),
    ).toEqual([]);
  });

  it("an edit inside a redacted region before the outcome does not: the raw bytes must be those the packet sent", () => {
    const other = "e".repeat(64);
    const sent = `the artifact's raw bytes are not those packet-1.md sent (an edit inside a redacted region; packet ${other}, now ${RAW})`;
    expect(problems(passed({ packet: { artifact_raw_sha256: other } }))).toEqual([sent]);
    // an outcome without the raw sha is held to the packet's all the same
    expect(problems(passed({ packet: { artifact_raw_sha256: other }, outcome: { artifact_raw_sha256: undefined } }))).toEqual([sent]);
  });

  it("a plain edit after the packet is called an edit, not one inside a redacted region", () => {
    const other = "e".repeat(64);
    const found = problems(passed({ packet: { artifact_sha256: other, artifact_raw_sha256: other } }));
    expect(found).toContain(`the artifact's raw bytes are not those packet-1.md sent (edited since; packet ${other}, now ${RAW})`);
    expect(found.join("\n")).not.toContain("redacted region");
  });

  it("an outcome without a valid request.json does not: which artifact and policy it answers cannot be told", () => {
    const g = passed();
    g.s.request = null;
    expect(problems(g)).toEqual(["no valid request.json: the outcome cannot be re-derived from the files"]);
  });

  it("a pass or force-pass that binds no artifact bytes does not", () => {
    expect(problems(passed({ outcome: { artifact_sha256: null } }))).toContain(
      "the outcome binds no artifact bytes (artifact_sha256 is null)",
    );
    const forced = gate().packet(1).escalation(1, "cap_hit", ["force-pass"]).decision(1, "force-pass");
    forced.s.outcome = outcome("force_passed", 1, { artifact_sha256: null });
    expect(problems(forced)).toContain("the outcome binds no artifact bytes (artifact_sha256 is null)");
  });

  it("a force-pass re-derives only for the bytes its round's packet sent, not bytes edited in before the decision", () => {
    const forced = (bound: Partial<Outcome>) => {
      const g = gate().packet(1, { artifact_sha256: SHA, artifact_raw_sha256: RAW }).escalation(1, "cap_hit", ["force-pass"]);
      g.decision(1, "force-pass").s.outcome = outcome("force_passed", 1, bound);
      return g;
    };
    expect(problems(forced({ artifact_sha256: SHA, artifact_raw_sha256: RAW }))).toEqual([]);
    const EDITED = sha256Hex("edited before the force-pass");
    const edited = { ok: true as const, text: "edited before the force-pass", sha: EDITED, rawSha: EDITED };
    expect(problems(forced({ artifact_sha256: EDITED, artifact_raw_sha256: EDITED }), { artifact: edited })).toEqual([
      `force_passed binds other artifact bytes than round 1's packet sent (${SHA})`,
    ]);
  });

  it("a force_passed outcome no person decided does not: no decision, or one the escalation did not offer", () => {
    const forced = (g: ReturnType<typeof gate>) => {
      g.s.outcome = outcome("force_passed", 1, { artifact_sha256: SHA, artifact_raw_sha256: RAW });
      return problems(g as ReturnType<typeof passed>);
    };
    const esc = () => gate().packet(1, { artifact_sha256: SHA, artifact_raw_sha256: RAW });
    const why = "force_passed, but no force-pass decision answers an escalation of round 1";
    expect(forced(esc().escalation(1, "cap_hit", ["force-pass"]).decision(1, "force-pass"))).toEqual([]);
    expect(forced(esc())).toContain(why);
    expect(forced(esc().escalation(1, "cap_hit", ["force-pass"]))).toContain(why);
    expect(forced(esc().escalation(1, "no_verdict", ["retry", "rework"]).decision(1, "force-pass"))).toContain(why);
  });

  it("a verdict bound to other result bytes than those on disk does not", () => {
    expect(problems(passed({ verdict: { result_sha256: sha256Hex("another answer") } }))).toContain(
      "verdict-1.json binds other result bytes",
    );
  });

  it("raw bytes unchanged but scrubbed to others by new redaction settings: it fails, saying the settings changed", () => {
    const redacted = "# Spec\n\nThe cache keeps [REDACTED] entries.\n";
    const rescrubbed = { ok: true as const, text: redacted, sha: sha256Hex(redacted), rawSha: RAW };
    const p = problems(passed({ packet: { artifact_raw_sha256: RAW } }), { artifact: rescrubbed });
    expect(p.length).toBeGreaterThan(0);
    for (const problem of p) expect(problem).toMatch(/^the redaction settings changed since: the artifact's raw bytes are the ones passed/);
  });

  it("a verdict the broker would not pass (a contested finding upheld) does not", () => {
    const p = problems(passed({ verdict: { rulings: { upheld: 1, withdrawn: 0 } } }));
    expect(p).toEqual([expect.stringContaining("verdict-1.json does not pass: 1 contested finding(s) upheld")]);
  });

  it("a ruling round's pass whose result does not withdraw each contested finding does not, whatever its verdict counted", () => {
    const g = rulingRoundPassed();
    const contested = JSON.stringify({ ...JSON.parse(RESULT.toString()), blocking_findings: [{ title: "A" }, { title: "B" }] });
    const ruled = (rulings: unknown[]) => ({ ...JSON.parse(RESULT.toString()), rulings });
    const byRound = (second: object) => (round: number) => {
      const text = round === 1 ? contested : JSON.stringify(second);
      return { ok: true as const, bytes: Buffer.from(text), text };
    };
    expect(problems(g, { resultBytes: byRound(ruled([])) })).toContain(
      "result-2.json leaves 2 of round 1's 2 contested finding(s) standing",
    );
    // the same finding withdrawn twice does not withdraw the other one
    const twice = ruled([
      { finding: "A", ruling: "withdrawn" },
      { finding: " a ", ruling: "withdrawn" },
    ]);
    expect(problems(g, { resultBytes: byRound(twice) })).toContain("result-2.json leaves 1 of round 1's 2 contested finding(s) standing");
    const both = ruled([
      { finding: "A", ruling: "withdrawn" },
      { finding: "B", ruling: "withdrawn" },
    ]);
    expect(problems(g, { resultBytes: byRound(both) }).filter((p) => p.includes("contested"))).toEqual([]);
  });

  it("a ruling round rules on every blocker of the contested round, one listed only among its findings too", () => {
    const g = rulingRoundPassed();
    const first = JSON.stringify({
      ...JSON.parse(RESULT.toString()),
      blocking_findings: [{ title: "Style nit A" }],
      findings: [
        { title: "Style nit A", severity: "blocking" },
        { title: "Auth bypass B", severity: "blocking" },
      ],
    });
    const ruled = (rulings: unknown[]) => (round: number) => {
      const text = round === 1 ? first : JSON.stringify({ ...JSON.parse(RESULT.toString()), rulings });
      return { ok: true as const, bytes: Buffer.from(text), text };
    };
    expect(problems(g, { resultBytes: ruled([{ finding: "Style nit A", ruling: "withdrawn" }]) })).toContain(
      "result-2.json leaves 1 of round 1's 2 contested finding(s) standing",
    );
    const both = ruled([
      { finding: "Style nit A", ruling: "withdrawn" },
      { finding: "Auth bypass B", ruling: "withdrawn" },
    ]);
    expect(problems(g, { resultBytes: both }).filter((p) => p.includes("contested"))).toEqual([]);
  });

  it("an upheld ruling in the sealed result keeps the gate closed, whatever the verdict file says of it", () => {
    const upheld = Buffer.from(JSON.stringify({ ...JSON.parse(RESULT.toString()), rulings: [{ finding: "Data loss", ruling: "upheld" }] }));
    // the verdict's own copy of the rulings was edited away; it still binds the result's bytes
    const g = passed({ verdict: { result_sha256: sha256Hex(upheld) } });
    const read = () => ({ ok: true as const, bytes: upheld, text: upheld.toString() });
    expect(problems(g, { resultBytes: read })).toContain("result-1.json upholds 1 contested finding(s)");
  });

  it("a ruling is one ruling on one finding: two findings of one title, one upheld, do not pass; titles are named as shown", () => {
    const g = rulingRoundPassed();
    const base = JSON.parse(RESULT.toString()) as object;
    const rounds = (first: object[], rulings: object[]) => (round: number) => {
      const text = JSON.stringify(round === 1 ? { ...base, blocking_findings: first } : { ...base, rulings });
      return { ok: true as const, bytes: Buffer.from(text), text };
    };
    const same = [{ title: "Unbounded size" }, { title: "Unbounded size" }];
    const split = [
      { finding: "Unbounded size", ruling: "upheld" },
      { finding: "Unbounded size", ruling: "withdrawn" },
    ];
    expect(problems(g, { resultBytes: rounds(same, split) })).toContain(
      "result-2.json leaves 1 of round 1's 2 contested finding(s) standing",
    );
    // a foreign result's title reached the packet scrubbed: the reviewer names it as it was shown
    const secret = [{ title: "Reads ~/.ssh/id_rsa unchecked" }, { title: "B" }];
    const shown = [
      { finding: "Reads ~/.ssh/[REDACTED:home-path] unchecked", ruling: "withdrawn" },
      { finding: "B", ruling: "withdrawn" },
    ];
    expect(problems(g, { resultBytes: rounds(secret, shown) }).filter((p) => p.includes("contested"))).toEqual([]);
  });

  it("copilot's own pass does not: only a finalizer round ends a copilot gate", () => {
    const settings = Settings.parse({ providers: { codex: { adapter: "copilot", model: "gpt-5" } } });
    expect(problems(passed({ packet: { reviewer_adapter: "copilot" } }), { settings })).toEqual([
      "round 1 is copilot's pass, which only a finalizer round can confirm",
    ]);
  });

  it("a weak round's pass is not strong, whatever reviewer family the outcome names", () => {
    const weak = passed({ packet: { independence: "weak", selection_status: "degraded-local" }, outcome: { independence: "strong" } });
    expect(problems(weak)).toEqual(["independence strong, but packet-1.md promised a weak review"]);
    expect(problems(passed({ packet: { independence: "weak" }, outcome: { independence: "weak" } }))).toEqual([]);
  });

  it("a strong stamp on a pass whose verifier sealed an independence violation does not, whatever the settings say since", () => {
    const sealed = (independence: "strong" | "weak") =>
      problems(passed({ verdict: { independence_violation: true }, outcome: { independence } }));
    expect(sealed("strong")).toEqual(["independence strong, but verdict-1.json sealed an independence violation"]);
    expect(sealed("weak")).toEqual([]);
  });

  it("a weak pass a sealed violation made weak names the families its verdict sealed it under, never the packet's maps'", () => {
    // sealed under the settings when it was verified (gpt-5 aliased to anthropic, of no one family), put back since
    const families = {
      author_family: "anthropic",
      author_family_source: "host-map",
      reviewer_family: "unknown",
      family_relation: "unknown",
    } as const;
    const sealed = (outcome: Partial<Outcome>) =>
      problems(
        passed({ verdict: { independence_violation: true, violation_families: families }, outcome: { independence: "weak", ...outcome } }),
      );
    expect(sealed(families)).toEqual([]);
    expect(sealed({ ...families, reviewer_family: "openai", family_relation: "different" })).toEqual([
      "independence weak, but its families are not those its verdict sealed the independence violation under " +
        "(author_family anthropic, reviewer_family unknown: unknown)",
    ]);
  });

  it("a packet the broker would not issue passes nothing: a rule or policy the request fixed, a reviewer nobody named", () => {
    const asked = (over: Partial<Request>) => {
      const g = passed();
      g.s.request = { ...g.s.request!, ...over };
      return g;
    };
    expect(problems(asked({ stop: "score" }))).toContainEqual(expect.stringMatching(/^packet-1\.md: its stop policy verdict is not/));
    expect(problems(asked({ difficulty: "hard" }))).toContainEqual(expect.stringMatching(/^packet-1\.md: its difficulty medium is not/));
    expect(problems(asked({ quorum: { need: 2, of: 3 } }))).toContainEqual(
      expect.stringMatching(/^packet-1\.md: its quorum rule \(none\) is not the one request\.json asks for \(2\/3\)/),
    );
    // a strong round answered from outside the bus: only by a reviewer a person named
    const foreign = [
      { reviewer_provider: "evil", reviewer_adapter: "external" },
      { reviewer_provider: "manual", reviewer_adapter: "manual" },
    ];
    for (const over of foreign)
      expect(problems(passed({ packet: over }))).toContainEqual(
        expect.stringMatching(/^packet-1\.md: a strong round answered from outside/),
      );
    // ...asked of a packet that records family_maps (this build's) while its round was open, before its verdict was
    // sealed (workers/issued-packets.ts): a providers edit since re-judges nothing
    const maps = { family_aliases: {}, host_families: {} };
    expect(problems(passed({ packet: { ...foreign[0], family_maps: maps } }))).toEqual([]);
    const scored = asked({ stop: "score" }); // ...but what request.json fixes still is
    scored.s.packets.set(1, { ...scored.s.packets.get(1)!, ...foreign[0], family_maps: maps });
    expect(problems(scored)).toContainEqual(expect.stringMatching(/^packet-1\.md: its stop policy verdict is not/));
    const pinned = asked({ reviewer: "manual" });
    pinned.s.packets.set(1, { ...pinned.s.packets.get(1)!, reviewer_provider: "manual", reviewer_adapter: "manual" });
    expect(problems(pinned).filter((p) => p.startsWith("packet-1.md"))).toEqual([]);
    // settings edited since (another model, another default difficulty) re-judge nothing: the packet's policy holds
    const edited = Settings.parse({ providers: { codex: { adapter: "codex", model: "gpt-5.1" } }, difficulty: "hard" });
    expect(problems(passed(), { settings: edited })).toEqual([]);
  });

  it("a packet claiming an author family request.json's author is not of makes no review strong", () => {
    // the author is claude (anthropic); a packet saying openai would make an openai reviewer look independent
    const lying = passed({ packet: { author_family: "google", reviewer_model: "gpt-5" } });
    expect(problems(lying)).toEqual([
      expect.stringContaining('independence strong, but the reviewer model "gpt-5" is of family openai (author unknown)'),
    ]);
  });

  it("a skipped outcome re-derives only before round 1: a gate that issued a packet was under review", () => {
    const g = gate().packet(1, { artifact_sha256: SHA });
    g.s.outcome = outcome("skipped", 0, { artifact_sha256: SHA });
    expect(problems(g, { policy: policy({ required: false }) })).toContain("skipped, but round 1 was issued");
  });

  it("a quorum pass re-derives only once every member's packet is out and every member has ended", () => {
    const rule = { need: 2, of: 3 };
    const two = () =>
      gate()
        .memberPacket(1, "a", "openai", rule, { artifact_sha256: SHA })
        .memberVerdict(1, "a", "pass")
        .memberPacket(1, "b", "google", rule, { artifact_sha256: SHA })
        .memberVerdict(1, "b", "pass");
    const members = [
      { provider: "a", family: "openai" as const, model: "openai-model" },
      { provider: "b", family: "google" as const, model: "google-model" },
    ];
    const ended = (g: ReturnType<typeof two>) => {
      g.s.outcome = outcome("satisfied", 1, { artifact_sha256: SHA, artifact_raw_sha256: RAW, quorum: { ...rule, members } });
      return problems(g as never);
    };
    expect(ended(two())).toContain("quorum 2/3: only 2 reviewer(s) were sent round 1");
    const pending = two().memberPacket(1, "c", "xai", rule, { artifact_sha256: SHA });
    expect(ended(pending)).toContain("quorum round 1 had not ended: c still reviewing");
  });

  it("a quorum pass does not re-derive once a member's sealed answer is gone or changed, or a member upholds a ruling", () => {
    const rule = { need: 2, of: 3 };
    const MODELS = { a: "gpt-5", b: "gemini-2.5-pro", ds: "deepseek-chat" } as const;
    const members = [
      { provider: "a", family: "openai" as const, model: "gpt-5" },
      { provider: "b", family: "google" as const, model: "gemini-2.5-pro" },
      { provider: "ds", family: "deepseek" as const, model: "deepseek-chat" },
    ];
    const body = (provider: keyof typeof MODELS, extra: object = {}) =>
      JSON.stringify({
        schema_version: "review_result.v1",
        packet_id: `${packet(1).packet_id}+${provider}`,
        artifact_sha256_reviewed: SHA,
        verdict: "satisfied",
        findings: [],
        blocking_findings: [],
        reviewer_model: MODELS[provider],
        delivery_key: DELIVERY_KEY,
        ...extra,
      });
    const three = (ds: string) => {
      const g = gate();
      for (const [provider, family] of [
        ["a", "openai"],
        ["b", "google"],
        ["ds", "deepseek"],
      ] as const)
        g.memberPacket(1, provider, family, rule, { artifact_sha256: SHA, reviewer_model: MODELS[provider] })
          .memberAttempt(1, provider)
          .memberVerdict(1, provider, "pass", {
            result_sha256: sha256Hex(provider === "ds" ? ds : body(provider)),
            artifact_sha256_reviewed: SHA,
          });
      g.s.outcome = outcome("satisfied", 1, { artifact_sha256: SHA, artifact_raw_sha256: RAW, quorum: { ...rule, members } });
      return g;
    };
    const reading = (ds: string | null) => (_round: number, member?: string | null) => {
      const text = member === "ds" ? ds : body(member as "a" | "b");
      return text === null ? { ok: false as const, reason: "missing" } : { ok: true as const, bytes: Buffer.from(text), text };
    };
    const honest = body("ds");
    expect(problems(three(honest) as never, { resultBytes: reading(honest) as never })).toEqual([]);
    // the blocking member's answer deleted, or edited after its verdict was sealed
    expect(problems(three(honest) as never, { resultBytes: reading(null) as never })).toContainEqual(
      expect.stringMatching(/^quorum round 1: ds's sealed answer is not on disk as sealed/),
    );
    const edited = body("ds", { summary: "fine after all" });
    expect(problems(three(honest) as never, { resultBytes: reading(edited) as never })).toContainEqual(
      expect.stringMatching(/^quorum round 1: ds's sealed answer is not on disk as sealed/),
    );
    // a member whose verifier sealed an independence violation never counts, whatever the settings say since
    const sealed = three(honest);
    sealed.s.members.get("b")!.verdicts.get(1)!.independence_violation = true;
    expect(problems(sealed as never, { resultBytes: reading(honest) as never })).toContainEqual(
      expect.stringMatching(
        /^the outcome names a\/openai, b\/google, ds\/deepseek, but the rule counts a\/openai, ds\/deepseek; b: independence strong, but verdict-1\.b\.json sealed an independence violation$/,
      ),
    );
    // a member whose answer upholds a contested finding blocks, whatever its verdict file says
    const upholds = body("ds", { rulings: [{ finding: "Data loss on restart", ruling: "upheld" }] });
    expect(problems(three(upholds) as never, { resultBytes: reading(upholds) as never })).toContainEqual(
      expect.stringMatching(/^quorum 2\/3 does not re-derive: blocked by ds/),
    );
  });

  it("a bus-dispatched round's result re-derives only with its worker's delivery key and a keyed attempt", () => {
    const keyless = passed();
    const { delivery_key_sha256: _, ...old } = keyless.s.attempts.get(1)!;
    keyless.s.attempts.set(1, old);
    // as every pass recorded before delivery keys: the person reading it after an upgrade is told why
    expect(problems(keyless)).toEqual([expect.stringContaining("attempt-1.json records no delivery key")]);
    expect(problems(keyless)[0]).toContain("guild-bus before 2026-12-04 recorded none: only a new review can pass");
    const other = passed();
    other.s.attempts.set(1, { ...other.s.attempts.get(1)!, provider: "gemini" });
    expect(problems(other)).toEqual([expect.stringContaining("attempt-1.json is not a dispatch of it")]);
  });
});
