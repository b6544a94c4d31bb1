// The history walk at a worker's start (SPEC §18): a request made while no worker of the kind ran is found from the
// log's `-<run>` line, before the listing of the whole history reaches its run.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FinishedRuns, finishedRunsFile } from "../../src/bus/finished-runs.js";
import { Layout } from "../../src/bus/layout.js";
import { HistoryWalk } from "../../src/runtime/history-walk.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";

/** A walk over `layout`'s runs with the log in `file`, recording what it scans and whether the log was loaded then. */
function walkOf(layout: Layout, file: string, loadedMark: string) {
  const log = new FinishedRuns(layout, file);
  const known = new Set<string>();
  const scanned: { runId: string; logLoaded: boolean }[] = [];
  const logs: string[] = [];
  let stopped = false;
  const walk = new HistoryWalk({
    runsDir: layout.runs,
    finishedLog: log,
    fullScanMs: 600_000,
    stopped: () => stopped,
    busy: () => false,
    isKnown: (runId) => known.has(runId),
    skip: (runId) => void known.add(runId),
    scan: (runId) => {
      known.add(runId);
      scanned.push({ runId, logLoaded: log.isSealed(loadedMark) });
    },
    verify: () => {},
    finishedRuns: () => [...known].filter((runId) => !scanned.some((s) => s.runId === runId)).values(),
    finishedCount: () => known.size,
    afterBatch: () => {},
    log: (message) => logs.push(message),
  });
  const run = async () => {
    try {
      await walk.start();
      await until("the first sweep done", () => logs.some((l) => l.includes("every run looked at since start")));
    } finally {
      stopped = true;
      walk.stop();
    }
    return scanned;
  };
  return { run };
}

describe("the history walk at start", () => {
  it("the runs a long log says were reopened (`-<run>`) are scanned once it is loaded, before the listing", async () => {
    const layout = new Layout(tempRoot());
    const others = Array.from({ length: 200 }, (_, i) => `old${i}`); // runs the log does not list: the listing scans them
    for (const run of ["fresh", "early", ...others]) mkdirSync(layout.runDir(run), { recursive: true });
    const file = finishedRunsFile(layout, "test")!;
    mkdirSync(path.dirname(file), { recursive: true });
    const many = Array.from({ length: 30_000 }, (_, i) => `+m${i}\treview=1\tG-spec=2`); // ~0.8 MB: loaded in slices
    // "again" was reopened and sealed again: only named
    const lines = ["-early", ...many, "-again", "+again\treview=1\tG-spec=3", "-fresh", ""];
    writeFileSync(file, lines.join("\n"));
    const scanned = await walkOf(layout, file, "m29999").run();
    expect(scanned.slice(0, 2)).toEqual([
      { runId: "early", logLoaded: true },
      { runId: "fresh", logLoaded: true },
    ]);
    expect(
      scanned
        .slice(2)
        .map((s) => s.runId)
        .sort(),
    ).toEqual([...others].sort());
  });

  it("a run the log says was reopened or created since (`-<run>`) is scanned before the listing of every other run", async () => {
    const layout = new Layout(tempRoot());
    const others = Array.from({ length: 200 }, (_, i) => `old${i}`); // runs the log does not list: the listing scans them
    for (const run of [...others, "sealed", "fresh"]) mkdirSync(layout.runDir(run), { recursive: true });
    const file = finishedRunsFile(layout, "test")!;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      ["+sealed\treview=1\tG-spec=2", "-fresh", "+again\treview=1\tG-spec=2", "-again", "+again\treview=1\tG-spec=3", ""].join("\n"),
    );
    const scanned = (await walkOf(layout, file, "sealed").run()).map((s) => s.runId);
    expect(scanned[0]).toBe("fresh");
    expect(scanned.slice(1).sort()).toEqual([...others].sort()); // "again" was sealed after it was reopened: only named
    expect(scanned).not.toContain("again");
  });
});
