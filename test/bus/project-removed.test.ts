// A worker still running, or finishing a write, after its project was removed (a bench's or a test's tree, a project
// deleted by hand) must not make the tree again: `mkdir -p` of .guild/tmp or of a gate directory left
// <project>/.guild/tmp behind. Each write drops itself instead (the directory it may only make directories below is gone).
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tryClaim } from "../../src/bus/claim.js";
import { deliver } from "../../src/bus/deliver.js";
import { finishedRunsFile, FinishedRuns } from "../../src/bus/finished-runs.js";
import { Layout } from "../../src/bus/layout.js";
import { DirectoryGone, makeDirsBelow } from "../../src/bus/make-dirs.js";
import { replace } from "../../src/bus/replace.js";
import { WorkerRuntime } from "../../src/runtime/reconciler.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";

/** A project with one gate directory, whose whole tree is then removed (the worker holds the paths it had). */
function removedProject() {
  const root = tempRoot();
  const layout = new Layout(root);
  const gateDir = layout.gateDir("r1", "G-spec");
  mkdirSync(gateDir, { recursive: true });
  mkdirSync(path.join(layout.guild, "tmp"));
  rmSync(root, { recursive: true, force: true });
  return { root, layout, gateDir };
}

describe("a write into a removed project makes nothing again", () => {
  it("a delivery into its gate is dropped: no .guild/tmp, no gate directory", async () => {
    const { root, layout, gateDir } = removedProject();
    await expect(deliver(path.join(gateDir, "packet-1.md"), "packet\n", { guildDir: layout.guild })).rejects.toThrow(DirectoryGone);
    expect(existsSync(root)).toBe(false);
  });

  it("a trail rewritten late (the gate's view) is dropped, its staging directory not made", async () => {
    const { root, layout, gateDir } = removedProject();
    const trail = path.join(gateDir, "trail.md");
    await expect(replace(trail, "# trail\n", { guildDir: layout.guild, durable: false })).rejects.toThrow(DirectoryGone);
    // nor by a command that may make directories: the project's own is never made
    await expect(replace(trail, "# trail\n", { guildDir: layout.guild, makeDirs: true })).rejects.toThrow(DirectoryGone);
    expect(existsSync(root)).toBe(false);
  });

  it("the finished-runs log and a claim make nothing either", async () => {
    const { root, layout, gateDir } = removedProject();
    const log = new FinishedRuns(layout, finishedRunsFile(layout, "broker")!);
    log.seal("r1", 1, { "G-spec": 1 });
    log.flush(); // a hint only: not written, and no error
    await expect(tryClaim(layout.claimsDir("r1", "G-spec"), "dispatch")).rejects.toThrow(DirectoryGone);
    expect(existsSync(root)).toBe(false);
    expect(existsSync(gateDir)).toBe(false);
  });

  it("with .guild alone removed, a gate's own directories (claims, the log's) are not made again", async () => {
    const root = tempRoot();
    const layout = new Layout(root);
    mkdirSync(layout.gateDir("r1", "G-spec"), { recursive: true });
    rmSync(layout.guild, { recursive: true, force: true });
    await expect(tryClaim(layout.claimsDir("r1", "G-spec"), "dispatch")).rejects.toThrow(DirectoryGone);
    const log = new FinishedRuns(layout, finishedRunsFile(layout, "verifier")!);
    log.seal("r1", 1, { "G-spec": 1 });
    log.flush();
    expect(existsSync(layout.guild)).toBe(false);
  });

  it("a project that is there still gets the directories a command's write lacks (a first request makes .guild)", async () => {
    const root = tempRoot();
    const layout = new Layout(root);
    const file = layout.gateFile("r1", "G-spec", "request.json");
    expect((await deliver(file, "{}\n", { guildDir: layout.guild, makeDirs: true })).status).toBe("delivered");
  });
  it("a worker started on the removed project refuses to start, making nothing", () => {
    const { root, layout } = removedProject();
    expect(() => new WorkerRuntime({ kind: "broker", layout, poll: false, log: () => {}, handleGate: async () => "active" })).toThrow(
      DirectoryGone,
    );
    expect(existsSync(root)).toBe(false);
  });

  it("a worker started where .guild is gone (a reset before up restarted it) starts, makes nothing, and says so once", async () => {
    const root = tempRoot();
    const layout = new Layout(root);
    const said: string[] = [];
    const worker = new WorkerRuntime({ kind: "broker", layout, poll: false, log: (m) => said.push(m), handleGate: async () => "active" });
    await worker.start();
    await worker.stop();
    expect(existsSync(layout.guild)).toBe(false);
    expect(said.filter((m) => m.startsWith(".guild/runs is not there"))).toHaveLength(1);
  });

  it("a worker whose .guild/runs a file replaced says to move it aside (no review makes it), and follows the directory after", async () => {
    const layout = new Layout(tempRoot());
    mkdirSync(layout.runs, { recursive: true });
    const said: string[] = [];
    const handled: string[] = [];
    const worker = new WorkerRuntime({
      kind: "broker",
      layout,
      poll: false,
      reconcileMs: 20,
      log: (m) => said.push(m),
      handleGate: async (ref) => {
        handled.push(ref.runId);
        return "active";
      },
    });
    await worker.start();
    try {
      rmSync(layout.runs, { recursive: true });
      writeFileSync(layout.runs, "");
      await until("the worker says what is there", () => said.some((m) => m.startsWith(".guild/runs is not")));
      expect(said.filter((m) => m.startsWith(".guild/runs is not"))).toEqual([
        ".guild/runs is not a directory: move it aside; this worker follows no runs until then",
      ]);
      rmSync(layout.runs);
      mkdirSync(layout.gateDir("r1", "G-spec"), { recursive: true });
      await until("r1 handled", () => handled.includes("r1"));
    } finally {
      await worker.stop();
    }
  });
});

describe("a link leading nowhere on the way (a bus root not mounted)", () => {
  it("fails the write with its errno once: no climb back up for ever, nothing made through it", async () => {
    const root = tempRoot();
    const layout = new Layout(root);
    symlinkSync(path.join(root, "not-mounted"), layout.guild);
    const tmp = path.join(layout.guild, "tmp");
    expect(() => makeDirsBelow(root, tmp)).toThrow(expect.objectContaining({ code: "ENOENT", syscall: "mkdir" }));
    const write = deliver(layout.gateFile("r1", "G-spec", "request.json"), "{}\n", { guildDir: layout.guild, makeDirs: true });
    await expect(write).rejects.toMatchObject({ code: "ENOENT" });
    await expect(write).rejects.not.toBeInstanceOf(DirectoryGone); // the project is there: its link is what is wrong
    expect(existsSync(path.join(root, "not-mounted"))).toBe(false);
  });
});

/** A project whose gate r1/G-spec is there, staging directory included, until `removed` goes (a person's reset). */
function projectWithout(removed: (layout: Layout) => string) {
  const root = tempRoot();
  const layout = new Layout(root);
  mkdirSync(layout.gateDir("r1", "G-spec"), { recursive: true });
  mkdirSync(path.join(layout.guild, "tmp"));
  const gone = removed(layout);
  rmSync(gone, { recursive: true, force: true });
  return { root, layout, gone, file: layout.gateFile("r1", "G-spec", "packet-1.md") };
}

describe("a worker's write (the default) makes no part of the project again; a command's may (makeDirs, SPEC §4)", () => {
  it.each([
    [".guild", (l: Layout) => l.guild],
    ["the run", (l: Layout) => l.runDir("r1")],
    ["the gate", (l: Layout) => l.gateDir("r1", "G-spec")],
  ])("%s removed: a delivery and a view into the gate fail (DirectoryGone), and nothing comes back", async (_what, removed) => {
    const { layout, gone, file } = projectWithout(removed);
    await expect(deliver(file, "packet\n", { guildDir: layout.guild })).rejects.toThrow(DirectoryGone);
    await expect(replace(path.join(path.dirname(file), "trail.md"), "# trail\n", { guildDir: layout.guild })).rejects.toThrow(
      DirectoryGone,
    );
    expect(existsSync(gone)).toBe(false);
  });

  it("a request (a command's write) starts its run again, and .guild in a fresh project", async () => {
    for (const removed of [(l: Layout) => l.guild, (l: Layout) => l.runDir("r1")]) {
      const { layout, file } = projectWithout(removed);
      expect((await deliver(file, "request\n", { guildDir: layout.guild, makeDirs: true })).status).toBe("delivered");
    }
  });

  it("only .guild/tmp itself is made again by a worker, inside the .guild that is there (cleaned by hand)", async () => {
    const { layout, file } = projectWithout((l) => path.join(l.guild, "tmp"));
    expect((await deliver(file, "packet\n", { guildDir: layout.guild })).status).toBe("delivered");
    expect(existsSync(path.join(layout.guild, "tmp"))).toBe(true);
  });

  it("the floor itself is never made, even where its parent is there", () => {
    const root = tempRoot();
    const floor = path.join(root, "gate");
    expect(() => makeDirsBelow(floor, floor)).toThrow(DirectoryGone);
    expect(() => makeDirsBelow(floor, path.join(floor, "rejected"))).toThrow(DirectoryGone);
    expect(existsSync(floor)).toBe(false);
    mkdirSync(floor);
    expect(() => makeDirsBelow(floor, floor)).not.toThrow();
  });
});
