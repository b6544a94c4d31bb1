// A packet whose family-maps file the gate does not hold (SPEC §7 `family_maps_sha256`) can never pass strong: no
// reviewer is paid for it. The broker writes the file again when the maps it writes for that packet now are those
// bytes (the round goes on), else a person decides the round (no_verdict); a retry issues it under the maps in force.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandAdapter } from "../../src/adapters/command.js";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { readGate } from "../../src/bus/gate-reader.js";
import { decideEscalation } from "../../src/commands/author.js";
import { requestReview } from "../../src/commands/review.js";
import { statusRow } from "../../src/commands/status.js";
import { stepGate } from "../../src/workers/broker.js";
import { reviewGate } from "../../src/workers/reviewer.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { received, scriptedProvider } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";

const GATE = "G-spec";

/** A gate whose round 1 goes to a scripted command reviewer (it keeps a copy of each packet it is sent: one a call). */
async function commandGate(run: string) {
  const root = tempRoot(`guild-bus-${run}-`);
  mkdirSync(path.join(root, "docs"), { recursive: true });
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  const settings = (aliases: Record<string, string>) =>
    writeFileSync(
      path.join(root, ".guild", "settings.json"),
      JSON.stringify({
        providers: { rev: scriptedProvider(root, "rev", "gpt-5") },
        reviewer: "rev",
        family_aliases: aliases,
        foreign_grace_ms: 0,
      }),
    );
  settings({ "codename-falcon-7": "openai" });
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  const layout = new Layout(root);
  expect(await requestReview(layout, { artifact: "docs/spec.md", gate: GATE, author: "claude", runId: run })).toMatchObject({ ok: true });
  const ctx = () => loadContext(layout);
  await stepGate(ctx(), run, GATE);
  const file = (name: string) => layout.gateFile(run, GATE, name);
  const mapsName = () => readdirSync(file(".")).find((n) => n.startsWith("family-maps-"))!;
  const logs: string[] = [];
  const review = () =>
    reviewGate(
      ctx(),
      run,
      GATE,
      { serves: ["command"], adapters: { command: commandAdapter }, log: (m) => logs.push(m), left: new Set() },
      new AbortController().signal,
    );
  return { root, layout, ctx, file, mapsName, logs, review, settings, calls: () => received(root, "rev").length };
}

describe("a packet whose family-maps file the gate does not hold", () => {
  it.each([
    ["missing", (file: string) => rmSync(file)],
    ["other bytes", (file: string) => writeFileSync(file, JSON.stringify({ family_aliases: { "gpt-5": "anthropic" }, host_families: {} }))],
  ])("(%s) is dispatched to no reviewer; the broker writes the file again, then the round goes on", async (what, tamper) => {
    const run = `maps-dispatch-${what.replace(/ /g, "-")}`;
    const g = await commandGate(run);
    const name = g.mapsName();
    const bytes = readFileSync(g.file(name), "utf8");
    tamper(g.file(name));

    await g.review();
    expect(g.calls()).toBe(0);
    expect(existsSync(g.file("attempt-1.json"))).toBe(false);
    expect(g.logs.join("\n")).toContain(`not dispatched: ${name}`);

    // the maps the broker writes for packet 1 now are the bytes it binds: the same file, delivered again
    await stepGate(g.ctx(), run, GATE);
    expect(readFileSync(g.file(name), "utf8")).toBe(bytes);
    expect(existsSync(g.file("escalation-1.json"))).toBe(false);

    await g.review();
    expect(g.calls()).toBe(1);
    await verifyGate(g.ctx(), run, GATE, () => undefined, Date.now() + 60_000);
    expect(JSON.parse(readFileSync(g.file("verdict-1.json"), "utf8"))).toMatchObject({ independence_violation: false });
    await stepGate(g.ctx(), run, GATE);
    expect(readGate(g.layout, run, GATE).outcome).toMatchObject({ status: "satisfied", independence: "strong" });
  });

  it("that the broker cannot write again (other maps now) is a person's: no_verdict, and a retry under the maps in force", async () => {
    const run = "maps-dispatch-lost";
    const g = await commandGate(run);
    rmSync(g.file(g.mapsName()));
    g.settings({ "codename-falcon-8": "openai" });

    await g.review();
    expect(g.calls()).toBe(0);
    await stepGate(g.ctx(), run, GATE);
    expect(JSON.parse(readFileSync(g.file("escalation-1.json"), "utf8"))).toMatchObject({
      reason: "no_verdict",
      // a round nobody reviewed: said as one that can no longer pass, not as a verification that broke
      detail: expect.stringMatching(/^round 1 can no longer pass: packet-1\.md: .*the family maps it was issued under/),
    });
    const row = statusRow(g.ctx(), run, GATE);
    expect(row.next).toMatchObject({ person_first: true, command: expect.stringContaining("decide") });
    await g.review();
    expect(g.calls()).toBe(0);
    expect(existsSync(g.file("attempt-1.json"))).toBe(false);

    expect(await decideEscalation(g.ctx(), run, GATE, { choice: "retry", decidedBy: "me" })).toMatchObject({ ok: true });
    await stepGate(g.ctx(), run, GATE);
    const sha = readGate(g.layout, run, GATE).packets.get(2)?.family_maps_sha256;
    expect(existsSync(g.file(`family-maps-${sha}.json`))).toBe(true);
    await g.review();
    expect(g.calls()).toBe(1);
  });

  it("lost under other maps after a dispatch that died: the reviewer still hands the round to a person", async () => {
    const run = "maps-dispatch-dead";
    const g = await commandGate(run);
    const packetId = readGate(g.layout, run, GATE).packets.get(1)!.packet_id;
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    // a reviewer worker recorded its dispatch, then died: no result, no failure
    const attempt = { schema_version: "guild_bus.attempt.v1", run_id: run, gate: GATE, round: 1, packet_id: packetId, provider: "rev" };
    const keys = { delivery_key_sha256: sha("dk"), end_key_sha256: sha("ek") };
    const worker = { worker: { host: "h", pid: 1 }, started_at: new Date().toISOString() };
    writeFileSync(g.file("attempt-1.json"), JSON.stringify({ ...attempt, ...worker, ...keys }));
    rmSync(g.file(g.mapsName()));
    g.settings({ "codename-falcon-8": "openai" });

    await g.review();
    expect(g.calls()).toBe(0);
    expect(JSON.parse(readFileSync(g.file("failure-1.json"), "utf8"))).toMatchObject({ kind: "no_verdict" });
    await stepGate(g.ctx(), run, GATE);
    expect(statusRow(g.ctx(), run, GATE).next).toMatchObject({ person_first: true, command: expect.stringContaining("decide") });
  });
});
