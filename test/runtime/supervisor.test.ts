// `guild-bus up` when the system cannot start a worker for a while (out of descriptors, processes or memory): that is
// no failure of the worker, so it is tried again until it starts, never given up on as a worker that cannot start.
import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { supervise } from "../../src/runtime/supervisor.js";

// the next `spawn.shortages` spawns fail as Node reports a shortage (an "error" event, no process); later ones start
// (`thrown`: as Node reports ENOMEM, thrown by spawn() itself)
const { spawned } = vi.hoisted(() => ({ spawned: { shortages: 0, started: 0, thrown: false } }));
vi.mock("node:child_process", async (original) => {
  const real = await original<typeof import("node:child_process")>();
  const spawn = () => {
    const child = Object.assign(new EventEmitter(), { connected: false, kill: () => true, send: () => true });
    if (spawned.shortages > 0 && spawned.thrown) {
      spawned.shortages--;
      throw Object.assign(new Error("spawn ENOMEM"), { code: "ENOMEM", errno: -12, syscall: "spawn" });
    }
    if (spawned.shortages > 0) {
      spawned.shortages--;
      const error = Object.assign(new Error("spawn /usr/bin/node EMFILE"), { code: "EMFILE", syscall: "spawn /usr/bin/node" });
      process.nextTick(() => child.emit("error", error));
    } else {
      spawned.started++;
      child.kill = () => (process.nextTick(() => child.emit("exit", null, "SIGTERM")), true);
    }
    return child;
  };
  return { ...real, spawn, default: { ...real, spawn } };
});

afterEach(() => {
  vi.useRealTimers();
  Object.assign(spawned, { shortages: 0, started: 0, thrown: false });
});

describe("up when the system cannot start a worker", () => {
  it("keeps trying (at most 30 s apart) and starts it once the shortage passed, however long it lasted", async () => {
    vi.useFakeTimers();
    const said: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (said.push(String(chunk)), true));
    spawned.shortages = 12; // far more than the quick exits after which a worker that cannot start is given up
    const ended = supervise(["manual"], () => ["worker", "manual"]);
    try {
      for (let i = 0; i < 20 && spawned.started === 0; i++) await vi.advanceTimersByTimeAsync(30_000);
      expect(spawned.started).toBe(1);
      expect(said.join("")).not.toMatch(/not restarting it/);
      expect(said.join("")).toMatch(/cannot start the manual worker \(spawn \/usr\/bin\/node EMFILE\): .* retry in 30000 ms/);
    } finally {
      process.emit("SIGTERM");
      write.mockRestore();
    }
    expect(await ended).toBe("stopped");
  });

  it("keeps trying when spawn() itself throws the shortage (ENOMEM), rather than ending up with every worker", async () => {
    vi.useFakeTimers();
    const said: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (said.push(String(chunk)), true));
    Object.assign(spawned, { shortages: 3, thrown: true });
    const ended = supervise(["manual"], () => ["worker", "manual"]);
    try {
      for (let i = 0; i < 10 && spawned.started === 0; i++) await vi.advanceTimersByTimeAsync(30_000);
      expect(spawned.started).toBe(1);
      expect(said.join("")).toMatch(/cannot start the manual worker \(spawn ENOMEM\): .* retry in 2000 ms/);
    } finally {
      process.emit("SIGTERM");
      write.mockRestore();
    }
    expect(await ended).toBe("stopped");
  });
});
