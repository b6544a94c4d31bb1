// Every gate on disk, and what hides gates: a file where .guild/runs, a run or its review/ should be is listed as
// ignored with what to do, never read as "no gates"; a request there is refused with nothing written; a worker says why
// it cannot start.
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { listGates } from "../../src/bus/gate-list.js";
import { requestReview } from "../../src/commands/review.js";
import { WorkerRuntime } from "../../src/runtime/reconciler.js";
import { tempRoot } from "../helpers/tmp.js";

function project() {
  const root = tempRoot("guild-bus-list-");
  mkdirSync(path.join(root, "docs"), { recursive: true });
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  const layout = new Layout(root);
  mkdirSync(layout.runs, { recursive: true });
  return layout;
}

const ask = (layout: Layout, runId?: string) =>
  requestReview(layout, { artifact: "docs/spec.md", gate: "G-spec", author: "claude", reviewer: "manual", ...(runId ? { runId } : {}) });

describe("what hides gates", () => {
  it("a file at .guild/runs: listed as ignored, a request refused writing nothing, a worker refuses to start saying why", async () => {
    const layout = project();
    rmSync(layout.runs, { recursive: true });
    writeFileSync(layout.runs, "not a directory\n");
    expect(listGates(layout)).toEqual({
      gates: [],
      ignored: [{ path: ".guild/runs", reason: "not a directory: move it aside", hides: {} }],
    });
    expect(await ask(layout)).toEqual({
      ok: false,
      error: ".guild/runs is not a directory: move it aside, then request again (nothing was written)",
    });
    expect(readdirSync(layout.guild).filter((n) => n !== "runs" && n !== "settings.json")).toEqual([]);
    expect(() => new WorkerRuntime({ kind: "broker", layout, poll: false, log: () => {}, handleGate: async () => "active" })).toThrow(
      ".guild/runs (or a directory above it) is not a directory: move it aside, then start again",
    );
  });

  it("a link in place of .guild/runs is said once (it hides every run), never once per run under it", async () => {
    const layout = project();
    expect(await ask(layout, "r1")).toMatchObject({ ok: true });
    expect(await ask(layout, "r2")).toMatchObject({ ok: true });
    const moved = path.join(layout.guild, "runs-elsewhere");
    renameSync(layout.runs, moved);
    symlinkSync(moved, layout.runs);
    expect(listGates(layout)).toEqual({
      gates: [],
      ignored: [{ path: ".guild/runs", reason: "symlink refused inside .guild: .guild/runs", hides: {} }],
    });
  });

  it.skipIf(process.getuid?.() === 0)("a run directory nobody may list hides its gates: said, never read as no gates", async () => {
    const layout = project();
    expect(await ask(layout, "r1")).toMatchObject({ ok: true });
    chmodSync(layout.runDir("r1"), 0o000);
    try {
      expect(listGates(layout).ignored).toEqual([
        { path: ".guild/runs/r1", reason: expect.stringMatching(/^cannot be listed \(EACCES/), hides: { runId: "r1" } },
      ]);
    } finally {
      chmodSync(layout.runDir("r1"), 0o755);
    }
  });

  it("a file where a run or its review/ should be: listed as ignored (it may hide a gate), a request into it refused", async () => {
    const layout = project();
    expect(await ask(layout, "ok")).toMatchObject({ ok: true });
    writeFileSync(path.join(layout.runs, "r1"), "a file\n");
    mkdirSync(path.join(layout.runs, "r2"));
    writeFileSync(path.join(layout.runs, "r2", "review"), "a file\n");
    const listing = listGates(layout);
    expect(listing.gates).toEqual([{ runId: "ok", gate: "G-spec" }]);
    expect(listing.ignored).toEqual([
      { path: ".guild/runs/r1", reason: "not a directory: move it aside (or its review/ is not)", hides: { runId: "r1" } },
      { path: ".guild/runs/r2", reason: "not a directory: move it aside (or its review/ is not)", hides: { runId: "r2" } },
    ]);
    for (const [run, file] of [
      ["r1", ".guild/runs/r1"],
      ["r2", ".guild/runs/r2/review"],
    ])
      expect(await ask(layout, run)).toEqual({
        ok: false,
        error: `${file} is not a directory: move it aside, then request again (nothing was written)`,
      });
  });
});
