// `status` names the worker that must act: a round whose reviewer or verifier waits for the broker to write its
// packet's family-maps file again (SPEC §7) waits on the broker — and, with none running, says to start it — never on
// the worker it holds back, whose log alone would say why.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { statusRow } from "../../src/commands/status.js";
import { gateLines } from "../../src/cli/gate-lines.js";
import { stepGate } from "../../src/workers/broker.js";
import { reviewGate } from "../../src/workers/reviewer.js";
import { commandAdapter } from "../../src/adapters/command.js";
import { received, scriptedProvider } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";

const GATE = "G-spec";

/** A gate whose round 1 went to a command reviewer; nothing runs (no `up`, no worker). */
async function issued(run: string) {
  const root = tempRoot(`guild-bus-${run}-`);
  mkdirSync(path.join(root, "docs"), { recursive: true });
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  const providers = { rev: scriptedProvider(root, "rev", "gpt-5") };
  // a long grace period: a planted file is still in it while status is read
  writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ providers, reviewer: "rev", foreign_grace_ms: 600_000 }));
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  const layout = new Layout(root);
  expect(await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", runId: run })).toMatchObject({ ok: true });
  await stepGate(loadContext(layout), run, GATE);
  const file = (name: string) => layout.gateFile(run, GATE, name);
  const maps = readdirSync(file(".")).find((n) => n.startsWith("family-maps-"))!;
  const row = () => statusRow(loadContext(layout), run, GATE);
  return { layout, file, maps, row };
}

describe("status of a round held back for its family maps", () => {
  it("missing: waits for the broker to write them again (`guild-bus up`), then for the reviewer", async () => {
    const run = "held-maps-missing";
    const g = await issued(run);
    rmSync(g.file(g.maps));
    const r = g.row();
    expect(r.waiting_for).toBe("the broker");
    expect(r.next).toMatchObject({
      waiting_on:
        `the broker to write ${g.maps} again (it is missing): reviewer rev is not sent the round without it, ` +
        "but no broker worker is running for this project",
      command: "guild-bus up",
      person_first: true,
    });
    expect(gateLines(r)).toContain(
      `state: reviewing — waiting for the broker to write ${g.maps} again (it is missing): reviewer rev is not sent the round without it`,
    );
    await stepGate(loadContext(g.layout), run, GATE); // writes the file again
    expect(g.row()).toMatchObject({ waiting_for: "the reviewer", detail: "waiting for reviewer rev" });
  });

  it("other bytes under its name, in their grace period: the broker moves them aside first, and status says so", async () => {
    const g = await issued("held-maps-planted");
    writeFileSync(g.file(g.maps), JSON.stringify({ family_aliases: { "gpt-5": "anthropic" }, host_families: {} }));
    const r = g.row();
    expect(r.waiting_for).toBe("the broker");
    expect(r.next.waiting_on).toMatch(
      new RegExp(`^the broker to write ${g.maps} again \\(it holds other bytes: moved to rejected/ once foreign_grace_ms has passed\\)`),
    );
    expect(r.next.command).toBe("guild-bus up");
  });

  it("an answer in: waits for the broker, not the verifier, which seals no answer until the maps are back", async () => {
    const g = await issued("held-maps-answered");
    const packet = readFileSync(g.file("packet-1.md"), "utf8");
    const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)![1]!.replace(/^"|"$/g, "");
    rmSync(g.file(g.maps));
    const result = { packet_id: field("packet_id"), artifact_sha256_reviewed: field("artifact_sha256"), verdict: "satisfied" };
    writeFileSync(
      g.file("result-1.json"),
      JSON.stringify({ schema_version: "review_result.v1", ...result, blocking_findings: [], reviewer_model: "gpt-5" }),
    );
    const r = g.row();
    expect(r).toMatchObject({ state: "verifying", waiting_for: "the broker" });
    expect(r.next).toMatchObject({
      waiting_on: expect.stringMatching(
        /^the broker to write .*: the verifier seals no answer to packet-1\.md without it, but no broker worker/,
      ),
      command: "guild-bus up",
    });
  });

  it("an invalid attempt-1.json in its grace period: the reviewer waits for the broker to move it aside", async () => {
    const run = "held-attempt";
    const g = await issued(run);
    writeFileSync(g.file("attempt-1.json"), "{}");
    // the reviewer records its attempt before it pays for a review: with the name taken, it sends nothing
    const logged: string[] = [];
    const review = {
      serves: ["command"],
      adapters: { command: commandAdapter },
      log: (l: string) => logged.push(l),
      left: new Set<string>(),
    };
    await reviewGate(loadContext(g.layout), run, GATE, review, new AbortController().signal);
    await reviewGate(loadContext(g.layout), run, GATE, review, new AbortController().signal);
    expect(received(g.layout.root, "rev")).toHaveLength(0);
    // its log says why, once however often it looks
    expect(logged.filter((l) => l.includes("not dispatched: attempt-1.json is another file already"))).toHaveLength(1);
    const r = g.row();
    expect(r.waiting_for).toBe("the broker");
    expect(r.next).toMatchObject({
      waiting_on:
        "the broker to move the invalid attempt-1.json aside (moved to rejected/ once foreign_grace_ms has passed): " +
        "reviewer rev is not sent the round until then, but no broker worker is running for this project",
      command: "guild-bus up",
    });
  });
});
