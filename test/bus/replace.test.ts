import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { replace } from "../../src/bus/replace.js";
import { tempRoot } from "../helpers/tmp.js";

/** A project whose .guild is there (a worker's view never makes it). */
function project() {
  const root = tempRoot();
  const guildDir = path.join(root, ".guild");
  mkdirSync(guildDir);
  return { root, guildDir };
}

describe("replace: atomic regeneration of views", () => {
  it("creates directories for a command's write (init's), and writes strings or bytes", async () => {
    const { root, guildDir } = project();
    const file = path.join(root, "views", "deep", "trail.md");
    await replace(file, "# Trail\n", { guildDir, makeDirs: true });
    expect(readFileSync(file, "utf8")).toBe("# Trail\n");
    await replace(file, new Uint8Array([0, 1, 2, 255]), { guildDir, durable: false });
    expect([...readFileSync(file)]).toEqual([0, 1, 2, 255]);
    expect(readdirSync(path.dirname(file))).toEqual(["trail.md"]); // the temp file was never beside the view
    expect(readdirSync(path.join(guildDir, "tmp"))).toEqual([]);
  });

  // /dev/shm is a tmpfs where there is one: another filesystem than the temp roots
  const shm = existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(tempRoot()).dev ? "/dev/shm" : null;
  it.skipIf(!shm)("a view on another filesystem than .guild/tmp (EXDEV) is rewritten in place, never left stale", async () => {
    const { guildDir } = project();
    const views = mkdtempSync(path.join(shm!, "guild-bus-views-"));
    try {
      const file = path.join(views, "trail.md");
      await replace(file, "# Trail\n\nround 1\n", { guildDir });
      await replace(file, "# Trail\n", { guildDir, durable: false });
      expect(readFileSync(file, "utf8")).toBe("# Trail\n");
      expect(readdirSync(views)).toEqual(["trail.md"]);
      expect(readdirSync(path.join(guildDir, "tmp"))).toEqual([]);
    } finally {
      rmSync(views, { recursive: true, force: true });
    }
  });

  it("a failed rename leaves the old view and removes its staging", async () => {
    const { root, guildDir } = project();
    const file = path.join(root, "trail.md");
    mkdirSync(file); // rename() of a file over a directory fails
    await expect(replace(file, "# Trail\n", { guildDir })).rejects.toThrow();
    expect(readdirSync(file)).toEqual([]);
    expect(readdirSync(path.join(guildDir, "tmp"))).toEqual([]);
  });

  it("readers see the old or the new content, never a mix or a truncation", async () => {
    const { root, guildDir } = project();
    const file = path.join(root, "trail.md");
    // Different lengths and bytes: a torn or truncated read matches neither.
    const versions = [Buffer.alloc(2 * 1024 * 1024, "a"), Buffer.alloc(3 * 1024 * 1024 + 17, "b")];
    await replace(file, versions[0]!, { guildDir });

    let done = false;
    let reads = 0;
    const bad: string[] = [];
    const reader = (async () => {
      while (!done) {
        const got = readFileSync(file);
        reads++;
        if (!versions.some((v) => v.equals(got))) bad.push(`${got.length} bytes, starts ${got.subarray(0, 1).toString()}`);
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 1; i <= 20; i++) await replace(file, versions[i % 2]!, { guildDir });
    done = true;
    await reader;

    expect(bad).toEqual([]);
    expect(reads).toBeGreaterThan(20);
    expect(readFileSync(file).equals(versions[0]!)).toBe(true);
    expect(readdirSync(root).sort()).toEqual([".guild", "trail.md"]);
  });

  it("concurrent replaces leave one whole version", async () => {
    const { root, guildDir } = project();
    const file = path.join(root, "v", "trail.md");
    mkdirSync(path.dirname(file));
    const versions = Array.from({ length: 8 }, (_, i) => Buffer.alloc(256 * 1024 + i, String(i)));
    await Promise.all(versions.map((v) => replace(file, v, { guildDir })));
    const got = readFileSync(file);
    expect(versions.some((v) => v.equals(got))).toBe(true);
    expect(readdirSync(path.dirname(file))).toEqual(["trail.md"]);
    expect(readdirSync(path.join(guildDir, "tmp"))).toEqual([]);
  });
});
