// The reconciler every worker runs on (SPEC §18): a gate whose handler throws (a bug) is retried later and later,
// its stack logged once, and is handled as usual again once the handler stops throwing.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { deliver } from "../../src/bus/deliver.js";
import { Layout } from "../../src/bus/layout.js";
import { ENDED_RUNS_WATCHED, NEW_DIR_LOOKS_MS, WorkerRuntime, type WorkerSpec } from "../../src/runtime/reconciler.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";
import { recordingRuntime } from "../helpers/runtime.js";
import { cachedParse } from "../../src/bus/parse-cache.js";
import { lastLooks, SELF_PEER } from "../../src/runtime/peers.js";

describe("reconciler: backoff on a throwing handler", () => {
  it("retries a throwing gate after 1, 2, 4, 8 … reconcile intervals, logs the stack once, and recovers", async () => {
    const root = tempRoot();
    mkdirSync(path.join(root, ".guild", "runs", "r1", "review", "G-spec"), { recursive: true });
    const calls: number[] = [];
    const logs: string[] = [];
    let failing = true;
    const runtime = new WorkerRuntime({
      kind: "test",
      layout: new Layout(root),
      poll: true,
      reconcileMs: 20,
      fullScanMs: 20,
      handleGate: async () => {
        calls.push(Date.now());
        if (failing) throw new Error("boom");
        return "active";
      },
      log: (m) => logs.push(m),
    });
    await runtime.start();
    try {
      await until("five tries", () => calls.length >= 5);
      const delays = logs.flatMap((l) => /next try in (\d+) ms/.exec(l)?.[1] ?? []).map(Number);
      expect(delays.slice(0, 4)).toEqual([20, 40, 80, 160]);
      // each retry came no sooner than the delay announced before it (a loaded machine only makes it later)
      for (let i = 1; i < 5; i++) expect(calls[i]! - calls[i - 1]!).toBeGreaterThanOrEqual(delays[i - 1]!);
      expect(logs.filter((l) => l.includes("Error: boom") && l.includes("\n    at ")).length).toBe(1);
      expect(logs.filter((l) => l.includes("still failing (") && l.includes("times in a row): boom")).length).toBeGreaterThanOrEqual(3);
      failing = false;
      const before = calls.length;
      const said = logs.length;
      await until("handled again after recovering", () => calls.length >= before + 3);
      expect(logs.slice(said).filter((l) => l.includes("next try in"))).toEqual([]);
    } finally {
      await runtime.stop();
    }
  });
});

/** Two gate directories of one run, and a runtime (not started) that records each gate it handles, in order. */
function twoGates(options: Partial<WorkerSpec>) {
  const root = tempRoot();
  const dir = (gate: string) => path.join(root, ".guild", "runs", "r1", "review", gate);
  for (const gate of ["G-spec", "G-plan"]) mkdirSync(dir(gate), { recursive: true });
  return { dir, ...recordingRuntime(root, options) };
}

describe("reconciler: a file operation the tree refuses", () => {
  it("is logged as its message, no stack: a planted file or a permission is not a bug (status names who acts)", async () => {
    const root = tempRoot();
    mkdirSync(path.join(root, ".guild", "runs", "r1", "review", "G-spec"), { recursive: true });
    const logs: string[] = [];
    const { runtime } = recordingRuntime(root, {
      handleGate: async () => {
        throw Object.assign(new Error("EISDIR: illegal operation on a directory, rename 'x' -> 'trail.md'"), {
          code: "EISDIR",
          syscall: "rename",
        });
      },
      log: (m) => logs.push(m),
    });
    await runtime.start();
    try {
      await until("two tries", () => logs.filter((l) => l.startsWith("r1/G-spec: ")).length >= 2);
      expect(logs.find((l) => l.startsWith("r1/G-spec: "))).toMatch(
        /^r1\/G-spec: a file operation failed: EISDIR: illegal operation on a directory, rename .*; next try in \d+ ms$/,
      );
      expect(logs.some((l) => l.includes("\n    at "))).toBe(false);
    } finally {
      await runtime.stop();
    }
  });

  it("a Node error of a bug (ERR_INVALID_ARG_TYPE: a code, no syscall) is a bug: its stack is logged", async () => {
    const root = tempRoot();
    mkdirSync(path.join(root, ".guild", "runs", "r1", "review", "G-spec"), { recursive: true });
    const logs: string[] = [];
    const { runtime } = recordingRuntime(root, {
      handleGate: async () => {
        readFileSync(undefined as unknown as string);
        return "active";
      },
      log: (m) => logs.push(m),
    });
    await runtime.start();
    try {
      await until("a failure logged", () => logs.some((l) => l.startsWith("r1/G-spec: ")));
      const first = logs.find((l) => l.startsWith("r1/G-spec: "))!;
      expect(first).not.toContain("a file operation failed");
      expect(first).toContain("\n    at ");
    } finally {
      await runtime.stop();
    }
  });
});

describe("reconciler: coarse directory mtimes (sshfs: whole seconds)", () => {
  it("a gate handled within the second of its directory's whole-second mtime is handled again; an older one is not", async () => {
    const { dir, calls, runtime } = twoGates({ concurrency: 2 }); // both gates a pass queues start in the same pump
    const second = Math.floor(Date.now() / 1000);
    // G-spec changed "this second" as a whole-second filesystem shows it; G-plan a minute ago
    utimesSync(dir("G-spec"), second, second);
    utimesSync(dir("G-plan"), second - 60, second - 60);
    await runtime.start();
    try {
      await until("G-spec handled twice", () => calls.filter((g) => g === "G-spec").length >= 2);
      // a later change within that second would not move the mtime: only the second look can see it
      expect(calls.filter((g) => g === "G-plan")).toEqual(["G-plan"]);
    } finally {
      await runtime.stop();
    }
  });
});

/** twoGates, started, once both gates were handled at start; `handled(gate)` counts its handlings so far. */
async function startedTwoGates(options: Partial<WorkerSpec>) {
  const gates = twoGates(options);
  await gates.runtime.start();
  try {
    await until("both gates handled at start", () => gates.calls.includes("G-spec") && gates.calls.includes("G-plan"));
  } catch (error) {
    await gates.runtime.stop();
    throw error;
  }
  return { ...gates, handled: (gate: string) => gates.calls.filter((g) => g === gate).length };
}

describe("reconciler: which files wake a worker", () => {
  it("a file the worker does not wake on does not wake it; one it wakes on is handled at once", async () => {
    const { dir, handled, runtime } = await startedTwoGates({
      poll: false,
      reconcileMs: 600_000, // no pass during the test: only watcher events can wake it
      wakesOn: (name) => name.startsWith("result-"),
    });
    try {
      const before = handled("G-spec");
      writeFileSync(path.join(dir("G-spec"), "packet-1.md"), "x");
      // events reach the worker in order: once G-plan's result is handled, G-spec's packet event has been seen
      writeFileSync(path.join(dir("G-plan"), "result-1.json"), "{}");
      await until("G-plan woken by its result", () => handled("G-plan") >= 2);
      expect(handled("G-spec")).toBe(before);
      writeFileSync(path.join(dir("G-spec"), "result-1.json"), "{}");
      await until("G-spec woken by its result", () => handled("G-spec") > before);
    } finally {
      await runtime.stop();
    }
  });

  it("a file it does not wake on, and the trail, are not read again by the next reconcile passes either", async () => {
    let passes = 0;
    // the reconcile passes (setInterval) and the new-directory looks (setTimeout) run only when the test advances the
    // clock: a pass can neither come between a file landing and its event, nor be missed on a loaded machine
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const { dir, handled, runtime } = await startedTwoGates({
      poll: false,
      reconcileMs: 20,
      beforePass: () => void passes++,
      wakesOn: (name) => name.startsWith("result-"),
    });
    try {
      vi.advanceTimersByTime(NEW_DIR_LOOKS_MS.at(-1)!); // whatever the start had scheduled is over, passes included
      const before = handled("G-spec");
      writeFileSync(path.join(dir("G-spec"), "packet-1.md"), "x");
      writeFileSync(path.join(dir("G-spec"), "trail.md"), "x");
      // a result in the other gate: once it is handled, G-spec's two events have been seen too (events come in order)
      writeFileSync(path.join(dir("G-plan"), "result-1.json"), "{}");
      await until("G-plan woken by its result", () => handled("G-plan") >= 2);
      const seen = passes;
      vi.advanceTimersByTime(3 * 20);
      expect(passes).toBe(seen + 3);
      expect(handled("G-spec")).toBe(before);
    } finally {
      vi.useRealTimers();
      await runtime.stop();
    }
  });

  it("a worker woken only when a file is gone sleeps through its arrival and wakes at its removal", async () => {
    const { dir, handled, runtime } = await startedTwoGates({
      poll: false,
      reconcileMs: 600_000,
      wakesOn: (name, gone) => name === "result-1.json" && gone(),
    });
    try {
      const before = handled("G-spec");
      writeFileSync(path.join(dir("G-spec"), "result-1.json"), "{}");
      // G-plan's result is there and then gone: handled once that removal is seen, after G-spec's arrival was
      writeFileSync(path.join(dir("G-plan"), "result-1.json"), "{}");
      rmSync(path.join(dir("G-plan"), "result-1.json"));
      await until("G-plan woken by the removal", () => handled("G-plan") >= 2);
      expect(handled("G-spec")).toBe(before);
      rmSync(path.join(dir("G-spec"), "result-1.json"));
      await until("G-spec woken by the removal", () => handled("G-spec") > before);
    } finally {
      await runtime.stop();
    }
  });
});

describe("reconciler: a finished gate is looked at again when a file arrived while it was handled", () => {
  it("a drop during the last handling (no event for it) is found by the next scan; the gate then settles", async () => {
    let drops = 0;
    const { dir, calls, runtime } = twoGates({
      poll: false,
      fullScanMs: 30,
      wakesOn: () => false, // no event wakes it: only the scans can find the drop
      handleGate: async (ref) => {
        calls.push(ref.gate);
        // G-spec: a late file lands while its first (finishing) handling runs. G-plan: one lands at each of its
        // handlings, so it is handled once every scan, and counts them.
        if (ref.gate === "G-plan" || calls.filter((g) => g === "G-spec").length === 1)
          writeFileSync(path.join(dir(ref.gate), `attempt-${++drops}.json`), "{}");
        return "finished";
      },
    });
    await runtime.start();
    try {
      const spec = () => calls.filter((g) => g === "G-spec").length;
      await until("G-spec looked at again", () => spec() >= 2);
      const scans = calls.filter((g) => g === "G-plan").length;
      await until("three more scans", () => calls.filter((g) => g === "G-plan").length >= scans + 3);
      expect(spec()).toBe(2);
    } finally {
      await runtime.stop();
    }
  });
});

describe("reconciler: a new gate directory", () => {
  it("handled when it appears is not handled again by the later looks at a new directory when nothing came since", async () => {
    const root = tempRoot();
    const review = path.join(root, ".guild", "runs", "r1", "review");
    mkdirSync(path.join(review, "G-plan"), { recursive: true }); // an open gate: its run's review/ is watched
    const { runtime, calls } = recordingRuntime(root, { poll: false, reconcileMs: 600_000 });
    // the later looks (setTimeout) run when the test advances the clock, however loaded the machine is
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    await runtime.start();
    try {
      await until("G-plan handled at start", () => calls.includes("G-plan"));
      mkdirSync(path.join(review, "G-spec"));
      await until("G-spec handled when it appeared", () => calls.includes("G-spec"));
      vi.advanceTimersByTime(NEW_DIR_LOOKS_MS.at(-1)!); // every later look at G-spec runs now
      expect(calls.filter((g) => g === "G-spec")).toEqual(["G-spec"]);
    } finally {
      vi.useRealTimers();
      await runtime.stop();
    }
  });
});

describe("reconciler: watches of ended runs", () => {
  it("a worker watches only the runs that ended last (watches do not grow with history); an older run's next gate is found", async () => {
    const root = tempRoot();
    const runs = path.join(root, ".guild", "runs");
    const many = ENDED_RUNS_WATCHED * 2 + 10;
    for (let i = 0; i < many; i++) mkdirSync(path.join(runs, `r${i}`, "review", "G-spec"), { recursive: true });
    const watches = () => process.getActiveResourcesInfo().filter((r) => r === "FSEventWrap").length;
    const before = watches();
    const handled = new Set<string>();
    const { runtime } = recordingRuntime(root, {
      poll: false,
      fullScanMs: 200,
      handleGate: async (ref) => {
        handled.add(`${ref.runId}/${ref.gate}`);
        return "finished";
      },
    });
    await runtime.start();
    try {
      await until("every gate handled", () => handled.size === many);
      // .guild/runs itself, and the run and review/ directories of the runs that ended last
      await until("the older ended runs unwatched", () => watches() - before <= 1 + 2 * ENDED_RUNS_WATCHED);
      mkdirSync(path.join(runs, "r0", "review", "G-plan"));
      await until("the next gate of an ended run handled", () => handled.has("r0/G-plan"));
    } finally {
      await runtime.stop();
    }
  });
});

describe("reconciler: what a worker keeps of an ended gate", () => {
  it("nothing of its parsed files: a long-lived worker's memory does not grow with the gates it saw end", async () => {
    const root = tempRoot();
    const gateDir = path.join(root, ".guild", "runs", "r1", "review", "G-spec");
    mkdirSync(gateDir, { recursive: true });
    const packet = path.join(gateDir, "packet-1.md");
    let parses = 0;
    const read = () =>
      cachedParse(
        packet,
        "1:5000:1:1",
        () => ({ n: ++parses }),
        () => true,
      );
    let ended = false;
    const { runtime } = recordingRuntime(root, {
      poll: false,
      skipFinishedRuns: true,
      handleGate: async () => {
        read();
        ended = true;
        return "finished";
      },
    });
    await runtime.start();
    try {
      await until("the gate handled and ended", () => ended && runtime.activeCount() === 0);
      // parsed anew once its run ended: the worker keeps nothing of it
      await until("the ended run's files forgotten", () => (read(), parses === 2));
    } finally {
      await runtime.stop();
    }
  });
});

describe("reconciler: a run removed while its gates are open", () => {
  it("is forgotten with its gates: none is handled again, retried or counted active", async () => {
    const { dir, runtime, calls } = twoGates({ poll: false });
    await runtime.start();
    try {
      await until("both gates active", () => runtime.activeCount() === 2 && calls.length >= 2);
      rmSync(path.dirname(path.dirname(dir("G-spec"))), { recursive: true, force: true });
      await until("the removed run's gates forgotten", () => runtime.activeCount() === 0);
    } finally {
      await runtime.stop();
    }
  });
});

describe("reconciler: a gate removed while its handler writes to it (SPEC §4)", () => {
  it("is said once and forgotten, never retried; the run's other gate goes on", async () => {
    const root = tempRoot();
    const layout = new Layout(root);
    for (const gate of ["G-spec", "G-plan"]) mkdirSync(layout.gateDir("r1", gate), { recursive: true });
    const calls: string[] = [];
    const logs: string[] = [];
    const runtime = new WorkerRuntime({
      kind: "test",
      layout,
      poll: true,
      reconcileMs: 20,
      fullScanMs: 20,
      handleGate: async ({ gate }) => {
        calls.push(gate);
        if (gate === "G-spec") {
          rmSync(layout.gateDir("r1", gate), { recursive: true }); // a person's reset, while the worker is at it
          await deliver(layout.gateFile("r1", gate, "packet-1.md"), "packet\n", { guildDir: layout.guild });
        }
        return "active";
      },
      log: (m) => logs.push(m),
    });
    await runtime.start();
    try {
      await until("the removed gate forgotten", () => runtime.activeCount() === 1);
      const plans = calls.filter((g) => g === "G-plan").length;
      await until("the other gate handled on", () => calls.filter((g) => g === "G-plan").length >= plans + 3);
      expect(calls.filter((g) => g === "G-spec")).toEqual(["G-spec"]);
      expect(logs.filter((l) => l.startsWith("r1/G-spec:"))).toEqual([
        expect.stringMatching(/^r1\/G-spec: removed while this worker wrote to it \(.*G-spec is gone; .*\); forgotten, not retried$/),
      ]);
      expect(existsSync(layout.gateDir("r1", "G-spec"))).toBe(false);
    } finally {
      await runtime.stop();
    }
  });
});

describe("reconciler: when a worker last looked at everything (SPEC §18)", () => {
  it("its presence file says a time only once every active gate was handled from a read after it; a running handler holds it", async () => {
    const root = tempRoot();
    const layout = new Layout(root);
    for (const gate of ["G-spec", "G-plan"]) mkdirSync(path.join(root, ".guild", "runs", "r1", "review", gate), { recursive: true });
    let holding = false;
    let release: (() => void) | undefined;
    let specLooks = 0;
    const runtime = new WorkerRuntime({
      kind: "test",
      layout,
      poll: false,
      reconcileMs: 20,
      fullScanMs: 50,
      concurrency: 2,
      skipFinishedRuns: true,
      handleGate: async (ref) => {
        if (ref.gate === "G-spec") specLooks++;
        else if (holding) await new Promise<void>((resolve) => (release = resolve));
        return "active";
      },
      log: () => {},
    });
    const looked = () => lastLooks(layout, "test").find((l) => l.peer === SELF_PEER)?.looked ?? 0;
    await runtime.start();
    try {
      const started = Date.now();
      await until("a look after start", () => looked() > started);
      holding = true;
      const held = Date.now();
      await until("G-plan's handler to hang", () => release !== undefined);
      // G-spec is looked at again and again, and the file re-dated each second: G-plan's handler still holds the stamp
      const [looks, beat] = [specLooks, statSync(path.join(layout.guild, "workers", "test", SELF_PEER)).mtimeMs];
      await until("G-spec looked at again, the file re-dated", () => {
        const st = statSync(path.join(layout.guild, "workers", "test", SELF_PEER), { throwIfNoEntry: false });
        return specLooks > looks + 3 && (st?.mtimeMs ?? 0) > beat;
      });
      expect(looked()).toBeLessThan(held);
      release!();
      await until("a look after G-plan's handler ended", () => looked() > held);
    } finally {
      release?.();
      await runtime.stop();
    }
  });
});
