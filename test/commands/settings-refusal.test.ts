// Every command a person runs refuses settings with problems, whichever face it came through (CLI, MCP tool, console
// action: they share these functions): on defaults a request would go to another reviewer than the settings name.
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { resubmit } from "../../src/commands/author.js";
import { requestReview } from "../../src/commands/review.js";
import { BIN } from "../helpers/bus.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("settings with problems: a person's command refuses, a worker and the stop hook carry on", () => {
  it("request and author commands refuse and write nothing; the stop hook still answers with exit 0", async () => {
    const { layout } = await gateWithPacket("r1");
    const gateFiles = () => readdirSync(layout.gateDir("r1", GATE)).sort();
    const before = gateFiles();
    for (const bad of ['{ "providers": {', '{ "cap": "many" }']) {
      writeFileSync(layout.settings, bad);
      const requested = await requestReview(layout, { artifact: "docs/spec.md", gate: "G-plan", author: "claude", reviewer: "auto" });
      expect(requested, bad).toEqual({ ok: false, error: expect.stringMatching(/settings\.json: .*nothing was requested/) });
      expect(await resubmit(loadContext(layout), "r1", GATE), bad).toEqual({
        ok: false,
        error: expect.stringMatching(/settings\.json: .*nothing was written — fix the settings first/),
      });
      const hook = spawnSync(process.execPath, [BIN, "hook", "stop", "--root", layout.root], { encoding: "utf8" });
      expect(hook.status, hook.stderr).toBe(0);
    }
    expect(readdirSync(layout.runs)).toEqual(["r1"]);
    expect(gateFiles()).toEqual(before);
  });
});
