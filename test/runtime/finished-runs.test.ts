// Finished history costs nothing (issue #15, SPEC §18): a worker writes .guild/finished-runs.log as runs finish; the
// next worker skips those runs at start and verifies them with a paced sweep, so a late drop, a new gate, or a stale,
// garbled or deleted log still gets the work found. The real-worker cases are in test/it/history.test.ts.
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FinishedRuns, finishedRunsFile, reopenRun } from "../../src/bus/finished-runs.js";
import { Layout } from "../../src/bus/layout.js";
import { WorkerRuntime } from "../../src/runtime/reconciler.js";
import { Outcome } from "../../src/spec/schemas.js";
import { until } from "../helpers/clients.js";
import { outcome as outcomeRecord } from "../helpers/snapshots.js";
import { tempRoot } from "../helpers/tmp.js";

/** A valid outcome.json for `gate` of `runId`. */
function outcome(runId: string, gate: string): string {
  return JSON.stringify(Outcome.parse(outcomeRecord("satisfied", 1, { run_id: runId, gate })));
}

/** A worker that records each gate it handles (and, when given, each line it logs). */
function worker(layout: Layout, handled: string[], fullScanMs: number, logs?: string[]): WorkerRuntime {
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
    log: (m) => logs?.push(m),
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

/** The log the test workers (kind "test") keep. */
function logPath(layout: Layout): string {
  return finishedRunsFile(layout, "test")!;
}

function logText(layout: Layout): string {
  try {
    return readFileSync(logPath(layout), "utf8");
  } catch {
    return "";
  }
}

/** A worker started and past its first sweep (stopped again if it never gets there), and the gates it handled. */
async function sweptWorker(layout: Layout, fullScanMs: number) {
  const handled: string[] = [];
  const logs: string[] = [];
  const next = worker(layout, handled, fullScanMs, logs);
  await next.start();
  try {
    await until("the first sweep done", () => logs.some((l) => l.includes("every run looked at since start")));
  } catch (error) {
    await next.stop();
    throw error;
  }
  return { next, handled };
}

/** A first worker finds every run finished and writes the log. */
async function sealAll(layout: Layout): Promise<void> {
  const handled: string[] = [];
  const first = worker(layout, handled, 600_000);
  await first.start();
  try {
    await until("every finished run in the log", () =>
      RUNS.every((r) => new RegExp(`^\\+${r}\\treview=[\\d.]+\\tG-spec=`, "m").test(logText(layout))),
    );
    expect(handled).toEqual([]); // a valid outcome: nothing to do
  } finally {
    await first.stop();
  }
}

describe("the finished-runs log: a hint that only a well-formed line can give", () => {
  it("reads + and - lines (the last wins) and ignores torn, garbled and foreign lines", async () => {
    const layout = finishedTree();
    mkdirSync(path.dirname(logPath(layout)), { recursive: true });
    writeFileSync(
      logPath(layout),
      [
        "+f0\treview=1\tG-spec=2",
        "+f1\treview=1\tG-spec=2",
        "-f1",
        "+f2\treview=1", // no gate: seals nothing
        "+f3\treview=1\tG-spec=x", // not a number
        "+../x\treview=1\tG-spec=2", // not a run id
        "garbage",
        "+f4\treview=1\tG-bogus=2", // not a gate
        "+f5\treview=1\tG-spec=2", // no newline yet: a line still being written
      ].join("\n"),
    );
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    expect(["f0", "f1", "f2", "f3", "f4", "f5"].filter((r) => log.isSealed(r))).toEqual(["f0"]);
    expect(log.loggedGates("f0")).toEqual({ "G-spec": 2 });
    appendFileSync(logPath(layout), "\n-f0\n");
    expect(log.refresh().sort()).toEqual(["f0"]); // f5's line completed, f0 reopened
    expect(log.isSealed("f5")).toBe(true);
    expect(log.isSealed("f0")).toBe(false);
  });

  it("a large log is loaded whole, piece by piece, also across a line longer than a piece", async () => {
    const layout = finishedTree();
    mkdirSync(path.dirname(logPath(layout)), { recursive: true });
    const many = Array.from({ length: 20_000 }, (_, i) => `+m${i}\treview=1\tG-spec=2`); // ~0.5 MB: several pieces
    const long = `+long\treview=1\t${Array.from({ length: 30_000 }, (_, i) => `G-lane:l${i}=2`).join("\t")}`; // ~0.5 MB
    writeFileSync(logPath(layout), [...many, long, "+last\treview=1\tG-spec=2", ""].join("\n"));
    const log = new FinishedRuns(layout, logPath(layout));
    const loading = log.load();
    expect(log.isSealed("m0")).toBe(false); // nothing is read before the caller's next turn of the event loop
    await loading;
    expect(["m0", "m19999", "long", "last"].filter((r) => log.isSealed(r))).toEqual(["m0", "m19999", "long", "last"]);
    expect(Object.keys(log.loggedGates("long") ?? {})).toHaveLength(30_000);
  });

  it("a line longer than a refresh reads, or a file larger than a log can be, is no log: it is replaced, not read on", async () => {
    const layout = finishedTree();
    mkdirSync(path.dirname(logPath(layout)), { recursive: true });
    const overlong = `+huge\treview=1\tG-spec=${"9".repeat(17 * 1024 * 1024)}`; // over the 16 MiB a refresh reads
    writeFileSync(logPath(layout), ["+f0\treview=1\tG-spec=2", overlong, "+f1\treview=1\tG-spec=2", ""].join("\n"));
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    expect(["f0", "huge", "f1"].filter((r) => log.isSealed(r))).toEqual(["f0"]); // what came before it stands
    log.flush();
    expect(logText(layout)).toBe("+f0\treview=1\tG-spec=2\n"); // replaced by what this worker knows
    // staged where the janitor sweeps a killed worker's leftovers, not beside the log
    expect(readdirSync(path.dirname(logPath(layout)))).toEqual([path.basename(logPath(layout))]);
    expect(readdirSync(path.join(layout.guild, "tmp"))).toEqual([]);
    appendFileSync(logPath(layout), "-f0\n+f2\treview=1\tG-spec=2\n");
    expect(log.refresh()).toEqual(["f0"]); // and read on as a log again
    expect(["f0", "f2"].filter((r) => log.isSealed(r))).toEqual(["f2"]);

    // a sparse file of 64 GiB (a hostile truncate): not read at all, so the worker's start is not held up for hours
    truncateSync(logPath(layout), 64 * 1024 ** 3);
    const fresh = new FinishedRuns(layout, logPath(layout));
    await fresh.load();
    fresh.seal("f3", 1, { "G-spec": 2 });
    fresh.flush();
    expect(logText(layout)).toBe("+f3\treview=1\tG-spec=2\n");
  });

  it("a log of millions of runs costs bounded memory: past 250,000 runs, the others are scanned as without a log", async () => {
    const layout = finishedTree();
    mkdirSync(path.dirname(logPath(layout)), { recursive: true });
    const lines = Array.from({ length: 260_000 }, (_, i) => `+r${i.toString(36)}\tG-spec=0\n`);
    writeFileSync(logPath(layout), lines.join(""));
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    expect(log.isSealed("r0")).toBe(true);
    expect(log.isSealed(`r${(249_999).toString(36)}`)).toBe(true);
    expect(log.isSealed(`r${(250_000).toString(36)}`)).toBe(false);
    log.seal("late", 1, { "G-spec": 2 }); // no room: a hint lost, never a Map past its limit
    expect(log.isSealed("late")).toBe(false);
  });

  it("a log that grows past what a worker could write while it is read is not read on, and is replaced", async () => {
    const layout = finishedTree();
    mkdirSync(path.dirname(logPath(layout)), { recursive: true });
    writeFileSync(logPath(layout), "+f0\treview=1\tG-spec=2\n");
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    // grown to 300 MiB under the reader (sparse), in lines a refresh could read (one every 8 MiB)
    const fd = openSync(logPath(layout), "r+");
    for (let at = 8 * 1024 ** 2; at <= 300 * 1024 ** 2; at += 8 * 1024 ** 2) writeSync(fd, "\n", at);
    closeSync(fd);
    expect(log.refresh()).toEqual([]);
    log.flush();
    expect(statSync(logPath(layout)).size).toBe("+f0\treview=1\tG-spec=2\n".length); // replaced, not read on
  });

  it("a log replaced under a reader (another worker's flush) is read from its start, even when it is no shorter", async () => {
    const layout = finishedTree();
    mkdirSync(path.dirname(logPath(layout)), { recursive: true });
    writeFileSync(logPath(layout), "+f0\treview=1\tG-spec=2\n");
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    writeFileSync(`${logPath(layout)}.new`, "+f1\treview=1\tG-spec=2\n+f2\treview=1\tG-spec=2\n");
    renameSync(`${logPath(layout)}.new`, logPath(layout));
    log.refresh();
    expect(["f0", "f1", "f2"].filter((r) => log.isSealed(r))).toEqual(["f0", "f1", "f2"]);
  });

  it("a torn last line (its writer died mid-line) does not swallow the next line appended", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    appendFileSync(logPath(layout), "+f9\treview=1\tG-sp"); // torn: no newline
    reopenRun(layout, "f2");
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    expect(RUNS.filter((r) => log.isSealed(r))).toEqual(["f0", "f1", "f3"]); // the reopen line was read whole
  });

  it("a FIFO in the log's place is no log: a worker starts, handles what is active, and never waits on it", async () => {
    const layout = finishedTree();
    mkdirSync(path.dirname(logPath(layout)), { recursive: true });
    execFileSync("mkfifo", [logPath(layout)]);
    mkdirSync(layout.gateDir("f0", "G-plan"), { recursive: true });
    writeFileSync(layout.gateFile("f0", "G-plan", "request.json"), "{}");
    const { next, handled } = await sweptWorker(layout, 600_000);
    try {
      expect(handled).toEqual(["f0/G-plan"]);
    } finally {
      await next.stop();
    }
  });

  it("a log that is a hard link to a file elsewhere is neither appended to nor read, and the next flush replaces it", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    const outside = path.join(layout.root, "outside.txt");
    linkSync(logPath(layout), outside); // whoever holds this name can write the log from outside .guild
    const held = readFileSync(outside, "utf8");
    reopenRun(layout, "f2");
    expect(readFileSync(outside, "utf8")).toBe(held);
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    expect(RUNS.filter((r) => log.isSealed(r))).toEqual([]); // its lines are not taken: every run is scanned
    log.flush();
    expect(statSync(logPath(layout)).nlink).toBe(1);
    expect(readFileSync(outside, "utf8")).toBe(held);
  });

  it("unchanged() is true only while review/ and every logged gate directory keep their logged mtimes", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    expect(RUNS.every((r) => log.unchanged(r))).toBe(true);
    writeFileSync(layout.gateFile("f1", "G-spec", "result-9.json"), "{}"); // a late drop
    mkdirSync(layout.gateDir("f2", "G-plan")); // a new gate
    expect(RUNS.map((r) => log.unchanged(r))).toEqual([true, false, false, true]);
    // a line naming only some of a run's gates, with review/'s mtime as it is now (anyone can append one), hides none
    mkdirSync(layout.gateDir("f3", "G-plan"));
    const mtime = (p: string) => statSync(p).mtimeMs;
    log.seal("f3", mtime(path.dirname(layout.gateDir("f3", "G-spec"))), { "G-spec": mtime(layout.gateDir("f3", "G-spec")) });
    expect(log.unchanged("f3")).toBe(false);
    // nor does a file named like a gate stand in for a directory the line leaves out
    writeFileSync(path.join(path.dirname(layout.gateDir("f3", "G-spec")), "G-quality"), "");
    const review = path.dirname(layout.gateDir("f3", "G-spec"));
    log.seal("f3", mtime(review), { "G-spec": mtime(layout.gateDir("f3", "G-spec")), "G-quality": mtime(path.join(review, "G-quality")) });
    expect(log.unchanged("f3")).toBe(false);
  });
});

describe("finished runs: skipped at start, still found when they change", () => {
  it("the next worker handles a late drop in a finished gate and a new gate in a finished run, and nothing else", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    writeFileSync(layout.gateFile("f1", "G-spec", "result-9.json"), "{}"); // a late drop while no worker ran
    mkdirSync(layout.gateDir("f2", "G-plan"), { recursive: true });
    writeFileSync(layout.gateFile("f2", "G-plan", "request.json"), "{}");
    const handled: string[] = [];
    const next = worker(layout, handled, 600_000); // no steady sweep during the test: the first sweep finds them
    await next.start();
    try {
      await until("the first sweep found both", () => handled.includes("f1/G-spec") && handled.includes("f2/G-plan"));
      await until("f2 sealed again with its new gate", () => /^\+f2\t.*G-plan=/m.test(logText(layout)));
      expect(handled.filter((h) => !["f1/G-spec", "f2/G-plan"].includes(h))).toEqual([]);
    } finally {
      await next.stop();
    }
  });

  it("an outcome rewritten in place (its directory's mtime unmoved) is handled again, by the next worker and a running one", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    const inPlace = (run: string) => {
      const file = layout.gateFile(run, "G-spec", "outcome.json");
      const dir = statSync(layout.gateDir(run, "G-spec")).mtimeMs;
      const fd = openSync(file, "r+");
      writeSync(fd, '{"x":1}', 0);
      closeSync(fd);
      truncateSync(file, 7);
      const later = new Date(Math.max(Date.now(), dir + 1000));
      utimesSync(file, later, later); // a clock that moved on since the outcome's link, as an editor's write has
      expect(statSync(layout.gateDir(run, "G-spec")).mtimeMs).toBe(dir);
    };
    inPlace("f1");
    const { next, handled } = await sweptWorker(layout, 300);
    try {
      await until("the next worker looked at f1 again", () => handled.includes("f1/G-spec"));
      inPlace("f2");
      await until("the running worker's sweep looked at f2 again", () => handled.includes("f2/G-spec"));
      expect(handled.filter((h) => !["f1/G-spec", "f2/G-spec"].includes(h))).toEqual([]);
    } finally {
      await next.stop();
    }
  });

  it("an outcome restored over the logged one with its mtime set back (cp -p, rsync -a, tar x) is handled again", async () => {
    const layout = finishedTree();
    // times a restore can set exactly (whole seconds), as the workers log them
    const then = 1_700_000_000;
    const pin = (run: string) => {
      utimesSync(layout.gateFile(run, "G-spec", "outcome.json"), then, then);
      utimesSync(layout.gateDir(run, "G-spec"), then, then);
    };
    RUNS.forEach(pin);
    await sealAll(layout);
    const restored = (run: string) => {
      // in place: names another gate, so the gate has no outcome now; then its times set back as `cp -p` sets them
      writeFileSync(layout.gateFile(run, "G-spec", "outcome.json"), outcome(run, "G-plan"));
      pin(run);
    };
    restored("f1");
    const { next, handled } = await sweptWorker(layout, 300);
    try {
      await until("the next worker looked at f1 again", () => handled.includes("f1/G-spec"));
      restored("f2");
      await until("the running worker's sweep looked at f2 again", () => handled.includes("f2/G-spec"));
      expect(handled.filter((h) => !["f1/G-spec", "f2/G-spec"].includes(h))).toEqual([]);
    } finally {
      await next.stop();
    }
  });

  it("a running worker's steady sweep finds a drop into a finished run no watcher covers", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    const { next, handled } = await sweptWorker(layout, 300);
    try {
      mkdirSync(layout.gateDir("f3", "G-plan"), { recursive: true }); // by hand: no `-` line
      writeFileSync(layout.gateFile("f3", "G-plan", "request.json"), "{}");
      await until("the steady sweep found it", () => handled.includes("f3/G-plan"));
    } finally {
      await next.stop();
    }
  });

  it("a writer that reopens a finished run (a new request in it) gets it handled without waiting for the sweep", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    const { next, handled } = await sweptWorker(layout, 600_000); // no steady sweep during the test
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

  it("a forged + line for a run whose gate has no outcome hides nothing: the next worker handles the gate", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    // a new run nobody has ended, and a line a foreign writer appends for it with the directories' mtimes as they are
    mkdirSync(layout.gateDir("pending", "G-spec"), { recursive: true });
    writeFileSync(layout.gateFile("pending", "G-spec", "request.json"), "{}");
    const mtime = (p: string) => statSync(p).mtimeMs;
    const review = path.dirname(layout.gateDir("pending", "G-spec"));
    appendFileSync(logPath(layout), `+pending\treview=${mtime(review)}\tG-spec=${mtime(layout.gateDir("pending", "G-spec"))}\n`);
    const log = new FinishedRuns(layout, logPath(layout));
    await log.load();
    expect(log.isSealed("pending")).toBe(true);
    expect(log.unchanged("pending")).toBe(false);
    const handled: string[] = [];
    const next = worker(layout, handled, 600_000);
    await next.start();
    try {
      await until("the pending gate handled", () => handled.includes("pending/G-spec"));
    } finally {
      await next.stop();
    }
  });

  it("a deleted log is written again by a running worker, and a fresh start without it scans every run", async () => {
    const layout = finishedTree();
    await sealAll(layout);
    const handled: string[] = [];
    const next = worker(layout, handled, 600_000);
    await next.start();
    try {
      await until("the log read", () => logText(layout).length > 0);
      rmSync(logPath(layout));
      await until("the log written again", () => RUNS.every((r) => logText(layout).includes(`+${r}\t`)));
    } finally {
      await next.stop();
    }
    rmSync(logPath(layout));
    mkdirSync(layout.gateDir("f0", "G-plan"), { recursive: true });
    writeFileSync(layout.gateFile("f0", "G-plan", "request.json"), "{}");
    const fresh = worker(layout, handled, 600_000);
    await fresh.start();
    try {
      await until("the new gate found without a log", () => handled.includes("f0/G-plan"));
      await until("the log rebuilt", () => existsSync(logPath(layout)) && RUNS.every((r) => logText(layout).includes(`+${r}\t`)));
    } finally {
      await fresh.stop();
    }
  });
});
