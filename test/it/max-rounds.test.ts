// Settings say the round cap as max_rounds; codex_cap, its older name, is still read (max_rounds wins).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";

describe("settings max_rounds (integration)", () => {
  it.each([
    [{ max_rounds: 2 }, 2],
    [{ codex_cap: 3 }, 3],
    [{ max_rounds: 2, codex_cap: 3 }, 2],
  ])("%j: the broker's packet carries cap %i", async (cap, expected) => {
    const p = makeProject();
    p.settings({ ...cap, providers: { gpt: { adapter: "manual", model: "gpt-5" } } });
    p.write("docs/spec.md", "# Spec\n");
    p.startWorker("broker");
    const r = p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", "m1", "--reviewer", "gpt"]);
    expect(r.code, r.stderr).toBe(0);
    await p.waitFor("m1", "G-spec", (f) => f.includes("packet-1.md"), "packet-1.md", scaled(60_000));
    expect(readFileSync(path.join(p.gateDir("m1", "G-spec"), "packet-1.md"), "utf8")).toMatch(new RegExp(`^cap: ${expected}$`, "m"));
  });
});
