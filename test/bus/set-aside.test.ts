import { lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { setAside } from "../../src/bus/set-aside.js";
import { tempRoot } from "../helpers/tmp.js";

const notADirectory = (file: string) => !lstatSync(file).isDirectory();

// Two workers see the same junk at once: one moves it aside and makes the real thing; the other then moves what it
// finds at the name, believing it is the junk it saw.
describe("setAside, with another worker acting between the look and the move", () => {
  it("moves junk aside under a name that says why", () => {
    const dir = tempRoot();
    const file = path.join(dir, "tmp");
    writeFileSync(file, "junk");
    setAside(file, "not-a-directory", notADirectory);
    expect(lstatSync(file, { throwIfNoEntry: false })).toBeUndefined();
    expect(readdirSync(dir).filter((n) => n.startsWith("tmp.not-a-directory."))).toHaveLength(1);
  });

  it("junk moved aside twice in one millisecond is kept twice: the second move never replaces the first", () => {
    const dir = tempRoot();
    const file = path.join(dir, "job.lock");
    const notALock = (f: string) => !lstatSync(f).isDirectory() || readdirSync(f).length > 0;
    for (let i = 0; i < 20; i++) {
      writeFileSync(file, `junk ${i}`);
      setAside(file, "not-a-lock", notALock);
      mkdirSync(file); // a planted empty directory: were it moved onto an earlier aside name, it would replace nothing…
      writeFileSync(path.join(file, "x"), `junk dir ${i}`); // …so it holds a file, and is junk by the lock's rule
      setAside(file, "not-a-lock", notALock);
    }
    const aside = readdirSync(dir).filter((n) => n.startsWith("job.lock.not-a-lock."));
    expect(aside).toHaveLength(40);
  });

  it("does not throw when the other worker moved it first", () => {
    const dir = tempRoot();
    const file = path.join(dir, "tmp");
    expect(() => setAside(file, "not-a-directory", notADirectory)).not.toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("puts back the real thing the other worker made in its place, with what it holds", () => {
    const dir = tempRoot();
    const file = path.join(dir, "tmp");
    writeFileSync(file, "junk");
    rmSync(file); // the other worker moved the junk away…
    mkdirSync(file); // …and made its staging directory, with a file staged in it
    writeFileSync(path.join(file, "staged"), "bytes");
    setAside(file, "not-a-directory", notADirectory);
    expect(lstatSync(file).isDirectory()).toBe(true);
    expect(readdirSync(file)).toEqual(["staged"]);
    expect(readdirSync(dir)).toEqual(["tmp"]);
  });
});
