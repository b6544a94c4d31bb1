// A worker still running, or finishing a write, after its project was removed (a bench's or a test's tree, a project
// deleted by hand) must not make the tree again: `mkdir -p` of .guild/tmp or of a gate directory left
// <project>/.guild/tmp behind. Each write drops itself instead (the directory it may only make directories below is gone).
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tryClaim } from "../../src/bus/claim.js";
import { deliver } from "../../src/bus/deliver.js";
import { finishedRunsFile, FinishedRuns } from "../../src/bus/finished-runs.js";
import { Layout } from "../../src/bus/layout.js";
import { DirectoryGone, makeDirsBelow } from "../../src/bus/make-dirs.js";
import { replace } from "../../src/bus/replace.js";
import { WorkerRuntime } from "../../src/runtime/reconciler.js";
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
    await expect(replace(trail, "# trail\n", { guildDir: layout.guild, durable: false, makeDir: false })).rejects.toThrow(DirectoryGone);
    await expect(replace(trail, "# trail\n", { guildDir: layout.guild })).rejects.toThrow(DirectoryGone);
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

  it("a project that is there still gets the directories it lacks (a first request makes .guild)", async () => {
    const root = tempRoot();
    const layout = new Layout(root);
    const file = layout.gateFile("r1", "G-spec", "request.json");
    expect((await deliver(file, "{}\n", { guildDir: layout.guild })).status).toBe("delivered");
  });
  it("a worker started on the removed project refuses to start, making nothing", () => {
    const { root, layout } = removedProject();
    expect(() => new WorkerRuntime({ kind: "broker", layout, poll: false, log: () => {}, handleGate: async () => "active" })).toThrow(
      DirectoryGone,
    );
    expect(existsSync(root)).toBe(false);
  });
});

describe("a link leading nowhere on the way (a bus root not mounted)", () => {
  it("fails the write with its errno once: no climb back up for ever, nothing made through it", async () => {
    const root = tempRoot();
    const layout = new Layout(root);
    symlinkSync(path.join(root, "not-mounted"), layout.guild);
    const tmp = path.join(layout.guild, "tmp");
    expect(() => makeDirsBelow(root, tmp)).toThrow(expect.objectContaining({ code: "ENOENT", syscall: "mkdir" }));
    const write = deliver(layout.gateFile("r1", "G-spec", "request.json"), "{}\n", { guildDir: layout.guild });
    await expect(write).rejects.toMatchObject({ code: "ENOENT" });
    await expect(write).rejects.not.toBeInstanceOf(DirectoryGone); // the project is there: its link is what is wrong
    expect(existsSync(path.join(root, "not-mounted"))).toBe(false);
  });
});
