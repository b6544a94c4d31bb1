// The compile cache (bin/compile-cache.js): a command starts from V8's cached code of the bundle, in the user's own
// cache directory, and no state of that directory (missing, corrupt, unwritable, turned off) changes what it does.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";

function family(env: Record<string, string>) {
  const r = spawnSync(process.execPath, [BIN, "family", "gpt-5"], { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const works = { code: 0, stdout: "gpt-5\topenai\n", stderr: "" };

/** Every cache file under `root`, with its bytes. */
function cached(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) files.set(path.join(entry.parentPath, entry.name), readFileSync(path.join(entry.parentPath, entry.name)));
  return files;
}

describe("the compile cache", () => {
  it("is written on the first start into XDG_CACHE_HOME, private to the user, and read as is on the next", () => {
    const xdg = tempRoot();
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    const first = cached(xdg);
    expect(first.size).toBeGreaterThan(0);
    const dir = path.dirname([...first.keys()][0]!);
    expect(path.relative(xdg, dir).split(path.sep).slice(0, 2)).toEqual(["guild-bus", "compile-cache"]);
    expect(statSync(dir).mode & 0o077).toBe(0);
    for (const file of first.keys()) expect(statSync(file).mode & 0o077, file).toBe(0);
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    expect(cached(xdg)).toEqual(first); // V8 accepted every file: nothing was compiled again
  });

  it("a corrupt cache file is compiled again and replaced; the command is unchanged", () => {
    const xdg = tempRoot();
    family({ XDG_CACHE_HOME: xdg });
    const good = cached(xdg);
    for (const file of good.keys()) writeFileSync(file, Buffer.alloc(64, 0x5a));
    expect(family({ XDG_CACHE_HOME: xdg })).toEqual(works);
    expect([...cached(xdg).values()].every((bytes) => bytes.length > 64)).toBe(true);
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

    const off = path.join(root, "off");
    mkdirSync(off);
    expect(family({ XDG_CACHE_HOME: off, GUILD_BUS_COMPILE_CACHE: "0" })).toEqual(works);
    expect(readdirSync(off)).toEqual([]);
  });
});
