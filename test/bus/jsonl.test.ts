import { appendFileSync, existsSync, linkSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appendJsonl, readJsonl } from "../../src/bus/jsonl.js";
import { tempRoot } from "../helpers/tmp.js";

const Event = z.object({ seq: z.number().int(), kind: z.enum(["start", "done"]), note: z.string().optional() });
type Event = z.infer<typeof Event>;

describe("jsonl: appendJsonl", () => {
  it("writes one validated record per line", () => {
    const file = path.join(tempRoot(), "events.jsonl");
    appendJsonl<Event>(file, { seq: 1, kind: "start" }, Event);
    appendJsonl<Event>(file, { seq: 2, kind: "done", note: 'multi\nline "quoted"' }, Event);
    expect(readFileSync(file, "utf8").split("\n")).toHaveLength(3); // two lines and the final newline
    expect(readJsonl(file, Event)).toEqual([
      { seq: 1, kind: "start" },
      { seq: 2, kind: "done", note: 'multi\nline "quoted"' },
    ]);
  });

  it("throws on an invalid record and writes nothing", () => {
    const dir = tempRoot();
    const file = path.join(dir, "events.jsonl");
    expect(() => appendJsonl(file, { seq: 1.5, kind: "start" } as Event, Event)).toThrow();
    expect(existsSync(file)).toBe(false);
    appendJsonl<Event>(file, { seq: 1, kind: "start" }, Event);
    const before = readFileSync(file, "utf8");
    expect(() => appendJsonl(file, { seq: 2, kind: "bogus" } as unknown as Event, Event)).toThrow();
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("makes no directory: a run removed meanwhile is not made again for its events", () => {
    const run = path.join(tempRoot(), "run");
    expect(() => appendJsonl<Event>(path.join(run, "events.jsonl"), { seq: 1, kind: "start" }, Event)).toThrow(/ENOENT/);
    expect(existsSync(run)).toBe(false);
  });

  it("writes what the schema returns (unknown keys stripped)", () => {
    const file = path.join(tempRoot(), "events.jsonl");
    appendJsonl(file, { seq: 1, kind: "start", secret: "x" } as Event, Event);
    expect(readFileSync(file, "utf8")).toBe('{"seq":1,"kind":"start"}\n');
  });

  it("never appends through a hard link: the lines would land in the other name's file, outside .guild", () => {
    const dir = tempRoot();
    const outside = path.join(dir, "outside.txt");
    writeFileSync(outside, "someone's file\n");
    const file = path.join(dir, "events.jsonl");
    linkSync(outside, file);
    expect(() => appendJsonl<Event>(file, { seq: 1, kind: "start" }, Event)).toThrow(/hard link/);
    expect(readFileSync(outside, "utf8")).toBe("someone's file\n");
  });

  it("a record appended after a torn tail is not glued onto it", () => {
    const file = path.join(tempRoot(), "events.jsonl");
    appendJsonl<Event>(file, { seq: 1, kind: "start" }, Event);
    appendFileSync(file, '{"seq":2,"ki'); // a writer died mid-line
    appendJsonl<Event>(file, { seq: 3, kind: "done" }, Event);
    expect(readJsonl(file, Event)).toEqual([
      { seq: 1, kind: "start" },
      { seq: 3, kind: "done" },
    ]);
  });
});

describe("jsonl: readJsonl", () => {
  it("is empty for a missing file", () => {
    expect(readJsonl(path.join(tempRoot(), "none.jsonl"), Event)).toEqual([]);
  });

  it("skips malformed, torn, foreign and schema-invalid lines", () => {
    const file = path.join(tempRoot(), "events.jsonl");
    writeFileSync(
      file,
      [
        '{"seq":1,"kind":"start"}',
        "not json at all",
        "",
        "   ",
        '{"seq":2,"kind":"nope"}', // fails the schema
        '["seq",3]',
        "null",
        '{"seq":4,"kind":"done"}\r', // CRLF line endings still parse
        '{"seq":5,"kind":"start"', // torn, no newline
      ].join("\n"),
    );
    expect(readJsonl(file, Event)).toEqual([
      { seq: 1, kind: "start" },
      { seq: 4, kind: "done" },
    ]);
  });
});
