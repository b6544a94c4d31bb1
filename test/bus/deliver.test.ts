import { execFileSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/sha.js";
import { deliver, deliverInOrder, type DeliverResult, parseStagingName, STAGING_MACHINE, stagingName } from "../../src/bus/deliver.js";
import { TooLarge } from "../../src/bus/too-large.js";
import { type FsOps, realFs } from "../../src/bus/fsops.js";
import { sweepStaging } from "../../src/bus/janitor.js";
import { tempRoot } from "../helpers/tmp.js";
import { MAX_FILE_BYTES } from "../../src/spec/constants.js";

type Syscall = keyof FsOps;
const SYSCALLS: Syscall[] = ["open", "write", "fsync", "close", "link", "unlink", "mkdir", "readRegular"];

function errno(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected ${syscall} failure`), { code, syscall });
}

interface Call {
  op: Syscall;
  args: unknown[];
}

/** realFs with a call log, optional unsupported link(), and an injected failure on the nth call of one syscall. */
function faultyFs(opts: { fail?: { op: Syscall; nth: number; partialWrite?: boolean }; linkCode?: string } = {}) {
  const calls: Call[] = [];
  const counts = new Map<Syscall, number>();
  let injected = false;
  const hit = (op: Syscall): boolean => {
    const n = (counts.get(op) ?? 0) + 1;
    counts.set(op, n);
    const now = opts.fail?.op === op && opts.fail.nth === n;
    if (now) injected = true;
    return now;
  };
  const fs: FsOps = {
    async open(p, flags, mode) {
      calls.push({ op: "open", args: [p, flags] });
      if (hit("open")) throw errno("EIO", "open");
      return await realFs.open(p, flags, mode);
    },
    async write(fd, bytes) {
      calls.push({ op: "write", args: [fd, bytes.length] });
      if (hit("write")) {
        // A torn write: half the bytes reach the file, then the error.
        if (opts.fail?.partialWrite) await realFs.write(fd, bytes.subarray(0, Math.floor(bytes.length / 2)));
        throw errno("ENOSPC", "write");
      }
      await realFs.write(fd, bytes);
    },
    async fsync(fd) {
      calls.push({ op: "fsync", args: [fd] });
      if (hit("fsync")) throw errno("EIO", "fsync");
      await realFs.fsync(fd);
    },
    async close(fd) {
      calls.push({ op: "close", args: [fd] });
      // Like Linux close(2): the descriptor is gone even when an error is reported.
      await realFs.close(fd);
      if (hit("close")) throw errno("EIO", "close");
    },
    async link(a, b) {
      calls.push({ op: "link", args: [a, b] });
      if (hit("link")) throw errno("EIO", "link");
      if (opts.linkCode) throw errno(opts.linkCode, "link");
      await realFs.link(a, b);
    },
    async unlink(p) {
      calls.push({ op: "unlink", args: [p] });
      if (hit("unlink")) throw errno("EIO", "unlink");
      await realFs.unlink(p);
    },
    async readRegular(p, max) {
      calls.push({ op: "readRegular", args: [p] });
      if (hit("readRegular")) throw errno("EIO", "readRegular");
      return await realFs.readRegular(p, max);
    },
    async mkdir(p, floor) {
      calls.push({ op: "mkdir", args: [p] });
      if (hit("mkdir")) throw errno("EIO", "mkdir");
      await realFs.mkdir(p, floor);
    },
  };
  return { fs, calls, counts, injected: () => injected };
}

/** A project with .guild and the directory the final goes to, as a worker writes into (a gate that is there). */
function setup() {
  const root = tempRoot();
  const guildDir = path.join(root, ".guild");
  const final = path.join(root, "artifacts", "spec.v1.md");
  for (const dir of [guildDir, path.dirname(final)]) mkdirSync(dir);
  return { root, guildDir, final };
}

const listDir = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);
const stagingFiles = (guildDir: string): string[] => listDir(path.join(guildDir, "tmp"));

// 256 KiB, not a repeated pattern: a torn final cannot pass for the whole one.
const PAYLOAD = Buffer.from(Array.from({ length: 256 * 1024 }, (_, i) => (i * 7919 + (i >> 8)) & 0xff));
const OTHER = Buffer.from("someone else's artifact\n");

describe("deliver: Maildir-style first-writer-wins", () => {
  it("stages under <guildDir>/tmp with host, pid and a random id, fsyncs, links, unlinks and fsyncs the directory", async () => {
    const { guildDir, root } = setup();
    const final = path.join(root, "new", "spec.v1.md");
    const { fs, calls } = faultyFs();
    // a command's write (a request starting its run): the directories it lacks are made
    const result = await deliver(final, PAYLOAD, { guildDir, fs, makeDirs: true });

    expect(result).toEqual({ status: "delivered", path: final, sha256: sha256Hex(PAYLOAD) });
    expect(readFileSync(final).equals(PAYLOAD)).toBe(true);
    expect(stagingFiles(guildDir)).toEqual([]);

    const link = calls.filter((c) => c.op === "link").at(-1)!;
    const staging = link.args[0] as string;
    expect(link.args[1]).toBe(final);
    expect(path.dirname(staging)).toBe(path.join(guildDir, "tmp"));
    expect(path.basename(staging)).toMatch(new RegExp(`^spec_v1_md\\.${STAGING_MACHINE}\\.${process.pid}\\.[0-9a-z]{12}$`));
    expect(parseStagingName(path.basename(staging))).toEqual({ host: STAGING_MACHINE, pid: process.pid });

    const seq = calls.map((c) => `${c.op}:${c.op === "open" || c.op === "link" || c.op === "unlink" ? c.args[0] : ""}`);
    // the first open and link find their directories missing (made then, not before every delivery)
    const iStagingOpen = seq.lastIndexOf(`open:${staging}`);
    const iLink = seq.lastIndexOf(`link:${staging}`);
    const iDirOpen = seq.indexOf(`open:${path.dirname(final)}`);
    expect(seq.slice(0, iStagingOpen)).toEqual([`open:${staging}`, "mkdir:"]);
    expect(calls[iStagingOpen]!.args[1]).toBe("wx"); // never reuses a staging name
    expect(seq.slice(iStagingOpen, iLink)).toEqual([`open:${staging}`, "write:", "fsync:", "close:", `link:${staging}`, "mkdir:"]);
    expect(iDirOpen).toBeGreaterThan(iLink);
    expect(seq[iDirOpen + 1]).toBe("fsync:");
    expect(seq).toContain(`unlink:${staging}`);
    expect(seq.indexOf(`unlink:${staging}`)).toBeGreaterThan(iLink);
  });

  it("into directories that exist, makes none: open, write, fsync, close, link, directory fsync, unlink", async () => {
    const { guildDir, final } = setup();
    await deliver(final, OTHER, { guildDir });
    const { fs, calls } = faultyFs();
    await deliver(path.join(path.dirname(final), "second.md"), PAYLOAD, { guildDir, fs });
    expect(calls.map((c) => c.op)).toEqual(["open", "write", "fsync", "close", "link", "open", "fsync", "close", "unlink"]);
  });

  it("deliveries into one directory in one tick share directory fsyncs, and each resolves after one that followed its link", async () => {
    const { guildDir, root } = setup();
    const dir = path.join(root, "many");
    await deliver(path.join(dir, "first"), "x", { guildDir, makeDirs: true });
    const { fs, calls } = faultyFs();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(path.join(dir, `f-${i}`), `${i}\n`, { guildDir, fs })));
    expect(results.every((r) => r.status === "delivered")).toBe(true);
    const seq = calls.map((c) => `${c.op}:${c.op === "open" || c.op === "link" ? c.args[0] : ""}`);
    const dirSyncs = seq.flatMap((op, i) => (op === `open:${dir}` ? [i] : []));
    expect(dirSyncs.length).toBeGreaterThanOrEqual(1);
    expect(dirSyncs.length).toBeLessThan(20);
    // the last link into the directory came before the last directory fsync began
    const lastLink = seq.map((op) => op.startsWith("link:")).lastIndexOf(true);
    expect(lastLink).toBeLessThan(dirSyncs.at(-1)!);
    expect(readdirSync(dir).length).toBe(21);
  });

  it("gives each delivery its own staging name", async () => {
    const names = new Set(Array.from({ length: 200 }, () => stagingName("/x/a.md")));
    expect(names.size).toBe(200);
    for (const n of names) expect(parseStagingName(n)).toEqual({ host: STAGING_MACHINE, pid: process.pid });
    // Dots and odd characters in the final name must not confuse the parser.
    expect(parseStagingName(stagingName("/x/weird name.v2.tar.gz", 4242))).toEqual({ host: STAGING_MACHINE, pid: 4242 });
    expect(parseStagingName("plain-file")).toBeNull();
    expect(parseStagingName("a.host.notapid.id")).toBeNull();
  });

  it("accepts a string and, for a command's write, creates the final directory", async () => {
    const { guildDir, root } = setup();
    const final = path.join(root, "deep", "er", "note.txt");
    expect((await deliver(final, "héllo\n", { guildDir, makeDirs: true })).status).toBe("delivered");
    expect(readFileSync(final, "utf8")).toBe("héllo\n");
  });

  it("a file or a symlink planted at .guild/tmp is moved aside whole, not a stop of every delivery", async () => {
    const { guildDir, final } = setup();
    const planted = path.join(guildDir, "tmp");
    writeFileSync(planted, "someone's notes\n");
    expect((await deliver(path.join(path.dirname(final), "a.json"), "{}\n", { guildDir })).status).toBe("delivered");
    const aside = readdirSync(guildDir).filter((n) => n.startsWith("tmp.not-a-directory."));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(guildDir, aside[0]!), "utf8")).toBe("someone's notes\n");
    expect(statSync(planted).isDirectory()).toBe(true);
    rmSync(planted, { recursive: true });
    const elsewhere = tempRoot();
    symlinkSync(elsewhere, planted);
    expect((await deliver(path.join(path.dirname(final), "b.json"), "{}\n", { guildDir })).status).toBe("delivered");
    const links = readdirSync(guildDir).filter((n) => n.startsWith("tmp.not-a-directory.") && !aside.includes(n));
    expect(links).toHaveLength(1);
    expect(lstatSync(path.join(guildDir, links[0]!)).isSymbolicLink()).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]); // nothing was staged through the link
    expect(statSync(planted).isDirectory()).toBe(true);
  });

  it("refuses a file larger than any bus file may be, before anything lands: its name stays free", async () => {
    const { guildDir, root } = setup();
    const final = path.join(root, "decision-1.json");
    const big = "x".repeat(MAX_FILE_BYTES + 1);
    await expect(deliver(final, big, { guildDir })).rejects.toThrow(TooLarge);
    await expect(deliver(final, big, { guildDir })).rejects.toThrow(/decision-1\.json would be 4194305 bytes, more than the 4194304/);
    expect(existsSync(final)).toBe(false);
    expect(existsSync(path.join(guildDir, "tmp")) ? readdirSync(path.join(guildDir, "tmp")) : []).toEqual([]);
    expect((await deliver(final, "x".repeat(MAX_FILE_BYTES), { guildDir })).status).toBe("delivered");
  });

  it("is idempotent for identical bytes and never rewrites the final", async () => {
    const { guildDir, final } = setup();
    await deliver(final, PAYLOAD, { guildDir });
    const before = statSync(final);
    const { fs, calls } = faultyFs();
    const again = await deliver(final, Buffer.from(PAYLOAD), { guildDir, fs });
    expect(again).toEqual({ status: "identical", path: final, sha256: sha256Hex(PAYLOAD) });
    const after = statSync(final);
    expect([after.ino, after.mtimeMs, after.nlink]).toEqual([before.ino, before.mtimeMs, 1]);
    expect(calls.filter((c) => c.op === "open" && c.args[0] === final)).toEqual([]);
    expect(stagingFiles(guildDir)).toEqual([]);
  });

  it("reports a conflict with the existing sha256 and keeps the existing file", async () => {
    const { guildDir, final } = setup();
    await deliver(final, OTHER, { guildDir });
    const before = statSync(final);
    const result = await deliver(final, PAYLOAD, { guildDir });
    expect(result).toEqual({
      status: "conflict",
      path: final,
      sha256: sha256Hex(PAYLOAD),
      existingSha256: sha256Hex(OTHER),
    });
    expect(readFileSync(final).equals(OTHER)).toBe(true);
    expect(statSync(final).ino).toBe(before.ino);
    expect(stagingFiles(guildDir)).toEqual([]);
  });

  it("a final written by something else is a conflict too", async () => {
    const { guildDir, final } = setup();
    mkdirSync(path.dirname(final), { recursive: true });
    writeFileSync(final, "");
    expect((await deliver(final, PAYLOAD, { guildDir })).status).toBe("conflict");
    expect(readFileSync(final).length).toBe(0);
  });

  it("a FIFO, a symlink or a directory holding the final name is a conflict, never opened for its bytes", async () => {
    for (const [what, plant] of [
      ["a FIFO", (p: string) => execFileSync("mkfifo", [p])],
      ["a symlink", (p: string) => symlinkSync("/dev/zero", p)],
      ["a directory", (p: string) => mkdirSync(p)],
    ] as const) {
      const { guildDir, final } = setup();
      mkdirSync(path.dirname(final), { recursive: true });
      plant(final);
      // a FIFO opened for reading would wait for a writer forever: the delivery must answer at once
      expect(await deliver(final, PAYLOAD, { guildDir }), what).toEqual({ status: "conflict", path: final, sha256: sha256Hex(PAYLOAD) });
      expect(stagingFiles(guildDir), what).toEqual([]);
    }
  });

  it("skips every fsync when durable is false", async () => {
    const { guildDir, final } = setup();
    const { fs, counts } = faultyFs();
    expect((await deliver(final, PAYLOAD, { guildDir, fs, durable: false })).status).toBe("delivered");
    expect(counts.get("fsync") ?? 0).toBe(0);
    expect(readFileSync(final).equals(PAYLOAD)).toBe(true);
  });

  it("a staging file removed before its link (.guild/tmp cleaned by hand, git clean -fdx) is staged again: delivered", async () => {
    const { guildDir, final } = setup();
    let removed = 0;
    const fs: FsOps = {
      ...realFs,
      link: async (from, to) => {
        if (removed++ === 0) rmSync(path.join(guildDir, "tmp"), { recursive: true });
        return realFs.link(from, to);
      },
    };
    expect(await deliver(final, PAYLOAD, { guildDir, fs })).toEqual({ status: "delivered", path: final, sha256: sha256Hex(PAYLOAD) });
    expect(readFileSync(final).equals(PAYLOAD)).toBe(true);
    expect(stagingFiles(guildDir)).toEqual([]);
  });

  it("throws on a link() failure that is not 'unsupported', leaving neither final nor staging", async () => {
    const { guildDir, final } = setup();
    const { fs } = faultyFs({ linkCode: "EACCES" });
    const log: string[] = [];
    await expect(deliver(final, PAYLOAD, { guildDir, fs, log: (m) => log.push(m) })).rejects.toThrow(/EACCES/);
    expect(existsSync(final)).toBe(false);
    expect(stagingFiles(guildDir)).toEqual([]);
    expect(log).toEqual([]);
  });
});

describe("deliverInOrder: the verifier's seal, then its verdict", () => {
  /** A gate's seal and verdict for round 1, and their delivery in that order (the verdict's bytes are OTHER): the
   * worker's write makes .verified/, inside the gate that is there. */
  const pair = (guildDir: string) => {
    const gate = path.join(guildDir, "runs", "r1", "review", "G-spec");
    mkdirSync(gate, { recursive: true });
    const seal = path.join(gate, ".verified", "result-1.json");
    const verdict = path.join(gate, "verdict-1.json");
    const both = (fs?: FsOps) =>
      deliverInOrder(
        [
          { finalPath: seal, bytes: PAYLOAD },
          { finalPath: verdict, bytes: OTHER },
        ],
        { guildDir, fs },
      );
    /** An fs that records how many names the seal has when the verdict is linked. */
    const namesAtVerdict = () => {
      const seen = { sealNames: 0 };
      const fs: FsOps = {
        ...realFs,
        link: async (from, to) => {
          if (to === verdict) seen.sealNames = statSync(seal).nlink;
          return realFs.link(from, to);
        },
      };
      return { fs, seen };
    };
    return { seal, verdict, both, namesAtVerdict };
  };

  it("writes both at once, and links the second only after the first is linked and its directory fsynced", async () => {
    const { guildDir } = setup();
    const { seal, verdict, both } = pair(guildDir);
    const { fs, calls } = faultyFs();
    expect((await both(fs)).map((r) => r.status)).toEqual(["delivered", "delivered"]);
    expect(readFileSync(seal).equals(PAYLOAD) && readFileSync(verdict).equals(OTHER)).toBe(true);
    expect(stagingFiles(guildDir)).toEqual([]);
    const seq = calls.map((c) => `${c.op}:${c.op === "open" || c.op === "link" ? String(c.args[c.op === "link" ? 1 : 0]) : ""}`);
    const sealDirSync = seq.indexOf(`open:${path.dirname(seal)}`);
    // both staged before either is linked: their fsyncs overlap instead of running one after the other
    expect(seq.filter((op) => op === "fsync:").length).toBe(4);
    expect(seq.slice(0, seq.indexOf(`link:${seal}`)).filter((op) => op === "fsync:").length).toBe(2);
    expect(sealDirSync).toBeGreaterThan(seq.indexOf(`link:${seal}`));
    expect(seq.indexOf(`link:${verdict}`)).toBeGreaterThan(sealDirSync + 1);
  });

  it("the seal has one name by the time the verdict is linked (a reader refuses a seal with two)", async () => {
    const { guildDir } = setup();
    const { both, namesAtVerdict } = pair(guildDir);
    const { fs, seen } = namesAtVerdict();
    await both(fs);
    expect(seen.sealNames).toBe(1);
  });

  it("after a conflict on the first, the second is not linked, and nothing is left staged", async () => {
    const { guildDir } = setup();
    const { seal, verdict, both } = pair(guildDir);
    await deliver(seal, "someone else's seal", { guildDir });
    expect((await both()).map((r) => r.status)).toEqual(["conflict"]);
    expect(existsSync(verdict)).toBe(false);
    expect(readFileSync(seal, "utf8")).toBe("someone else's seal");
    expect(stagingFiles(guildDir)).toEqual([]);
  });

  it("an identical first (a retry after a crash) goes on to the second", async () => {
    const { guildDir } = setup();
    const { seal, both } = pair(guildDir);
    await deliver(seal, PAYLOAD, { guildDir });
    expect((await both()).map((r) => r.status)).toEqual(["identical", "delivered"]);
  });

  it("an identical first still linked from a staging name (its writer died before removing it) loses it first", async () => {
    const { guildDir } = setup();
    const { seal, both, namesAtVerdict } = pair(guildDir);
    const spent = path.join(guildDir, "tmp", stagingName(seal, 999_999));
    mkdirSync(path.dirname(spent), { recursive: true });
    mkdirSync(path.dirname(seal), { recursive: true });
    writeFileSync(spent, PAYLOAD);
    linkSync(spent, seal);
    const { fs, seen } = namesAtVerdict();
    expect((await both(fs)).map((r) => r.status)).toEqual(["identical", "delivered"]);
    expect(seen.sealNames).toBe(1);
    expect(stagingFiles(guildDir)).toEqual([]);
  });

  it("a failure while staging either links neither, removes both staging files and throws", async () => {
    for (const fail of [
      { op: "fsync" as const, nth: 1 },
      { op: "fsync" as const, nth: 2 },
      { op: "write" as const, nth: 2 },
      { op: "open" as const, nth: 2 },
    ]) {
      const { guildDir } = setup();
      const { seal, verdict, both } = pair(guildDir);
      mkdirSync(path.join(guildDir, "tmp"), { recursive: true });
      const what = `${fail.op} #${fail.nth}`;
      await expect(both(faultyFs({ fail }).fs), what).rejects.toThrow(/injected/);
      expect([existsSync(seal), existsSync(verdict)], what).toEqual([false, false]);
      expect(stagingFiles(guildDir), what).toEqual([]);
    }
  });
});

describe("deliver: exclusive-create fallback where link() is unsupported", () => {
  for (const code of ["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]) {
    it(`falls back on ${code}, says so in the log and the result`, async () => {
      const { guildDir, final } = setup();
      const { fs, calls } = faultyFs({ linkCode: code });
      const log: string[] = [];
      const result = await deliver(final, PAYLOAD, { guildDir, fs, log: (m) => log.push(m) });
      expect(result).toEqual({ status: "delivered", path: final, sha256: sha256Hex(PAYLOAD), fallback: true });
      expect(readFileSync(final).equals(PAYLOAD)).toBe(true);
      expect(log).toHaveLength(1);
      expect(log[0]).toContain(code);
      expect(log[0]).toContain(final);
      const finalOpen = calls.find((c) => c.op === "open" && c.args[0] === final)!;
      expect(finalOpen.args[1]).toBe("wx");
      expect(stagingFiles(guildDir)).toEqual([]);
    });
  }

  it("still reports identical and conflict without overwriting, flagged as fallback", async () => {
    const { guildDir, final } = setup();
    await deliver(final, OTHER, { guildDir });
    const log: string[] = [];
    const conflict = await deliver(final, PAYLOAD, { guildDir, fs: faultyFs({ linkCode: "EPERM" }).fs, log: (m) => log.push(m) });
    expect(conflict).toMatchObject({ status: "conflict", existingSha256: sha256Hex(OTHER), fallback: true });
    const identical = await deliver(final, OTHER, { guildDir, fs: faultyFs({ linkCode: "EPERM" }).fs });
    expect(identical).toMatchObject({ status: "identical", fallback: true });
    expect(readFileSync(final).equals(OTHER)).toBe(true);
    expect(log).toHaveLength(1);
    expect(stagingFiles(guildDir)).toEqual([]);
  });

  it("removes its own partial final when the write fails midway", async () => {
    const { guildDir, final } = setup();
    // The second write is the final's (the first is the staging file's).
    const { fs, injected } = faultyFs({ linkCode: "EPERM", fail: { op: "write", nth: 2, partialWrite: true } });
    await expect(deliver(final, PAYLOAD, { guildDir, fs })).rejects.toThrow(/ENOSPC/);
    expect(injected()).toBe(true);
    expect(existsSync(final)).toBe(false);
    expect(stagingFiles(guildDir)).toEqual([]);
  });

  it("never removes a final it did not create when the exclusive create fails", async () => {
    const { guildDir, final } = setup();
    await deliver(final, OTHER, { guildDir });
    // Second open is the final's exclusive create: fail it with something other than EEXIST.
    const { fs, injected } = faultyFs({ linkCode: "EPERM", fail: { op: "open", nth: 2 } });
    await expect(deliver(final, PAYLOAD, { guildDir, fs })).rejects.toThrow(/EIO/);
    expect(injected()).toBe(true);
    expect(readFileSync(final).equals(OTHER)).toBe(true);
  });
});

describe("deliver under injected syscall failures", () => {
  type Pre = "none" | "identical" | "different";
  const scenarios: Array<{ pre: Pre; linkCode?: string }> = [
    { pre: "none" },
    { pre: "identical" },
    { pre: "different" },
    { pre: "none", linkCode: "EPERM" },
    { pre: "identical", linkCode: "EPERM" },
    { pre: "different", linkCode: "EPERM" },
  ];

  function prepare(pre: Pre) {
    const s = setup();
    if (pre !== "none") {
      mkdirSync(path.dirname(s.final), { recursive: true });
      writeFileSync(s.final, pre === "identical" ? PAYLOAD : OTHER);
    }
    return s;
  }

  for (const { pre, linkCode } of scenarios) {
    const label = `final ${pre === "none" ? "absent" : pre}${linkCode ? `, link() ${linkCode}` : ""}`;
    it(`${label}: every failing call leaves the final absent or whole, and no orphan after the janitor`, async () => {
      // Count each syscall in a clean run of the same scenario.
      const clean = prepare(pre);
      const baseline = faultyFs({ linkCode });
      const expected: DeliverResult["status"] = pre === "none" ? "delivered" : pre === "identical" ? "identical" : "conflict";
      expect((await deliver(clean.final, PAYLOAD, { guildDir: clean.guildDir, fs: baseline.fs })).status).toBe(expected);

      const faults: Array<{ op: Syscall; nth: number; partialWrite?: boolean }> = [];
      for (const op of SYSCALLS) {
        for (let nth = 1; nth <= (baseline.counts.get(op) ?? 0); nth++) {
          faults.push({ op, nth });
          if (op === "write") faults.push({ op, nth, partialWrite: true });
        }
      }
      expect(faults.length).toBeGreaterThanOrEqual(10);
      let threw = 0;

      for (const fail of faults) {
        const what = `${label}, ${fail.op} #${fail.nth}${fail.partialWrite ? " (partial)" : ""}`;
        const { guildDir, final } = prepare(pre);
        const faulty = faultyFs({ fail, linkCode });
        let result: DeliverResult | undefined;
        try {
          result = await deliver(final, PAYLOAD, { guildDir, fs: faulty.fs });
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code, what).toMatch(/^(EIO|ENOSPC)$/);
          threw++;
        }
        expect(faulty.injected(), what).toBe(true);

        if (pre === "different") {
          expect(readFileSync(final).equals(OTHER), `${what}: existing final untouched`).toBe(true);
        } else if (existsSync(final)) {
          expect(readFileSync(final).equals(PAYLOAD), `${what}: final whole`).toBe(true);
        } else {
          expect(result, `${what}: no success without a final`).toBeUndefined();
        }
        if (result) expect(result.status, what).toBe(expected);
        if (pre === "none" && result) expect(existsSync(final), what).toBe(true);
        // Only a failed unlink of the staging file may leave it behind for the janitor.
        if (fail.op !== "unlink") expect(stagingFiles(guildDir), `${what}: staging cleaned`).toEqual([]);
        const finalDirBefore = listDir(path.dirname(final));

        sweepStaging(guildDir, { maxAgeMs: 0 });
        expect(stagingFiles(guildDir), `${what}: janitor`).toEqual([]);
        expect(listDir(path.dirname(final)), `${what}: janitor stays in tmp`).toEqual(finalDirBefore);
        expect(
          finalDirBefore.every((n) => n === path.basename(final)),
          `${what}: no stray files`,
        ).toBe(true);
      }
      expect(threw).toBeGreaterThan(0);
    });
  }
});
