// The compile cache (bin/compile-cache.js): a command starts from V8's cached code of the bundle, in the user's own
// cache directory, and no state of that directory (missing, corrupt, unwritable, turned off) changes what it does.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, REPO } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";

function family(env: Record<string, string>, cwd?: string) {
  const r = spawnSync(process.execPath, [BIN, "family", "gpt-5"], { encoding: "utf8", env: { ...process.env, ...env }, cwd });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const works = { code: 0, stdout: "gpt-5\topenai\n", stderr: "" };

const { cacheFileParts } = createRequire(import.meta.url)(path.join(REPO, "bin", "compile-cache.js")) as {
  cacheFileParts(bytes: Buffer): { data: Buffer; writes: number; source: Buffer } | undefined;
};

/** Whether every cache file holds data behind its checksum and a copy of a bundle file's text, as the cache writes them. */
const allValid = (files: Map<string, Buffer>) =>
  files.size > 0 &&
  [...files.values()].every((b) => {
    const parts = cacheFileParts(b);
    return parts !== undefined && parts.data.length > 0 && parts.source.length > 0;
  });

/** Every cache file under `root`, with its bytes. */
function cached(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) files.set(path.join(entry.parentPath, entry.name), readFileSync(path.join(entry.parentPath, entry.name)));
  return files;
}

/** An installed package (no tsconfig.json beside it: its bundle is used) whose bundle's main.cjs is `main`; its bin. */
function packageWith(main: string): string {
  const pkg = tempRoot();
  cpSync(path.dirname(BIN), path.join(pkg, "bin"), { recursive: true });
  mkdirSync(path.join(pkg, "dist", "src", "cli"), { recursive: true });
  writeFileSync(path.join(pkg, "dist", "src", "cli", "main.js"), "export async function main() { return 0; }\n");
  mkdirSync(path.join(pkg, "dist", "cli"), { recursive: true });
  writeFileSync(path.join(pkg, "dist", "cli", "safe-output.cjs"), "exports.guardOutput = () => {};\n");
  writeFileSync(path.join(pkg, "dist", "cli", "main.cjs"), main);
  return path.join(pkg, "bin", "guild-bus.js");
}

describe("the compile cache", () => {
  it("is written on the first start into XDG_CACHE_HOME, private to the user; the next starts add what they ran, then it is kept", () => {
    const xdg = tempRoot();
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    const first = cached(xdg);
    expect(first.size).toBeGreaterThan(0);
    const dir = path.dirname([...first.keys()][0]!);
    expect(path.relative(xdg, dir).split(path.sep).slice(0, 2)).toEqual(["guild-bus", "compile-cache"]);
    expect(statSync(dir).mode & 0o077).toBe(0);
    for (const file of first.keys()) expect(statSync(file).mode & 0o077, file).toBe(0);
    // `--help` runs code of the argument parser's file that `family` never ran: that file's cached code grows, so
    // `--help` does not compile it again on each start
    expect(spawnSync(process.execPath, [BIN, "--help"], { env: { ...process.env, XDG_CACHE_HOME: xdg } }).status).toBe(0);
    const grown = [...cached(xdg)].filter(([file, bytes]) => first.has(file) && bytes.length > first.get(file)!.length);
    expect(grown.length).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    const settled = cached(xdg);
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    expect(cached(xdg)).toEqual(settled); // V8 accepted every file, and each was written as often as it is: nothing written
    expect(allValid(settled)).toBe(true);
    for (const bytes of settled.values()) expect(cacheFileParts(bytes)!.writes).toBeLessThanOrEqual(3);
  });

  it("a corrupt cache file (junk, or one flipped bit V8 would run) is compiled again and replaced; the command is unchanged", () => {
    const xdg = tempRoot();
    family({ XDG_CACHE_HOME: xdg });
    const good = cached(xdg);
    for (const [file, bytes] of good) writeFileSync(file, Buffer.alloc(64, 0x5a).subarray(0, Math.min(64, bytes.length)));
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    expect(allValid(cached(xdg))).toBe(true);
    for (const [file, bytes] of good) {
      const flipped = Buffer.from(bytes);
      for (let at = 64; at < flipped.length; at += 997) flipped[at]! ^= 0x10; // bits V8's own checks do not cover
      writeFileSync(file, flipped);
    }
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    expect(allValid(cached(xdg))).toBe(true);
    expect(cached(xdg).size).toBe(good.size);
  });

  it("never runs the cached code of a file's earlier text: one rewritten in place, as long and as old, runs as it now reads", () => {
    const xdg = tempRoot();
    const said = (word: string) => `exports.main = async () => { process.stdout.write("${word}\\n"); return 0; };\n`;
    const bin = packageWith(said("before"));
    const run = () => spawnSync(process.execPath, [bin], { encoding: "utf8", env: { ...process.env, XDG_CACHE_HOME: xdg } }).stdout;
    for (let i = 0; i < 2; i++) expect(run()).toBe("before\n");
    expect(allValid(cached(xdg))).toBe(true); // main.cjs's code was cached, and read by the second start
    const main = path.join(path.dirname(bin), "..", "dist", "cli", "main.cjs");
    const { atime, mtime } = statSync(main);
    writeFileSync(main, said("after!")); // V8's own check of cached data compares only the length of the text
    utimesSync(main, atime, mtime);
    expect(run()).toBe("after!\n");
    expect(run()).toBe("after!\n");
  });

  it("is neither read nor written where another user could change it: a directory others may write, a symlink", () => {
    const xdg = tempRoot();
    family({ XDG_CACHE_HOME: xdg });
    const dir = path.dirname([...cached(xdg).keys()][0]!);
    for (const file of readdirSync(dir)) rmSync(path.join(dir, file));
    chmodSync(dir, 0o777);
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    expect(readdirSync(dir)).toEqual([]);

    const elsewhere = tempRoot();
    const linked = tempRoot();
    symlinkSync(elsewhere, path.join(linked, "guild-bus"));
    expect(family({ XDG_CACHE_HOME: linked })).toEqual(works);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("leaves no staged file behind when a cache file cannot be written", () => {
    const xdg = tempRoot();
    family({ XDG_CACHE_HOME: xdg });
    const files = [...cached(xdg).keys()];
    for (const file of files) {
      rmSync(file);
      mkdirSync(file); // the name taken by a directory: the rename fails
    }
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    expect(readdirSync(path.dirname(files[0]!)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("does not grow without end: what no start used for a week goes when the cache is next written; what is in use stays", () => {
    const xdg = tempRoot();
    for (let i = 0; i < 3; i++) family({ XDG_CACHE_HOME: xdg }); // written, then written again by the next starts
    const inUse = [...cached(xdg).keys()];
    const dir = path.dirname(inUse[0]!);
    const longAgo = new Date(Date.now() - 30 * 24 * 3600 * 1000);
    const oldBuild = path.join(dir, "0".repeat(40));
    writeFileSync(oldBuild, "cached code of an earlier build");
    const oldNode = path.join(path.dirname(dir), "linux-x64-v8-1.0-node.1-1");
    mkdirSync(oldNode, { mode: 0o700 });
    writeFileSync(path.join(oldNode, "1".repeat(40)), "cached code of another Node");
    for (const entry of [...inUse, oldBuild, path.join(oldNode, "1".repeat(40)), oldNode, dir]) utimesSync(entry, longAgo, longAgo);

    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works); // reads every file in use: each is marked used
    for (const file of inUse) expect(statSync(file).mtimeMs).toBeGreaterThan(longAgo.getTime());
    expect(existsSync(oldBuild)).toBe(true); // nothing was written, so nothing was pruned yet

    rmSync(inUse[0]!); // the next start writes that file again, and prunes
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    expect(existsSync(oldBuild)).toBe(false);
    expect(existsSync(oldNode)).toBe(false);
    expect(new Set(cached(xdg).keys())).toEqual(new Set(inUse));
  });

  it("an unwritable cache directory, a relative XDG_CACHE_HOME and GUILD_BUS_COMPILE_CACHE=0 leave the command as it is", () => {
    const root = tempRoot();
    const notADir = path.join(root, "file");
    writeFileSync(notADir, "");
    expect(family({ XDG_CACHE_HOME: notADir })).toEqual(works);

    const home = path.join(root, "home");
    mkdirSync(home);
    expect(family({ XDG_CACHE_HOME: "relative/cache", HOME: home })).toEqual(works);
    expect(cached(path.join(home, ".cache", "guild-bus")).size).toBeGreaterThan(0); // a relative path is not trusted
    const cwd = path.join(root, "cwd");
    mkdirSync(cwd);
    for (const noHome of ["", "rel"]) expect(family({ XDG_CACHE_HOME: "", HOME: noHome }, cwd)).toEqual(works);
    expect(readdirSync(cwd)).toEqual([]); // never a cache in the current directory

    const off = path.join(root, "off");
    mkdirSync(off);
    expect(family({ XDG_CACHE_HOME: off, GUILD_BUS_COMPILE_CACHE: "0" })).toEqual(works);
    expect(readdirSync(off)).toEqual([]);
  });
});

describe("the CommonJS bin", () => {
  it("every bundle file is strict mode, as the ES modules were", () => {
    const dir = path.join(REPO, "dist", "cli");
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".cjs"));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect(readFileSync(path.join(dir, file), "utf8").startsWith('"use strict";'), file).toBe(true);
  });

  it("a command whose work never settles exits 13 with a message, never 0", () => {
    const bin = packageWith("exports.main = () => new Promise(() => {});\n");
    const r = spawnSync(process.execPath, [bin, "check"], { encoding: "utf8" });
    expect(r.status).toBe(13);
    expect(r.stderr).toBe("guild-bus: internal error: the command stopped before it finished\n");
  });
});
