// Workers of one kind share the gates events bring (peers.ts): every gate is one live peer's, a peer that stops
// beating (died) or leaves has its share taken by the others, and nothing a hostile tree holds stops a beat.
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { liveAdverts, Peers, peersDir, SELF_PEER, unresponsiveWorkers, workerRunning } from "../../src/runtime/peers.js";
import { advertText } from "../../src/core/advertised.js";
import { tempRoot } from "../helpers/tmp.js";

// while `refusing.code` is set, making a directory under .guild/workers fails with it (a read-only mount, a full disk)
const { refusing } = vi.hoisted(() => ({ refusing: { code: "" } }));
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  const mkdirSync = ((file: string, options?: object) => {
    if (refusing.code && String(file).includes(`${path.sep}workers`))
      throw Object.assign(new Error(`${refusing.code}: refused, mkdir '${file}'`), { code: refusing.code });
    return real.mkdirSync(file, options);
  }) as typeof real.mkdirSync;
  return { ...real, mkdirSync, default: { ...real, mkdirSync } };
});

const KEYS = Array.from({ length: 400 }, (_, i) => `run-${i}\u0000G-spec`);

/** A project's layout: workers run where .guild/ exists. */
function project(): Layout {
  const layout = new Layout(tempRoot());
  mkdirSync(layout.guild, { recursive: true });
  return layout;
}

function peers(ids: string[]) {
  const layout = project();
  const dir = peersDir(layout, "broker");
  return { layout, dir, all: ids.map((id) => new Peers(layout, dir, id)) };
}

/** Every peer has beaten after every other: each sees them all. */
function settle(all: Peers[]): void {
  for (let round = 0; round < 2; round++) for (const p of all) p.beat();
}

describe("peers of one worker kind", () => {
  it("alone, a worker owns every gate", () => {
    const { all } = peers(["a-1"]);
    all[0]!.beat();
    expect(KEYS.every((k) => all[0]!.owns(k))).toBe(true);
  });

  it("every gate is exactly one live peer's, and the shares are even", () => {
    const { all } = peers(["a-1", "b-2", "c-3"]);
    settle(all);
    for (const p of all) expect(p.beat()).toBe(false); // every one sees the same three
    for (const k of KEYS) expect(all.filter((p) => p.owns(k))).toHaveLength(1);
    for (const p of all) expect(KEYS.filter((k) => p.owns(k)).length).toBeGreaterThan(KEYS.length / 6);
  });

  it("a peer that leaves, or stops beating, has its share taken by the others", () => {
    const { all } = peers(["a-1", "b-2", "c-3"]);
    settle(all);
    const [a, b, c] = all as [Peers, Peers, Peers];
    const [t0, k0] = [Date.now(), performance.now()];
    c.leave();
    expect(a.beat(t0, k0)).toBe(true);
    expect(a.count()).toBe(2);
    // b does not beat again (a kill -9 elsewhere): past the stale time on a's own clock, a takes every gate
    expect(a.beat(t0 + 5_000, k0 + 5_000)).toBe(false);
    expect(a.beat(t0 + 11_000, k0 + 11_000)).toBe(true);
    expect(KEYS.every((k) => a.owns(k))).toBe(true);
    b.beat(t0 + 11_000, k0 + 11_000); // b comes back
    expect(a.beat(t0 + 12_000, k0 + 12_000)).toBe(true);
    expect(KEYS.filter((k) => a.owns(k)).length).toBeLessThan(KEYS.length);
  });

  it("a wall clock stepped forward removes no live peer's file, and one stepped back keeps no dead peer alive", () => {
    const { all, dir } = peers(["a-1", "b-2"]);
    settle(all);
    const [a, b] = all as [Peers, Peers];
    const k0 = performance.now();
    // a laptop's clock set 20 minutes on (past the time a silent peer's file is forgotten), a second after b beat
    expect(a.beat(Date.now() + 20 * 60_000, k0 + 1_000)).toBe(false);
    expect(readdirSync(dir)).toContain(b.self);
    expect(a.count()).toBe(2);
    // b is killed elsewhere; a's clock is stepped back an hour: 11 s later b is gone all the same
    expect(a.beat(Date.now() - 3_600_000, k0 + 12_000)).toBe(true);
    expect(a.count()).toBe(1);
  });

  it("liveness is read on this worker's clock: a file dated in the future is no peer unless it keeps being re-dated", () => {
    const { all, dir } = peers(["a-1"]);
    const a = all[0]!;
    a.beat();
    const planted = path.join(dir, "elsewhere-0-42");
    writeFileSync(planted, "");
    const hourAhead = (Date.now() + 3_600_000) / 1000;
    utimesSync(planted, hourAhead, hourAhead);
    expect(a.beat()).toBe(false);
    expect(a.count()).toBe(1);
    // a live peer whose clock runs an hour ahead re-dates its file every beat: it counts from its second beat on
    utimesSync(planted, hourAhead + 1, hourAhead + 1);
    expect(a.beat()).toBe(true);
    expect(a.count()).toBe(2);
  });

  it("a joining peer takes gates only from the others' shares in proportion, and moves no gate between them", () => {
    const { all } = peers(["a-1", "b-2", "c-3"]);
    const [a, b] = all as [Peers, Peers, Peers];
    settle([a, b]);
    const before = new Map(KEYS.map((k) => [k, a.owns(k) ? "a" : "b"]));
    settle(all);
    const after = new Map(KEYS.map((k) => [k, a.owns(k) ? "a" : b.owns(k) ? "b" : "c"]));
    expect(KEYS.filter((k) => after.get(k) !== "c" && after.get(k) !== before.get(k))).toEqual([]);
  });

  it("a peer of this machine whose process is gone (kill -9) counts as gone at once, its file removed", () => {
    const { layout, dir } = peers([]);
    const me = new Peers(layout, dir); // this process, named by its host and pid
    const host = me.self.slice(0, me.self.lastIndexOf("-"));
    mkdirSync(dir, { recursive: true });
    const dead = path.join(dir, `${host}-${2 ** 22 + 1}`); // fresh, but no such process
    writeFileSync(dead, "");
    me.beat();
    expect(me.count()).toBe(1);
    expect(existsSync(dead)).toBe(false);
  });

  it("strange names, directories and a linked workers/ directory are not peers and stop no beat", () => {
    const { layout, dir, all } = peers(["a-1"]);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "bad name-1"), "");
    writeFileSync(path.join(dir, "no-pid"), "");
    mkdirSync(path.join(dir, "adir-2"));
    all[0]!.beat();
    expect(all[0]!.count()).toBe(1);
    const other = project();
    mkdirSync(other.guild, { recursive: true });
    symlinkSync(layout.guild, path.join(other.guild, "workers"));
    const linked = new Peers(other, peersDir(other, "broker"), "z-9");
    expect(linked.beat()).toBe(false); // refused to write through the link: alone, owning every gate
    expect(KEYS.every((k) => linked.owns(k))).toBe(true);
  });

  it(".guild itself a link to the bus root (SPEC §2): a worker registers there, so status and review see it run", () => {
    const root = tempRoot();
    const busRoot = path.join(tempRoot("guild-bus-root-"), "bus");
    mkdirSync(busRoot);
    symlinkSync(busRoot, path.join(root, ".guild"));
    const layout = new Layout(root);
    new Peers(layout, peersDir(layout, "broker")).beat();
    expect(readdirSync(path.join(busRoot, "workers", "broker"))).toHaveLength(1);
    expect(workerRunning(layout, "broker")).toBe(true);
  });

  it("a linked workers/ directory is never read nor cleaned through: files outside .guild stay", () => {
    const victim = tempRoot("guild-bus-victim-");
    const old = Date.now() / 1000 - 3600;
    for (const name of ["thesis-2024", "backup.tar-1"]) {
      writeFileSync(path.join(victim, name), "keep me");
      utimesSync(path.join(victim, name), old, old);
    }
    const layout = new Layout(tempRoot());
    mkdirSync(path.join(layout.guild, "workers"), { recursive: true });
    symlinkSync(victim, peersDir(layout, "broker"));
    const me = new Peers(layout, peersDir(layout, "broker"));
    const hostAndNs = me.self.slice(0, me.self.lastIndexOf("-"));
    writeFileSync(path.join(victim, `${hostAndNs}-${2 ** 22 + 1}`), ""); // a "dead peer of this machine"
    const [t0, k0] = [Date.now(), performance.now()];
    me.beat(t0, k0);
    me.beat(t0 + 11 * 60_000, k0 + 11 * 60_000); // past the time a peer's file is forgotten
    expect(readdirSync(victim).sort()).toEqual([`${hostAndNs}-${2 ** 22 + 1}`, "backup.tar-1", "thesis-2024"].sort());
    expect(me.count()).toBe(1);
  });

  it("hard links to a worker's own file are no peers: its share is not diluted by names it re-dates itself", () => {
    const { dir, all } = peers(["a-1"]);
    const a = all[0]!;
    a.beat();
    for (let i = 0; i < 8; i++) linkSync(path.join(dir, "a-1"), path.join(dir, `evil-0-${i}`));
    expect(a.beat()).toBe(false);
    expect(a.count()).toBe(1);
    expect(KEYS.every((k) => a.owns(k))).toBe(true);
  });

  it("a hard link planted at a worker's own name is not re-dated: the outside file keeps its dates and bytes", () => {
    const { layout, dir, all } = peers(["a-1"]);
    const outside = path.join(layout.root, "thesis.tex");
    writeFileSync(outside, "chapter 1\n");
    const old = new Date("2020-01-01T00:00:00Z");
    utimesSync(outside, old, old);
    mkdirSync(dir, { recursive: true });
    linkSync(outside, path.join(dir, "a-1"));
    all[0]!.beat();
    expect(statSync(outside).mtimeMs).toBe(old.getTime());
    expect(readFileSync(outside, "utf8")).toBe("chapter 1\n");
    const own = statSync(path.join(dir, "a-1"));
    expect([own.nlink, own.ino === statSync(outside).ino]).toEqual([1, false]);
  });
});

describe("whether a worker kind runs", () => {
  it("is told by a peer file re-dated lately: none, a live one, one gone quiet, one of a dead process here", () => {
    const layout = project();
    expect(workerRunning(layout, "broker")).toBe(false); // no worker ever ran
    const self = new Peers(layout, peersDir(layout, "broker"));
    self.beat();
    expect(workerRunning(layout, "broker")).toBe(true);
    expect(workerRunning(layout, "verifier")).toBe(false);
    expect(workerRunning(layout, "broker", Date.now() + 11_000)).toBe(false); // this machine's, silent for 11 s
    self.leave();
    expect(workerRunning(layout, "broker")).toBe(false);
    // a file of this machine naming a pid that does not run, re-dated now, is no worker
    const dead = self.self.replace(/\d+$/, "999999999");
    writeFileSync(path.join(peersDir(layout, "broker"), dead), "");
    expect(workerRunning(layout, "broker")).toBe(false);
    // another machine's worker, whose clock may be off, counts for longer
    writeFileSync(path.join(peersDir(layout, "broker"), "other-host-0-42"), "");
    expect(workerRunning(layout, "broker", Date.now() + 30_000)).toBe(true);
    expect(workerRunning(layout, "broker", Date.now() + 61_000)).toBe(false);
  });

  it("a worker of this machine whose process runs but which stopped re-dating its file (SIGSTOP, hung) is named by pid", async () => {
    const layout = project();
    const dir = peersDir(layout, "command");
    // a process whose command line is a command worker's (the guild-bus script, then `worker command`)
    const worker = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "/opt/guild-bus/bin/guild-bus.js", "worker", "command"], {
      stdio: "ignore",
    });
    try {
      await new Promise((resolve) => worker.once("spawn", resolve));
      const pid = worker.pid!;
      const peer = new Peers(layout, dir, SELF_PEER.replace(/\d+$/, String(pid)));
      peer.beat();
      expect(unresponsiveWorkers(layout, "command")).toEqual([]); // alive and saying so
      // silent for 11 s: not running, and its pid is the one to look at
      expect(workerRunning(layout, "command", Date.now() + 11_000)).toBe(false);
      expect(unresponsiveWorkers(layout, "command", Date.now() + 11_000)).toEqual([pid]);
      // stopped for an hour, it still holds its claims: still named (else "run: guild-bus up" starts one beside it)
      expect(unresponsiveWorkers(layout, "command", Date.now() + 60 * 60_000)).toEqual([pid]);
      // a pid that runs something else (this test process: a reused pid), one that does not run, another machine's:
      // none is named
      const self = new Peers(layout, dir);
      self.beat();
      writeFileSync(path.join(dir, SELF_PEER.replace(/\d+$/, "999999999")), "");
      writeFileSync(path.join(dir, "other-host-0-42"), "");
      expect(unresponsiveWorkers(layout, "command", Date.now() + 11_000)).toEqual([pid]);
      expect(unresponsiveWorkers(layout, "broker", Date.now() + 11_000)).toEqual([]);
      peer.leave();
      expect(unresponsiveWorkers(layout, "command", Date.now() + 11_000)).toEqual([]);
    } finally {
      worker.kill("SIGKILL");
    }
  });
});

describe("a worker whose project was removed", () => {
  it("does not make its .guild again by saying it is alive", () => {
    const root = tempRoot();
    const layout = new Layout(root);
    mkdirSync(layout.guild, { recursive: true });
    const self = new Peers(layout, peersDir(layout, "broker"));
    self.beat();
    expect(existsSync(peersDir(layout, "broker"))).toBe(true);
    rmSync(layout.guild, { recursive: true });
    self.beat();
    expect(existsSync(layout.guild)).toBe(false);
  });
});

describe("a reviewer worker's advertisement in its presence file", () => {
  it("is written whole, rewritten when it changes, re-dated otherwise, and read only while the worker is live", () => {
    const layout = project();
    const dir = peersDir(layout, "http");
    let body: string | null = null;
    const self = new Peers(layout, dir, "machB-1-77", () => body);
    self.beat();
    expect(readFileSync(path.join(dir, "machB-1-77"), "utf8")).toBe(""); // nothing detected yet: an empty file
    expect(liveAdverts(layout, ["http"])).toEqual([]);
    body = advertText("machB", ["hx"]);
    self.beat();
    expect(liveAdverts(layout, ["http", "codex"])).toEqual([{ kind: "http", peer: "machB-1-77", host: "machB", providers: ["hx"] }]);
    const ino = statSync(path.join(dir, "machB-1-77")).ino;
    self.beat(Date.now() + 500);
    expect(statSync(path.join(dir, "machB-1-77")).ino).toBe(ino); // same body: re-dated, not rewritten
    body = advertText("machB", ["hx", "hy"]);
    self.beat();
    expect(liveAdverts(layout, ["http"])[0]!.providers).toEqual(["hx", "hy"]);
    expect(readdirSync(dir)).toEqual(["machB-1-77"]); // no temp file left beside it
    // a directory planted at the temp name does not stop the next body from being written
    mkdirSync(path.join(dir, ".machB-1-77.new", "inside"), { recursive: true });
    body = advertText("machB", ["hx"]);
    self.beat();
    expect(liveAdverts(layout, ["http"])[0]!.providers).toEqual(["hx"]);
    // not re-dated within the window another machine's worker counts as running: advertises nothing
    expect(liveAdverts(layout, ["http"], Date.now() + 120_000)).toEqual([]);
    self.leave();
    expect(liveAdverts(layout, ["http"])).toEqual([]);
  });

  it("says why no one can see this worker while its presence file cannot be written, and when they can again", () => {
    const layout = project();
    const workers = path.join(layout.guild, "workers");
    writeFileSync(workers, "a file where the directory goes\n");
    const self = new Peers(layout, peersDir(layout, "broker"), "machA-1-5");
    self.beat();
    expect(self.unseen).toMatch(
      /^\.guild\/workers\/broker\/machA-1-5 cannot be written \(ENOTDIR\): make \.guild\/workers a directory this user can write$/,
    );
    expect(workerRunning(layout, "broker")).toBe(false);
    rmSync(workers);
    self.beat();
    expect(self.unseen).toBeNull();
    expect(workerRunning(layout, "broker")).toBe(true);
  });

  it("tells a person to remount or free space, not to chmod, when a read-only mount or a full disk refuses the file", () => {
    const layout = project();
    const self = new Peers(layout, peersDir(layout, "broker"), "machA-1-5");
    try {
      refusing.code = "EROFS";
      self.beat();
      expect(self.unseen).toMatch(/cannot be written \(EROFS\): remount it read-write$/);
      refusing.code = "ENOSPC";
      self.beat();
      expect(self.unseen).toMatch(/cannot be written \(ENOSPC\): free disk space/);
    } finally {
      refusing.code = "";
    }
    self.beat();
    expect(self.unseen).toBeNull();
  });
});
