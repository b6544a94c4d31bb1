// The CLI's aligned columns hold any number of rows: status lists every gate on disk; a command it prints for a
// person to paste quotes what a shell would read.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatAge, shellWord, table } from "../../src/cli/format.js";
import { tempRoot } from "../helpers/tmp.js";

describe("table", () => {
  it("aligns more rows than a call takes arguments (status on 150,000 gates)", () => {
    const rows = Array.from({ length: 150_000 }, (_, i) => [`run-${i}`, "G-spec", "satisfied"]);
    const lines = table(["RUN", "GATE", "STATE"], rows);
    expect(lines).toHaveLength(150_001);
    expect(lines[0]).toBe("RUN         GATE    STATE");
    expect(lines[150_000]).toBe("run-149999  G-spec  satisfied");
  });
});

describe("formatAge", () => {
  // status's AGE column and the console's age read a request's time alike (core/iso-time.ts, SPEC §0)
  const now = Date.parse("2026-03-01T12:00:00Z");
  it("reads every ISO-8601 spelling the bus reads: a comma fraction, an offset without a colon", () => {
    expect(formatAge("2026-03-01T11:00:30,5Z", now)).toBe("59m");
    expect(formatAge("2026-03-01T06:00:00-0500", now)).toBe("1h");
  });
  it("gives no age for a time without a zone (whose local time is unknown), rather than this machine's guess", () => {
    expect(formatAge("2026-03-01T11:00:00", now)).toBe("-");
    expect(formatAge("yesterday", now)).toBe("-");
  });
});

describe("shellWord", () => {
  it("quotes what a shell would read specially: pasted, the word is the value, and runs nothing", () => {
    const dir = tempRoot();
    const planted = path.join(dir, "ran");
    for (const value of [
      "/home/me/project",
      `/tmp/a $(touch ${planted}) \`touch ${planted}\`;touch ${planted}`,
      "it's here",
      "'",
      "a\\b",
      "*",
      "~user",
      "-x",
      "",
    ]) {
      const r = spawnSync("sh", ["-c", `printf '%s' ${shellWord(value)}`], { encoding: "utf8" });
      expect(r.stdout, value).toBe(value);
    }
    expect(existsSync(planted)).toBe(false);
    expect(shellWord("/home/me/project")).toBe("/home/me/project");
  });
});
