// A worker says it is alive for as long as it works: also while it drains (a paid review in flight finishes), so
// status never tells a person to start a worker that is still finishing one.
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { peersDir, workerRunning } from "../../src/runtime/peers.js";
import { WorkerRuntime } from "../../src/runtime/reconciler.js";
import { tempRoot } from "../helpers/tmp.js";

describe("a worker's presence", () => {
  it("keeps being re-dated while the worker drains, and is gone once it stopped", async () => {
    const root = tempRoot("guild-bus-presence-");
    const layout = new Layout(root);
    const gateDir = layout.gateDir("r1", "G-spec");
    mkdirSync(gateDir, { recursive: true });
    writeFileSync(path.join(gateDir, "request.json"), "{}");
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const handling = new Promise<void>((r) => (started = r));
    const runtime = new WorkerRuntime({
      kind: "codex",
      layout,
      poll: true,
      reconcileMs: 50,
      log: () => undefined,
      handleGate: async () => {
        started();
        await held; // a dispatch in flight
        return "active";
      },
    });
    await runtime.start();
    await handling;
    expect(workerRunning(layout, "codex")).toBe(true);
    const draining = runtime.drain();
    const file = path.join(peersDir(layout, "codex"), readdirSync(peersDir(layout, "codex"))[0]!);
    const before = statSync(file).mtimeMs;
    await vi.waitFor(() => expect(statSync(file).mtimeMs).toBeGreaterThan(before), { timeout: 30_000, interval: 100 });
    expect(workerRunning(layout, "codex")).toBe(true);
    release();
    await draining;
    expect(workerRunning(layout, "codex")).toBe(false);
  });
});
