// The parse cache: a file is parsed once per version, and a full cache drops an entry nobody asked for lately.
import { describe, expect, it } from "vitest";
import { cachedParse, forgetParsedUnder } from "../../src/bus/parse-cache.js";

describe("cachedParse", () => {
  const keep = () => true;

  it("parses a file again only when its version changes, and hands out one frozen value", () => {
    let parses = 0;
    const parse = () => ({ n: ++parses, nested: { a: 1 } });
    const first = cachedParse("/pc/a", "1:10:1:1", parse, keep);
    expect(cachedParse("/pc/a", "1:10:1:1", parse, keep)).toBe(first);
    expect(Object.isFrozen(first.nested)).toBe(true);
    expect(cachedParse("/pc/a", "1:11:2:2", parse, keep).n).toBe(2);
    // a failed read is not remembered
    const read = (ok: boolean) =>
      cachedParse(
        "/pc/b",
        "1:1:1:1",
        () => ({ ok }),
        (v) => v.ok,
      ).ok;
    expect(read(false)).toBe(false);
    expect(read(true)).toBe(true);
  });

  it("when full, keeps the entries read since the last pass and drops the oldest one that was not", () => {
    const size = 16_384;
    const parsed: string[] = [];
    const put = (file: string) => cachedParse(file, "v", () => (parsed.push(file), { file }), keep);
    for (let i = 0; i < size + 1; i++) put(`/fill/${i}`); // the cache is full of these now
    put("/fill/1"); // hit: read lately
    parsed.length = 0;
    put("/fill/new");
    put("/fill/1");
    put("/fill/3");
    expect(parsed).toEqual(["/fill/new"]); // neither the hit one nor a younger one was dropped
    put("/fill/2");
    expect(parsed).toContain("/fill/2"); // the oldest not read since: dropped
  });

  it("holds at most 128 MB of the files it keeps parsed: a history of large packets does not stay in memory", () => {
    const parsed: string[] = [];
    const put = (file: string) => cachedParse(file, "1:1048576:1:1", () => (parsed.push(file), { file }), keep);
    for (let i = 0; i < 200; i++) put(`/large/${i}`); // 200 files of 1 MB each, far fewer than the entries it may hold
    parsed.length = 0;
    put("/large/199");
    expect(parsed).toEqual([]); // the newest is kept
    put("/large/0");
    expect(parsed).toEqual(["/large/0"]); // the oldest went for the bytes
  });

  it("forgets every file under an ended run's directory, at any depth, and nothing beside it", () => {
    const parsed: string[] = [];
    const put = (file: string) => cachedParse(file, "1:1:1:1", () => (parsed.push(file), { file }), keep);
    const inRun = ["/runs/t1/run.json", "/runs/t1/review/G/packet-1.md", "/runs/t1/review/G/.verified/result-1.json"];
    const beside = ["/runs/t10/run.json", "/runs/t10/review/G/packet-1.md", "/runs/t2/review/G/packet-1.md"];
    [...inRun, ...beside].forEach(put);
    forgetParsedUnder("/runs/t1");
    parsed.length = 0;
    [...inRun, ...beside].forEach(put);
    expect(parsed).toEqual(inRun); // read again; the runs whose names share its prefix kept theirs
    forgetParsedUnder("/runs/t1/review/G/.verified"); // a directory below a run too
    parsed.length = 0;
    [...inRun, ...beside].forEach(put);
    expect(parsed).toEqual(["/runs/t1/review/G/.verified/result-1.json"]);
  });

  it("forgets the files of a run again after they were read anew, evicted or replaced by a new version", () => {
    const parsed: string[] = [];
    const put = (file: string, stamp = "1:1:1:1") => cachedParse(file, stamp, () => (parsed.push(file), { file }), keep);
    put("/again/r/a");
    forgetParsedUnder("/again/r");
    put("/again/r/a");
    put("/again/r/a", "1:2:2:2"); // a new version of a file the cache holds
    forgetParsedUnder("/again/r");
    parsed.length = 0;
    put("/again/r/a", "1:2:2:2");
    expect(parsed).toEqual(["/again/r/a"]);
  });
});
