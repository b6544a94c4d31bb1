import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { STAGING_MACHINE, stagingName } from "../../src/bus/deliver.js";
import { STAGING_MAX_AGE_MS, sweepScratch, sweepStaging } from "../../src/bus/janitor.js";
import { processAlive } from "../../src/bus/process-alive.js";
import { tempRoot } from "../helpers/tmp.js";

/** The pid of a process that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  expect(child.pid).toBeGreaterThan(0);
  expect(processAlive(child.pid!)).toBe(false);
  return child.pid!;
}

const sleepers: Array<{ kill(): boolean }> = [];
afterEach(() => {
  while (sleepers.length) sleepers.pop()!.kill();
});

/** The pid of another live process, alive until the test ends. */
function livePid(): number {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  sleepers.push(child);
  return child.pid!;
}

function touch(file: string, ageMs = 0, content = "x"): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  if (ageMs) {
    const t = (Date.now() - ageMs) / 1000;
    utimesSync(file, t, t);
  }
  return file;
}

describe("janitor: sweepStaging", () => {
  it("removes staging files of dead pids on this host, keeps young files of live pids", () => {
    const guildDir = path.join(tempRoot(), ".guild");
    const tmp = path.join(guildDir, "tmp");
    const dead = deadPid();
    const live = livePid();
    const deadOnes = [stagingName("/a/spec.md", dead), stagingName("/a/other.md", dead)];
    const keptOnes = [
      stagingName("/a/spec.md", live),
      stagingName("/a/spec.md", process.pid), // our own, possibly mid-delivery
      `spec_md.some-other-host.${dead}.abcdefabcdef`, // a dead-looking pid elsewhere says nothing
      // this host's name in another pid namespace (a container named as the host): its pids are not ours to ask
      stagingName("/a/spec.md", dead).replace(`.${STAGING_MACHINE}.`, `.${STAGING_MACHINE.replace(/-\d+$/, "-1")}.`),
      "not-a-staging-name",
    ];
    for (const n of [...deadOnes, ...keptOnes]) touch(path.join(tmp, n));

    const report = sweepStaging(guildDir);
    expect(report.removed.sort()).toEqual([...deadOnes].sort());
    expect(report.kept).toBe(keptOnes.length);
    expect(readdirSync(tmp).sort()).toEqual([...keptOnes].sort());
  });

  it("removes anything older than maxAgeMs, whoever owns it", () => {
    const guildDir = path.join(tempRoot(), ".guild");
    const tmp = path.join(guildDir, "tmp");
    const live = livePid();
    const old = [
      touch(path.join(tmp, stagingName("/a/x.md", live)), 10_000),
      touch(path.join(tmp, stagingName("/a/y.md", process.pid)), 10_000),
      touch(path.join(tmp, "stray-old-file"), 10_000),
    ];
    const young = [touch(path.join(tmp, stagingName("/a/z.md", live)), 1_000), touch(path.join(tmp, "stray-young"))];

    const report = sweepStaging(guildDir, { maxAgeMs: 5_000 });
    expect(report.removed.sort()).toEqual(old.map((f) => path.basename(f)).sort());
    expect(report.kept).toBe(2);
    expect(young.every((f) => existsSync(f))).toBe(true);

    // The default is an hour; `now` moves the clock instead of the files.
    expect(sweepStaging(guildDir).removed).toEqual([]);
    expect(sweepStaging(guildDir, { now: Date.now() + STAGING_MAX_AGE_MS + 60_000 }).removed.length).toBe(2);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("maxAgeMs 0 removes even a file written this very millisecond", () => {
    const guildDir = path.join(tempRoot(), ".guild");
    const tmp = path.join(guildDir, "tmp");
    const kept: number[] = [];
    for (let i = 0; i < 300; i++) {
      touch(path.join(tmp, stagingName("/a/x.md", process.pid)));
      if (sweepStaging(guildDir, { maxAgeMs: 0 }).kept) kept.push(i);
      for (const n of readdirSync(tmp)) rmSync(path.join(tmp, n));
    }
    expect(kept).toEqual([]);
  });

  it("never touches anything outside <guildDir>/tmp", () => {
    const root = tempRoot();
    const guildDir = path.join(root, ".guild");
    const tmp = path.join(guildDir, "tmp");
    const dead = deadPid();
    const ancient = 10 * STAGING_MAX_AGE_MS;
    // Finals and look-alikes everywhere else: old, and named like a dead pid's staging file.
    const outside = [
      touch(path.join(guildDir, stagingName("/a/spec.md", dead)), ancient),
      touch(path.join(guildDir, "artifacts", stagingName("/a/spec.md", dead)), ancient),
      touch(path.join(guildDir, "artifacts", "spec.v1.md"), ancient),
      touch(path.join(guildDir, "tmp-not", stagingName("/a/spec.md", dead)), ancient),
      touch(path.join(root, "spec.md"), ancient),
    ];
    // Inside tmp: a subdirectory (not recursed into) and a symlink pointing at a final.
    const nested = touch(path.join(tmp, "sub", stagingName("/a/n.md", dead)), ancient);
    const link = path.join(tmp, stagingName("/a/link.md", dead));
    symlinkSync(outside[2]!, link);

    const report = sweepStaging(guildDir, { maxAgeMs: 0 });
    expect(report.removed).toEqual([path.basename(link)]); // the link itself, inside tmp
    for (const f of [...outside, nested]) expect(readFileSync(f, "utf8"), f).toBe("x");
    expect(readdirSync(tmp)).toEqual(["sub"]);
  });

  it("never sweeps through a .guild/tmp that is a symlink", () => {
    const guildDir = path.join(tempRoot(), ".guild");
    const elsewhere = tempRoot();
    const old = touch(path.join(elsewhere, stagingName("/a/spec.md", deadPid())), 10 * STAGING_MAX_AGE_MS);
    mkdirSync(guildDir);
    symlinkSync(elsewhere, path.join(guildDir, "tmp"));
    expect(sweepStaging(guildDir, { maxAgeMs: 0 }).removed).toEqual([]);
    expect(readFileSync(old, "utf8")).toBe("x");
  });

  it("is a no-op without a tmp directory", () => {
    const guildDir = path.join(tempRoot(), ".guild");
    expect(sweepStaging(guildDir, { maxAgeMs: 0 })).toEqual({ removed: [], kept: 0 });
    expect(existsSync(guildDir)).toBe(false);
  });

  it("processAlive tells live from dead pids", () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(livePid())).toBe(true);
    expect(processAlive(deadPid())).toBe(false);
  });

  it("sweepScratch removes the dispatch scratch directories of dead workers only (a CLI session there holds the packet)", () => {
    const dir = tempRoot();
    const dead = deadPid();
    const mk = (name: string) => {
      mkdirSync(path.join(dir, name, "chats"), { recursive: true });
      writeFileSync(path.join(dir, name, "chats", "session.jsonl"), "packet text");
      return name;
    };
    const orphan = mk(`guild-bus-scratch-gemini-${dead}-Ab12Cd`);
    const mine = mk(`guild-bus-scratch-codex-home-${process.pid}-Zz99Yy`);
    const other = mk(`guild-bus-it-${dead}`);
    expect(sweepScratch(dir)).toEqual([orphan]);
    expect(readdirSync(dir).sort()).toEqual([other, mine].sort());
  });
});
