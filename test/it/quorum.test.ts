// Integration: quorum gates over real workers (SPEC §26). Each reviewer gets its own packet and result in the
// round; findings are merged with who raised them; the gate passes only on K distinct families passing the same
// bytes; a blocker from any reviewer blocks; `check`, `status`, `findings` and the trail all see the members; a quorum
// the detected reviewers cannot meet names the missing family.
import { chmodSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { gateTimeline } from "../../src/ui/timeline.js";
import { makeProject, received, scriptedProvider, startBus } from "../helpers/bus.js";
import { waitSeconds } from "../helpers/machine.js";

const PLAN = "# Plan\n\n- lane A then lane B\n- rollback: TBD\n";
const json = (r: { stdout: string }) => JSON.parse(r.stdout);

function reviewers(root: string, ds: object = { default: "by-content" }) {
  return {
    gpt: scriptedProvider(root, "gpt", "gpt-5", { default: "by-content" }),
    gem: scriptedProvider(root, "gem", "gemini-2.5-pro", { default: "by-content" }),
    ds: scriptedProvider(root, "ds", "deepseek-chat", ds),
  };
}

describe("quorum gates (integration)", () => {
  it("2 of 2: merged findings, a revision, then a pass that names both families; check, status and the trail agree", async () => {
    const p = makeProject();
    const { gpt, gem } = reviewers(p.root);
    p.settings({ providers: { gpt, gem } });
    p.write("docs/plan.md", PLAN);
    startBus(p);
    const wait = ["--wait", "--json", "--timeout", waitSeconds(60)];
    const first = p.cli(["review", "docs/plan.md", "--gate", "G-plan", "--author", "claude", "--run-id", "q1", "--quorum", "2/2", ...wait]);
    expect(first.code, first.stderr).toBe(3);
    const files = p.files("q1", "G-plan");
    // two members of distinct families other than the author's (anthropic), each with its own files
    for (const name of [
      "packet-1.gem.md",
      "packet-1.gpt.md",
      "result-1.gem.json",
      "result-1.gpt.json",
      "verdict-1.gem.json",
      "verdict-1.gpt.json",
    ])
      expect(files).toContain(name);
    expect(p.readJson("q1", "G-plan", "verdict-1.gpt.json")).toMatchObject({ packet_id: "G-plan-q1-r1+gpt", reviewer_family: "openai" });
    // what the author reads (status, the MCP findings tool): one finding, with both reviewers that raised it
    const open = json(p.cli(["status", "q1", "G-plan", "--json"])).gates[0];
    expect(open.last_round.findings).toEqual([
      expect.objectContaining({ title: "Acceptance criteria left as TBD", raised_by: ["gem", "gpt"] }),
    ]);

    p.write("docs/plan.md", PLAN.replace("TBD", "redeploy the previous tag"));
    const second = p.cli(["resubmit", "q1", "G-plan", "--wait", "--json"]);
    expect(second.code, second.stderr).toBe(0);
    expect(p.readJson("q1", "G-plan", "outcome.json")).toMatchObject({
      status: "satisfied",
      satisfied_at_round: 2,
      independence: "strong",
      // a reader that knows no quorum sees every counted member named, and the first one's family (SPEC §26)
      reviewer_host: "gem + gpt",
      reviewer_model: "gemini-2.5-pro + gpt-5",
      reviewer_family: "google",
      family_relation: "different",
      quorum: {
        need: 2,
        of: 2,
        members: [
          { provider: "gem", family: "google", model: "gemini-2.5-pro" },
          { provider: "gpt", family: "openai", model: "gpt-5" },
        ],
      },
    });
    // round 2's packets carry every reviewer's round-1 findings, named
    const packet2 = received(p.root, "gpt")[1]!;
    expect(packet2).toContain("### Round 1 — reviewer gem");
    expect(packet2).toContain("Acceptance criteria left as TBD");

    const check = p.cli(["check", "--require", "G-plan"]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(
      /^PASS q1 G-plan docs\/plan.md: satisfied at round 2, independence strong, quorum 2\/2: gem \(google\), gpt \(openai\)/m,
    );
    const status = json(p.cli(["status", "q1", "G-plan", "--json"])).gates[0];
    expect(status).toMatchObject({ status: "satisfied", reviewer_host: "gem + gpt" });
    const trail = readFileSync(path.join(p.gateDir("q1", "G-plan"), "trail.md"), "utf8");
    expect(trail).toContain("## Round 2 — quorum 2/2");
    expect(trail).toContain("- reviewer selection: quorum 2/2: gem (google), gpt (openai)");
    expect(trail).toMatch(/family relation: author anthropic \(host-map\) vs reviewers google, openai: different/);
    expect(trail).toContain("### Reviewer gpt");
    expect(trail).toMatch(/- quorum 2\/2: gem \(google, gemini-2.5-pro\), gpt \(openai, gpt-5\)/);

    // the console's timeline: an entry per member and round, each diffed against that member's previous packet
    const timeline = gateTimeline(loadContext(new Layout(p.root)), "q1", "G-plan");
    expect(timeline.rounds.map((r) => [r.round, r.member, r.label])).toEqual([
      [1, "gem", " — reviewer gem"],
      [1, "gpt", " — reviewer gpt"],
      [2, "gem", " — reviewer gem"],
      [2, "gpt", " — reviewer gpt"],
    ]);
    expect(timeline.rounds[0]!.findings.map((f) => f.title)).toEqual(["Acceptance criteria left as TBD"]);
    expect(timeline.rounds[3]!.diff).toMatchObject({ lines: expect.any(Array) });
    expect(timeline.rounds[1]!.verdict).toMatchObject({ packet_id: "G-plan-q1-r1+gpt" });

    // a member's verdict forged to pass over its result does not re-derive: check fails
    const forged = p.readJson("q1", "G-plan", "result-2.gem.json");
    p.write(
      path.relative(p.root, path.join(p.gateDir("q1", "G-plan"), "result-2.gem.json")),
      JSON.stringify({ ...forged, blocking_findings: [{ title: "x" }] }),
    );
    const after = p.cli(["check", "--require", "G-plan"]);
    expect(after.code).toBe(2);
    expect(after.stdout).toMatch(/does not re-derive/);
  });

  it("2 of 3: one reviewer's blocking finding blocks though two passed; a quorum nobody can meet names the missing family", async () => {
    const p = makeProject();
    p.settings({ providers: reviewers(p.root, { default: "issues" }), gate_quorum: { "G-spec": { families: ["openai", "xai"] } } });
    p.write("docs/plan.md", PLAN.replace("TBD", "redeploy the previous tag"));
    startBus(p);
    const wait = ["--wait", "--json", "--timeout", waitSeconds(60)];
    const blocked = p.cli([
      "review",
      "docs/plan.md",
      "--gate",
      "G-plan",
      "--author",
      "claude",
      "--run-id",
      "q2",
      "--quorum",
      "2/3",
      ...wait,
    ]);
    expect(blocked.code, blocked.stderr).toBe(3);
    expect(json(blocked)).toMatchObject({ state: "awaiting_author", round: 1 });
    expect(json(blocked).detail).toContain("blocked by ds");
    expect(p.files("q2", "G-plan")).not.toContain("outcome.json");

    // settings ask G-spec for openai + xai; no xai reviewer is configured: nothing is dispatched, the reason names xai
    const refused = p.cli(["review", "docs/plan.md", "--gate", "G-spec", "--author", "claude", "--run-id", "q3", ...wait]);
    expect(refused.code, refused.stderr).toBe(5);
    expect(p.readJson("q3", "G-spec", "escalation-0.json")).toMatchObject({
      reason: "unavailable",
      detail: expect.stringContaining("xai"),
    });
    expect(p.files("q3", "G-spec").some((f) => f.startsWith("packet-"))).toBe(false);

    // a quorum with a pinned reviewer is refused before anything is written
    const pinned = p.cli(["review", "docs/plan.md", "--gate", "G-quality", "--author", "claude", "--quorum", "2/2", "--reviewer", "gpt"]);
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toMatch(/selects its own reviewers/);
  });
  it("a member whose reviewer cannot start never falls back to another member's family: it ends unavailable, saying why", async () => {
    const p = makeProject();
    // executable when the broker detects it, but it cannot start (its interpreter does not exist): nothing ran
    const broken = p.write("bin/gem-cli", "#!/nonexistent/interpreter\n");
    chmodSync(broken, 0o755);
    p.settings({
      providers: {
        gpt: scriptedProvider(p.root, "gpt", "gpt-5", { default: "satisfied" }),
        gem: { adapter: "command", model: "gemini-2.5-pro", argv: [broken], fallback: ["mini"] },
        mini: { ...scriptedProvider(p.root, "mini", "gpt-5-mini", { default: "satisfied" }), selectable: false },
      },
    });
    p.write("docs/plan.md", PLAN.replace("TBD", "redeploy the previous tag"));
    startBus(p);
    const wait = ["--wait", "--json", "--timeout", waitSeconds(60)];
    const r = p.cli(["review", "docs/plan.md", "--gate", "G-plan", "--author", "claude", "--run-id", "qf", "--quorum", "2/2", ...wait]);
    // before: mini (openai) reviewed gem's packet, both members counted as openai, and the round escalated
    // identity_unverified after paying both reviews
    expect(r.code, r.stdout + r.stderr).toBe(5);
    expect(received(p.root, "mini")).toEqual([]);
    expect(p.readJson("qf", "G-plan", "failure-1.gem.json")).toMatchObject({
      kind: "unavailable",
      reason: expect.stringContaining("mini: fallback refused, family openai is not gem's family in the quorum round (google)"),
    });
    expect(p.readJson("qf", "G-plan", "escalation-1.json")).toMatchObject({ reason: "unavailable" });
  });
});
