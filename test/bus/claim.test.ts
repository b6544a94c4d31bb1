import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Claim, tryClaim } from "../../src/bus/claim.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";

// proper-lockfile's floors: stale >= 2 s, update >= 1 s.
const FAST = { staleMs: 2000, updateMs: 1000 };

const held: Claim[] = [];
afterEach(async () => {
  while (held.length) await held.pop()!.release();
});

async function claim(dir: string, name: string, opts: Parameters<typeof tryClaim>[2] = FAST): Promise<Claim | null> {
  const c = await tryClaim(dir, name, opts);
  if (c) held.push(c);
  return c;
}

function aborted(signal: AbortSignal, withinMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(signal.reason);
    const timer = setTimeout(() => reject(new Error(`not aborted within ${withinMs} ms`)), withinMs);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(signal.reason);
    });
  });
}

/** Any uncaught exception while fn runs (proper-lockfile's default onCompromised throws from a timer). */
async function withoutUncaught(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onError = (e: unknown) => seen.push(e);
  process.on("uncaughtException", onError);
  try {
    await fn();
  } finally {
    process.off("uncaughtException", onError);
  }
  return seen;
}

describe("claim: tryClaim", () => {
  it("gives the claim to the first caller only, until released", async () => {
    const dir = path.join(tempRoot(), "claims");
    const lockDir = path.join(dir, "job-1.lock");
    const first = await claim(dir, "job-1");
    expect(first).not.toBeNull();
    expect(first!.signal.aborted).toBe(false);
    expect(existsSync(lockDir)).toBe(true);
    expect(await claim(dir, "job-1")).toBeNull();
    expect(await claim(dir, "job-2")).not.toBeNull(); // names are independent

    await first!.release();
    expect(existsSync(lockDir)).toBe(false);
    const second = await claim(dir, "job-1");
    expect(second).not.toBeNull();
    expect(first!.signal.aborted).toBe(false); // a release is not a compromise
    await first!.release(); // twice is harmless, and does not free the new holder's lock
    expect(existsSync(lockDir)).toBe(true);
    expect(await claim(dir, "job-1")).toBeNull();
  });

  it("respects a fresh lock left by another process", async () => {
    const dir = path.join(tempRoot(), "claims");
    mkdirSync(path.join(dir, "job.lock"), { recursive: true });
    expect(await claim(dir, "job")).toBeNull();
  });

  it("moves aside what no holder could have left at the lock's name (a file, a directory with files), then claims", async () => {
    for (const plant of ["file", "full directory"] as const) {
      const dir = path.join(tempRoot(), "claims");
      const lockDir = path.join(dir, "job.lock");
      mkdirSync(dir, { recursive: true });
      if (plant === "file") writeFileSync(lockDir, "not a lock\n");
      else {
        mkdirSync(lockDir);
        writeFileSync(path.join(lockDir, "inside"), "x");
      }
      expect(await claim(dir, "job")).not.toBeNull();
      expect(statSync(lockDir).isDirectory()).toBe(true);
      expect(readdirSync(dir).filter((n) => n.startsWith("job.lock.not-a-lock."))).toHaveLength(1);
    }
  });

  it("takes over a lock only once this process has seen it unchanged for the stale time, whatever its mtime says", async () => {
    // another machine's clock may be minutes ahead of or behind this one: an mtime is no age
    for (const offsetMs of [-10_000, -3_600_000, 3_600_000]) {
      const dir = path.join(tempRoot(), "claims");
      const lockDir = path.join(dir, "job.lock");
      mkdirSync(lockDir, { recursive: true });
      const t = (Date.now() + offsetMs) / 1000;
      utimesSync(lockDir, t, t);
      let clock = 1_000;
      const opts = { ...FAST, monotonicMs: () => clock };

      expect(await claim(dir, "job", opts)).toBeNull(); // first seen: held, however old it looks
      clock += FAST.staleMs - 1;
      expect(await claim(dir, "job", opts)).toBeNull();
      clock += 1;
      const c = await claim(dir, "job", opts);
      expect(c).not.toBeNull();
      expect(await claim(dir, "job", opts)).toBeNull();
    }
  });

  it("does not take a lock its holder keeps re-dating, even to times long past by this clock", async () => {
    const dir = path.join(tempRoot(), "claims");
    const lockDir = path.join(dir, "job.lock");
    mkdirSync(lockDir, { recursive: true });
    let clock = 0;
    const opts = { ...FAST, monotonicMs: () => clock };
    for (let beat = 1; beat <= 4; beat++) {
      // a holder on a machine an hour behind this one, refreshing every second of its clock
      const t = (Date.now() - 3_600_000 + beat * 1000) / 1000;
      utimesSync(lockDir, t, t);
      expect(await claim(dir, "job", opts)).toBeNull();
      clock += FAST.staleMs;
    }
  });

  it("never judges a lock stale sooner than two of its holder's refreshes (a stale time under 2 s is 2 s)", async () => {
    // `--claim-stale-ms 1000`: the holder re-dates its lock every second, so a second unchanged is no sign of death
    const dir = path.join(tempRoot(), "claims");
    const holder = await claim(dir, "job", { staleMs: 1000 });
    expect(holder).not.toBeNull();
    let clock = 0;
    const opts = { staleMs: 1000, monotonicMs: () => clock };
    expect(await claim(dir, "job", opts)).toBeNull();
    clock += 1000;
    expect(await claim(dir, "job", opts)).toBeNull();
    expect(holder!.signal.aborted).toBe(false);
  });

  it("keeps a held lock fresh, so it is not taken over as stale", async () => {
    const dir = path.join(tempRoot(), "claims");
    const lock = path.join(dir, "job.lock");
    const c = await claim(dir, "job");
    let clock = 0;
    const opts = { ...FAST, monotonicMs: () => clock };
    expect(await claim(dir, "job", opts)).toBeNull(); // the first look: held, whatever its age
    // the holder re-dates its lock (waited for, not slept): a lock seen unchanged for staleMs would be taken over
    const seen = statSync(lock).mtimeMs;
    await until("the holder to re-date its lock", () => statSync(lock).mtimeMs !== seen, 30_000);
    clock += FAST.staleMs;
    expect(await claim(dir, "job", opts)).toBeNull();
    expect(c!.signal.aborted).toBe(false);
  });

  it("aborts the signal, without crashing, when the lock dir is removed underneath", async () => {
    const dir = path.join(tempRoot(), "claims");
    const log: string[] = [];
    const uncaught = await withoutUncaught(async () => {
      const c = await claim(dir, "job", { ...FAST, log: (m) => log.push(m) });
      rmSync(path.join(dir, "job.lock"), { recursive: true });
      const reason = await aborted(c!.signal, 4000);
      expect((reason as NodeJS.ErrnoException).code).toBe("ECOMPROMISED");
      await expect(c!.release()).resolves.toBeUndefined();
      // Nothing is held any more: someone else may claim.
      expect(await claim(dir, "job")).not.toBeNull();
    });
    expect(uncaught).toEqual([]);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/claim job compromised/);
  });

  it("aborts when another owner took the lock over, and release leaves the new owner's lock alone", async () => {
    const dir = path.join(tempRoot(), "claims");
    const lockDir = path.join(dir, "job.lock");
    const uncaught = await withoutUncaught(async () => {
      const c = await claim(dir, "job");
      // What a takeover by another process looks like: the lock dir re-made with its own mtime.
      rmSync(lockDir, { recursive: true });
      mkdirSync(lockDir);
      const t = (Date.now() + 5_000) / 1000;
      utimesSync(lockDir, t, t);
      expect(((await aborted(c!.signal, 4000)) as NodeJS.ErrnoException).code).toBe("ECOMPROMISED");
      await c!.release();
      expect(existsSync(lockDir)).toBe(true);
      expect(await claim(dir, "job")).toBeNull();
    });
    expect(uncaught).toEqual([]);
  });
});
