// Integration: the round loop end to end over real worker processes on a temp project.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, MODES, received, scriptedProvider, startBus } from "../helpers/bus.js";
import { until } from "../helpers/clients.js";
import { waitSeconds } from "../helpers/machine.js";

const SPEC = "# Spec\n\n## Acceptance criteria\n- exports finish within 2 s\n";

describe.each(MODES)("round loop (integration, real workers, $mode)", ({ poll }) => {
  function setup(plan: object, settings: Record<string, unknown> = {}) {
    const p = makeProject({ poll });
    p.settings({ providers: { scripted: scriptedProvider(p.root, "scripted", "gpt-5-scripted", plan) }, ...settings });
    p.write("docs/spec.md", SPEC);
    return p;
  }

  it("(a) two-round happy path: issues, revise and resubmit, satisfied", async () => {
    const p = setup({ sequence: ["issues", "satisfied"] });
    startBus(p);
    const r = p.cli([
      "review",
      "docs/spec.md",
      "--gate",
      "G-spec",
      "--author",
      "claude",
      "--run-id",
      "r1",
      "--wait",
      "--json",
      "--timeout",
      waitSeconds(40),
    ]);
    expect(r.code, r.stderr + p.logs.join("")).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: "rework",
      state: "awaiting_author",
      rounds: 1,
      independence: "strong",
      reviewer_host: "scripted",
    });
    p.write("docs/spec.md", SPEC + "- the button is disabled while exporting\n");
    const again = p.cli(["resubmit", "r1", "G-spec", "--wait", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "satisfied", satisfied_at_round: 2, rounds: 2 });
    const outcome = p.readJson("r1", "G-spec", "outcome.json");
    expect(outcome).toMatchObject({
      status: "satisfied",
      independence: "strong",
      reviewer_family: "openai",
      author_family: "anthropic",
      family_relation: "different",
      author_family_source: "host-map",
      identity_assurance: "requested",
    });
    const packets = received(p.root, "scripted");
    expect(packets).toHaveLength(2);
    expect(packets[1]).toContain("Prior rounds");
    expect(packets[1]).toContain("Scripted blocking finding");
    const trail = readFileSync(path.join(p.gateDir("r1", "G-spec"), "trail.md"), "utf8");
    expect(trail).toMatch(/## Round 1[\s\S]*verdict: issues[\s\S]*## Round 2[\s\S]*verdict: satisfied[\s\S]*status: satisfied/);
    const events = readFileSync(path.join(p.root, ".guild/runs/r1/events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.filter((e) => e.event === "codex_review_round").map((e) => [e.round_number, e.terminated_by_satisfied])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("a new gate in a run whose only gate has finished is taken up from events, without waiting for the full scan", async () => {
    const p = setup({ sequence: ["satisfied", "satisfied"] });
    for (const kind of ["broker", "verifier", "command"]) p.startWorker(kind, ["--full-scan-ms", "600000"]);
    const first = p.cli([
      "review",
      "docs/spec.md",
      "--gate",
      "G-init",
      "--author",
      "claude",
      "--run-id",
      "r1",
      "--wait",
      "--json",
      "--timeout",
      waitSeconds(40),
    ]);
    expect(first.code, first.stderr + p.logs.join("")).toBe(0);
    // every worker has seen the run with every gate finished: its finished-runs log (SPEC §18) records the run as ended
    const ended = (kind: string) => {
      const log = path.join(p.root, ".guild", "finished-runs", `${kind}.log`);
      const lines = existsSync(log) ? readFileSync(log, "utf8").split("\n") : [];
      return (
        lines
          .filter((l) => /^[+-]r1(\t|$)/.test(l))
          .at(-1)
          ?.startsWith("+r1\t") === true
      );
    };
    await until("every worker to log r1 as finished", () => ["broker", "verifier", "command"].every(ended));
    const next = p.cli([
      "review",
      "docs/spec.md",
      "--gate",
      "G-spec",
      "--author",
      "claude",
      "--run-id",
      "r1",
      "--wait",
      "--json",
      "--timeout",
      waitSeconds(40),
    ]);
    expect(next.code, next.stderr + p.logs.join("")).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ status: "satisfied", rounds: 1 });
  });

  it("(b) artifact edited mid-review: restart on the new bytes, cap not consumed, visible in the trail", async () => {
    const p = setup({ sequence: ["slow-satisfied", "satisfied"] });
    startBus(p);
    expect(p.cli(["review", "docs/spec.md", "--gate", "G-plan", "--author", "claude", "--run-id", "r2", "--cap", "1"]).code).toBe(0);
    await p.waitFor("r2", "G-plan", (f) => f.includes("attempt-1.json"), "dispatch of round 1");
    p.write("docs/spec.md", SPEC + "- edited while the reviewer was reading\n");
    const s = await p.waitState("r2", "G-plan", ["done"]);
    expect(s.status).toBe("satisfied");
    const packet2 = readFileSync(path.join(p.gateDir("r2", "G-plan"), "packet-2.md"), "utf8");
    expect(packet2).toMatch(/restart_of: 1/);
    expect(packet2).toMatch(/restart_reason: artifact_changed/);
    expect(packet2).toMatch(/counted_round: 1/);
    expect(p.readJson("r2", "G-plan", "verdict-1.json")).toMatchObject({ gate_pass: { conditions: { sha256_match: false } } });
    expect(p.readJson("r2", "G-plan", "outcome.json")).toMatchObject({ status: "satisfied", satisfied_at_round: 2, rounds: 1 });
    const trail = readFileSync(path.join(p.gateDir("r2", "G-plan"), "trail.md"), "utf8");
    expect(trail).toContain("restarted");
    expect(trail).toContain("## Round 2 (restart of round 1)");
  });
});
