// A reviewer's process group outlives a worker killed with -9 (no exit path of the worker runs); the next janitor on
// the machine kills it — only a group its record's marker still names, only once its worker is gone.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { DISPATCH_MARKER, newMarker, recordGroup, sweepOrphanGroups } from "../../src/bus/reviewer-groups.js";
import { runChild } from "../../src/adapters/child.js";
import { tempRoot } from "../helpers/tmp.js";

const WAIT = { timeout: 30_000, interval: 50 };

/** Wait until the process runs with this marker in its environment (right after spawn it may not have exec'd yet). */
const runsWith = (pid: number, marker: string) =>
  vi.waitFor(() => expect(readFileSync(`/proc/${pid}/environ`, "latin1")).toContain(`${DISPATCH_MARKER}=${marker}`), WAIT);

/** A reviewer stand-in: a detached group that sleeps, started with this marker. */
async function reviewer(marker: string) {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, [DISPATCH_MARKER]: marker },
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
  await runsWith(child.pid!, marker);
  return { child, exited };
}

/** This machine as records name it: host and pid namespace. */
const ns = `${hostname()
  .replace(/[^A-Za-z0-9.-]/g, "-")
  .slice(0, 100)}-${/\d+/.exec(readlinkSync("/proc/self/ns/pid"))![0]}`;

/** A pid that ran and is gone: a worker killed with -9. */
const deadPid = () => Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);

describe("reviewer process groups of dead workers", () => {
  it("the janitor kills the group a gone worker recorded, and leaves a live worker's and a group its marker does not name", async () => {
    const dir = tempRoot("guild-bus-groups-");
    const orphanMarker = newMarker();
    const linkedMarker = newMarker();
    const foreignMarker = newMarker();
    const all = [
      await reviewer(orphanMarker),
      await reviewer(newMarker()),
      await reviewer(newMarker()),
      await reviewer(linkedMarker),
      await reviewer(foreignMarker),
    ];
    const [orphan, other, mine, linked, foreign] = all as [
      (typeof all)[0],
      (typeof all)[0],
      (typeof all)[0],
      (typeof all)[0],
      (typeof all)[0],
    ];
    try {
      const dead = deadPid();
      writeFileSync(path.join(dir, `guild-bus-group-${ns}-${dead}-${orphan.child.pid}`), orphanMarker);
      writeFileSync(path.join(dir, `guild-bus-group-${ns}-${dead}-${other.child.pid}`), newMarker()); // not its marker
      const forget = recordGroup(mine.child.pid!, newMarker(), dir); // this worker's: alive
      // a link is no record this user wrote (the temp directory is everyone's): it names nothing to kill
      writeFileSync(path.join(dir, "elsewhere"), linkedMarker);
      symlinkSync(path.join(dir, "elsewhere"), path.join(dir, `guild-bus-group-${ns}-${dead}-${linked.child.pid}`));
      // another machine's (a container, a host sharing the directory): its pids mean nothing here
      writeFileSync(path.join(dir, `guild-bus-group-elsewhere-1-${dead}-${foreign.child.pid}`), foreignMarker);
      // asked for other workers' groups only (a test's own workers), it leaves this one's
      expect(sweepOrphanGroups(dir, new Set([dead + 1]))).toEqual([]);
      expect(sweepOrphanGroups(dir, new Set([dead]))).toEqual([orphan.child.pid]);
      expect(await orphan.exited).toBe("SIGKILL");
      for (const alive of [other, linked, foreign]) expect(alive.child.exitCode === null && alive.child.signalCode === null).toBe(true);
      expect(readdirSync(dir).sort()).toEqual(
        [
          "elsewhere",
          `guild-bus-group-${ns}-${dead}-${linked.child.pid}`,
          `guild-bus-group-${ns}-${process.pid}-${mine.child.pid}`,
          `guild-bus-group-elsewhere-1-${dead}-${foreign.child.pid}`,
        ].sort(),
      );
      forget();
      expect(readdirSync(dir).filter((n) => n.includes(`-${ns}-${process.pid}-`))).toEqual([]);
    } finally {
      for (const r of all) r.child.kill("SIGKILL");
    }
  });

  it("the janitor kills a process that left a gone worker's reviewer group, though the group is gone or its id reused", async () => {
    const dir = tempRoot("guild-bus-groups-");
    const goneMarker = newMarker();
    const gone = await reviewer(goneMarker); // a session of its own, as after setsid: in no group the record names
    const reusedMarker = newMarker();
    const reused = await reviewer(reusedMarker);
    const other = await reviewer(newMarker()); // now runs under the id the record names: not the reviewer's group
    try {
      const group = deadPid(); // the reviewer's group: its leader and every member gone
      writeFileSync(path.join(dir, `guild-bus-group-${ns}-${deadPid()}-${group}`), goneMarker);
      writeFileSync(path.join(dir, `guild-bus-group-${ns}-${deadPid()}-${other.child.pid}`), reusedMarker);
      // what was killed is named: never the gone group's id, nor the process that now runs under the reused one
      expect(sweepOrphanGroups(dir).sort()).toEqual([gone.child.pid, reused.child.pid].sort());
      expect(await gone.exited).toBe("SIGKILL");
      expect(await reused.exited).toBe("SIGKILL");
      expect(other.child.exitCode === null && other.child.signalCode === null).toBe(true);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      for (const r of [gone, reused, other]) r.child.kill("SIGKILL");
    }
  });

  it("runChild records the group while the reviewer runs, with the marker in its environment, and forgets it after", async () => {
    const before = new Set(readdirSync(tmpdir()));
    const stop = new AbortController();
    const run = runChild({
      argv: [process.execPath, "-e", "setTimeout(() => {}, 120000)"],
      stdin: "",
      timeoutMs: 120_000,
      env: process.env,
      signal: stop.signal,
    });
    const record = await vi.waitFor(() => {
      const found = readdirSync(tmpdir()).find((n) => !before.has(n) && n.startsWith(`guild-bus-group-${ns}-${process.pid}-`));
      expect(found).toBeDefined();
      return found!;
    }, WAIT);
    await runsWith(Number(record.split("-").pop()), readFileSync(path.join(tmpdir(), record), "latin1"));
    stop.abort();
    expect(await run).toEqual({ kind: "aborted" });
    expect(readdirSync(tmpdir())).not.toContain(record);
  });
});
