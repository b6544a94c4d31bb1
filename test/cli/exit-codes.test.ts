// What `wait`, `review --wait` and the author commands' --help say they exit with is the whole table of SPEC §17:
// a script that reads the help must learn every code a wait can end with (2 was missing: a pass of bytes the
// artifact no longer holds, which a reader of "0 … 3 … 4 …" could only guess at).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { WAIT_EXITS } from "../../src/cli/exit-codes.js";

const SPEC = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "bus-spec", "SPEC.md"), "utf8");

describe("the exit codes of a wait", () => {
  it("--help lists every code of SPEC's --wait table", () => {
    const table = SPEC.slice(SPEC.indexOf("**`--wait`** (on `review`"));
    const codes = [...table.slice(0, table.indexOf("\n\n", table.indexOf("| Exit |"))).matchAll(/^\| \*\*(\d+)\*\* \|/gm)].map(
      (m) => m[1]!,
    );
    expect(codes).toEqual(["0", "2", "3", "4", "5", "6", "130", "1"]);
    const listed = [...WAIT_EXITS.matchAll(/(?:^|; )(\d+) /g)].map((m) => m[1]!);
    expect(listed.sort()).toEqual([...codes].sort());
  });
});
