// Finished history costs nothing (issue #15, SPEC §18): a worker writes .guild/finished-runs.log as runs finish; the
// next worker skips those runs at start and in its full scans, yet a late drop or a new gate in one is still found
// (by the slow sweep, or at once when a writer reopens the run).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { finishedRunsFile, reopenRun } from "../../src/bus/finished-runs.js";
import { Layout } from "../../src/bus/layout.js";
import { WorkerRuntime } from "../../src/runtime/reconciler.js";
import { Outcome } from "../../src/spec/schemas.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";

function outcome(runId: string, gate: string): string {
  return JSON.stringify(
    Outcome.parse({
      schema_version: "guild_bus.outcome.v1",
      run_id: runId,
      gate,
      status: "satisfied",
      author_host: "claude",
      author_family: "anthropic",
      reviewer_host: "codex",
      reviewer_model: "gpt-5",
      reviewer_family: "openai",
      independence: "strong",
      rounds: 1,
      final_round: 1,
      artifact_sha256: null,
      reason: "satisfied",
      trail_path: "trail.md",
      at: "2026-01-01T00:00:00.000Z",
    }),
  );
}

function worker(layout: Layout, handled: string[], fullScanMs: number): WorkerRuntime {
  return new WorkerRuntime({
    kind: "test",
    layout,
    poll: false,
    reconcileMs: 50,
    fullScanMs,
    skipFinishedRuns: true,
    handleGate: async ({ runId, gate }) => {
      handled.push(`${runId}/${gate}`);
      return "finished";
    },
    log: () => {},
  });
}

const RUNS = ["f0", "f1", "f2", "f3"];

function finishedTree(): Layout {
  const layout = new Layout(tempRoot());
  for (const run of RUNS) {
    mkdirSync(layout.gateDir(run, "G-spec"), { recursive: true });
    writeFileSync(layout.gateFile(run, "G-spec", "outcome.json"), outcome(run, "G-spec"));
  }
  return layout;
}

/** A first worker finds every run finished and writes the log. */
async function sealAll(layout: Layout): Promise<void> {
  const handled: string[] = [];
  const first = worker(layout, handled, 600_000);
  await first.start();
  try {
    await until("every finished run in the log", () => {
      const log = (() => {
        try {
          return readFileSync(finishedRunsFile(layout), "utf8");
        } catch {
          return "";
        }
      })();
      return RUNS.every((r) => log.includes(`+${r}\tG-spec=`));
    });
    expect(handled).toEqual([]); // a valid outcome: nothing to do
  } finally {
    await first.stop();
  }
}

describe("finished runs: skipped by scans, still found when they change", () => {
  it("the next worker's sweep handles a late drop in a finished gate and a new gate in a finished run, and nothing else", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    writeFileSync(layout.gateFile("f1", "G-spec", "result-9.json"), "{}"); // a late drop while no worker ran
    mkdirSync(layout.gateDir("f2", "G-plan"), { recursive: true });
    writeFileSync(layout.gateFile("f2", "G-plan", "request.json"), "{}");
    const handled: string[] = [];
    const next = worker(layout, handled, 200);
    await next.start();
    try {
      await until("the sweep found both", () => handled.includes("f1/G-spec") && handled.includes("f2/G-plan"));
      await until("a few more sweeps", () => handled.length >= 2 && readFileSync(finishedRunsFile(layout), "utf8").includes("+f2\t"));
      expect(handled.filter((h) => !["f1/G-spec", "f2/G-plan"].includes(h))).toEqual([]);
    } finally {
      await next.stop();
    }
  });

  it("a writer that reopens a finished run (a new request in it) gets it handled without waiting for the sweep", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    const handled: string[] = [];
    const next = worker(layout, handled, 600_000); // no full scan, so no sweep, during the test
    await next.start();
    try {
      mkdirSync(layout.gateDir("f3", "G-plan"), { recursive: true });
      writeFileSync(layout.gateFile("f3", "G-plan", "request.json"), "{}");
      reopenRun(layout, "f3");
      await until("the reopened run's new gate handled", () => handled.includes("f3/G-plan"));
      expect(handled).toEqual(["f3/G-plan"]);
    } finally {
      await next.stop();
    }
  });
});
