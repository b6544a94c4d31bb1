// The --help capability checks against the pinned CLIs' real help (clients/node_modules/.bin).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { claudeEffortRefusal } from "../../src/adapters/claude.js";
import { advertisedValues, advertises } from "../../src/adapters/help.js";
import { REPO } from "../helpers/bus.js";

const CLIENTS = path.join(REPO, "clients", "node_modules", ".bin");

describe("--help capability checks on the pinned CLIs", () => {
  it(`the pinned claude CLI lists its --effort levels; \
an unknown level is refused before running (it would silently use its default)`, () => {
    const help = spawnSync(path.join(CLIENTS, "claude"), ["--help"], { encoding: "utf8", timeout: 30_000 }).stdout;
    expect(advertisedValues(help, "--effort")).toEqual(["low", "medium", "high", "xhigh", "max"]);
    expect(claudeEffortRefusal(help, "xhigh")).toBeNull();
    expect(claudeEffortRefusal(help, "ultra")).toBe("claude --effort takes low, medium, high, xhigh, max, not ultra");
    expect(claudeEffortRefusal("Options:\n  --model <model>  Model\n", "high")).toBe("this claude CLI has no --effort flag");
  });

  it("the pinned codex CLI takes -c overrides (model_reasoning_effort goes through one)", () => {
    const help = spawnSync(path.join(CLIENTS, "codex"), ["exec", "--help"], { encoding: "utf8", timeout: 30_000 }).stdout;
    expect(advertises(help, "--config")).toBe(true);
  });
});
