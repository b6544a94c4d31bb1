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

describe("the history walk at start", () => {
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
    const known = new Set<string>();
    const scanned: string[] = [];
    const logs: string[] = [];
    let stopped = false;
    const walk = new HistoryWalk({
      runsDir: layout.runs,
      finishedLog: new FinishedRuns(layout, file),
      fullScanMs: 600_000,
      stopped: () => stopped,
      busy: () => false,
      isKnown: (runId) => known.has(runId),
      skip: (runId) => void known.add(runId),
      scan: (runId) => {
        known.add(runId);
        scanned.push(runId);
      },
      verify: () => {},
      finishedRuns: () => [...known].filter((runId) => !scanned.includes(runId)).values(),
      afterBatch: () => {},
      log: (message) => logs.push(message),
    });
    try {
      await walk.start();
      await until("the first sweep done", () => logs.some((l) => l.includes("every run looked at since start")));
    } finally {
      stopped = true;
      walk.stop();
    }
    expect(scanned[0]).toBe("fresh"); // "again" was sealed after it was reopened: only named, like "sealed"
    expect(scanned.filter((r) => r === "fresh")).toHaveLength(1);
    expect([...scanned].sort()).toEqual(["fresh", ...others].sort());
  });
});
