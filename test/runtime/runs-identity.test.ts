// A worker follows .guild/runs by its identity, to drop what it held of one a person removed and made again (a reset,
// SPEC §4). On Linux without statx (a kernel before 4.11, a seccomp filter that refuses it) Node's stat reports the
// ctime as the birthtime, and a directory's ctime moves with every run made in it: that is no new .guild/runs.
import { mkdirSync, rmSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { WorkerRuntime } from "../../src/runtime/reconciler.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";

// every stat in this file reports as libuv does without statx: the birthtime is the ctime
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const statSync = ((file: string, options?: object) => {
    const st = real.statSync(file, options);
    if (st) Object.assign(st, { birthtimeMs: st.ctimeMs, birthtime: st.ctime });
    return st;
  }) as typeof real.statSync;
  return { ...real, statSync, default: { ...real, statSync } };
});

describe("a worker's .guild/runs where stat reports no birth times", () => {
  it("a run made in it is no new .guild/runs: what the worker holds stays, and one removed and made again is followed", async () => {
    const layout = new Layout(tempRoot());
    mkdirSync(layout.runs, { recursive: true });
    const said: string[] = [];
    const handled: string[] = [];
    let passes = 0;
    const worker = new WorkerRuntime({
      kind: "broker",
      layout,
      poll: false,
      reconcileMs: 20,
      fullScanMs: 600_000,
      skipFinishedRuns: true,
      beforePass: () => void passes++,
      log: (m) => said.push(m),
      handleGate: async (ref) => {
        handled.push(ref.runId);
        return "active";
      },
    });
    await worker.start();
    try {
      for (const run of ["r1", "r2", "r3"]) {
        mkdirSync(layout.gateDir(run, "G-spec"), { recursive: true });
        await until(`${run} handled`, () => handled.includes(run));
        const after = passes;
        await until("passes after it", () => passes >= after + 5);
      }
      expect(said.filter((m) => m.startsWith(".guild/runs is"))).toEqual([]);
      expect(
        handled.filter((run) => run === "r1"),
        "r1, unchanged, is handled once",
      ).toEqual(["r1"]);

      rmSync(layout.runs, { recursive: true });
      mkdirSync(layout.gateDir("r4", "G-spec"), { recursive: true });
      await until("r4, in the .guild/runs made again, handled", () => handled.includes("r4"));
    } finally {
      await worker.stop();
    }
  });
});
