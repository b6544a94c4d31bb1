// Crash loop: many gates under a scripted reviewer while a chaos driver SIGKILLs random workers at random moments
// and restarts them. Then an audit: every gate terminal or waiting, no lost or torn file, no round dispatched
// twice, no staging orphan after the janitor, trail and outcome consistent with the files.
// `npm test` runs a bounded version; `npm run soak` (GUILD_BUS_SOAK=1) runs 200 gates and a longer chaos phase.
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { readGate } from "../src/broker/snapshot.js";
import { Layout } from "../src/layout.js";
import { sweepStaging } from "../src/store/janitor.js";
import { makeProject, received, scriptedProvider, stopChild } from "./helpers/bus.js";

const SOAK = process.env.GUILD_BUS_SOAK === "1";
const GATES = SOAK ? 200 : 50;
const CHAOS_MS = SOAK ? 120_000 : 15_000;

/** A deterministic random source, so a failing run can be replayed from its seed. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe("crash loop under chaos (integration)", () => {
  it(`${GATES} gates while workers are SIGKILLed at random`, { timeout: SOAK ? 1_800_000 : 300_000 }, async () => {
    const seed = Number(process.env.GUILD_BUS_CHAOS_SEED ?? Date.now() % 100_000);
    const random = rng(seed);
    const p = makeProject();
    // slow enough that kills land mid-dispatch, fast enough to finish; every few gates need a second round
    p.settings({ providers: { gpt: scriptedProvider(p.root, "gpt", "gpt-5-scripted", { default: "slow-satisfied", slow_ms: 300 }) }, foreign_grace_ms: 1000 });
    p.write("docs/spec.md", "# Spec\n\n- criteria\n");
    const kinds = ["broker", "verifier", "command", "broker", "verifier", "command"];
    const workers: ChildProcess[] = kinds.map((k) => p.startWorker(k));
    const runs = Array.from({ length: GATES }, (_, i) => `c${i}`);
    for (const run of runs) {
      expect(p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", run]).code).toBe(0);
    }

    let kills = 0;
    const until = Date.now() + CHAOS_MS;
    while (Date.now() < until) {
      await sleep(200 + random() * 600);
      const i = Math.floor(random() * workers.length);
      await stopChild(workers[i]!, "SIGKILL");
      kills++;
      await sleep(random() * 300);
      workers[i] = p.startWorker(kinds[i]!);
    }

    // chaos over: a reviewer killed mid-dispatch leaves no_verdict for a human; answer each with retry until done
    const deadline = Date.now() + (SOAK ? 600_000 : 150_000);
    const terminal = new Set(["done", "awaiting_author", "awaiting_decision"]);
    for (;;) {
      const gates = (JSON.parse(p.cli(["status", "--json"]).stdout) as { gates: Array<{ run_id: string; state: string; status: string }> }).gates;
      const waiting = gates.filter((g) => g.state === "awaiting_decision");
      for (const g of waiting) p.cli(["decide", g.run_id, "G-spec", g.status === "cap_hit" ? "force-pass" : "retry"]);
      if (gates.length === GATES && gates.every((g) => g.state === "done")) break;
      if (Date.now() > deadline) {
        const stuck = gates.filter((g) => !terminal.has(g.state) || g.state !== "done");
        throw new Error(`seed ${seed}: ${stuck.length} gates not done: ${JSON.stringify(stuck.slice(0, 5))}\n${p.logs.join("").slice(-3000)}`);
      }
      await sleep(500);
    }

    // audit
    const layout = new Layout(p.root);
    const dispatches = new Map<string, number>();
    for (const text of received(p.root, "gpt")) {
      const id = /packet_id: (.+)/.exec(text)?.[1]?.trim() ?? "?";
      dispatches.set(id, (dispatches.get(id) ?? 0) + 1);
    }
    for (const [id, n] of dispatches) expect(n, `seed ${seed}: ${id} dispatched ${n} times`).toBe(1);
    for (const run of runs) {
      const s = readGate(layout, run, "G-spec");
      expect(s.problems, `seed ${seed}: ${run} has invalid or torn files`).toEqual([]);
      expect(s.outcome, run).not.toBeNull();
      const packets = [...s.packets.keys()];
      for (const r of packets) {
        const ended = s.verdicts.has(r) || s.failures.has(r) || s.escalations.has(r);
        expect(ended || r === s.outcome!.final_round, `${run} round ${r} never ended`).toBe(true);
        if (s.results.has(r)) expect(JSON.parse(readFileSync(path.join(s.dir, `result-${r}.json`), "utf8")).packet_id).toBe(s.packets.get(r)!.packet_id);
      }
      const trail = readFileSync(path.join(s.dir, "trail.md"), "utf8");
      expect(trail, `${run}: trail disagrees with outcome.json`).toContain(`- status: ${s.outcome!.status}`);
      for (const r of packets) expect(trail, `${run}: trail misses round ${r}`).toContain(`## Round ${r}`);
      const events = readFileSync(layout.events(run), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      // telemetry is best-effort: a broker killed between outcome and event leaves none, never two
      expect(events.filter((e) => e.event === "review_outcome").length, `${run}: at most one outcome event`).toBeLessThanOrEqual(1);
    }
    for (const w of workers) await stopChild(w);
    sweepStaging(layout.guild);
    expect(readdirSync(path.join(layout.guild, "tmp")), "staging orphans after the janitor").toEqual([]);
    expect(kills).toBeGreaterThan(5);
  });
});
