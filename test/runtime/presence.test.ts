// A worker says it is alive for as long as it works: also while it drains (a paid review in flight finishes), so
// status never tells a person to start a worker that is still finishing one.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { loadContext } from "../../src/bus/context.js";
import { requestReview } from "../../src/commands/review.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { parseAdvert } from "../../src/core/advertised.js";
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

  it("names the gates it keeps failing on, with the error, so status says the wait will not end by itself; then forgets them", async () => {
    const fault = new Error("EIO: i/o error, read '.guild/runs/r1/review/G-spec/request.json'\u001b[2J");
    // a reviewer's advertisement stays as it is beside the stuck gates
    await withFailingBroker(fault, '{"host":"h","providers":["p1"]}\n', async ({ layout, next, recover }) => {
      expect(next()).toMatchObject({
        waiting_on: expect.stringMatching(
          /^the broker, but the broker worker \S+ has failed .*: EIO: i\/o error, read .*request\.json'\\u001b\[2J — /,
        ),
        person_first: true,
      });
      const file = path.join(
        peersDir(layout, "broker"),
        readdirSync(peersDir(layout, "broker")).find((n) => !n.startsWith("."))!,
      );
      expect(parseAdvert(readFileSync(file, "utf8"))).toEqual({ host: "h", providers: ["p1"] });
      recover();
      await vi.waitFor(() => expect(next().waiting_on).toBe("the broker"), { timeout: 30_000, interval: 50 });
    });
  });
});

describe("a worker that advertises nothing (broker, verifier)", () => {
  it("forgets a gate it was stuck on once the gate moves: its file says nothing more, and status a plain wait", async () => {
    await withFailingBroker(new Error("EIO: i/o error"), null, async ({ next, recover }) => {
      recover();
      await vi.waitFor(() => expect(next()).toMatchObject({ waiting_on: "the broker", person_first: false }), {
        timeout: 30_000,
        interval: 50,
      });
    });
  });
});

/** A broker whose every step on gate r1/G-spec throws `fault` until `recover()`; `then` runs once status says it is stuck. */
async function withFailingBroker(
  fault: Error,
  advert: string | null,
  then: (t: { layout: Layout; next: () => ReturnType<typeof viewGate>["next"]; recover: () => void }) => Promise<void>,
): Promise<void> {
  const root = tempRoot("guild-bus-presence-");
  const layout = new Layout(root);
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, "docs", "spec.md"), "# Spec\n");
  const asked = { artifact: "docs/spec.md", gate: "G-spec", author: "claude", reviewer: "manual", runId: "r1" };
  expect(await requestReview(layout, asked)).toMatchObject({ ok: true });
  let failing = true;
  const runtime = new WorkerRuntime({
    kind: "broker",
    layout,
    poll: true,
    reconcileMs: 20,
    log: () => undefined,
    ...(advert === null ? {} : { presence: () => advert }),
    handleGate: async () => {
      if (failing) throw fault;
      return "active";
    },
  });
  await runtime.start();
  try {
    const next = () => viewGate(loadContext(layout), "r1", "G-spec").next;
    await vi.waitFor(() => expect(next().waiting_on).toMatch(/has failed on this gate \d+ times in a row since /), {
      timeout: 30_000,
      interval: 50,
    });
    await then({ layout, next, recover: () => (failing = false) });
  } finally {
    await runtime.stop();
  }
}
