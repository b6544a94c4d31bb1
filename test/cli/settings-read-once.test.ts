// A command reads .guild/settings.json once: main.ts checks the settings before the command runs, and the command acts
// on what was checked, never a second read (which cost every start its time, and could act on other settings than the
// ones checked). Nothing is kept from one command to the next: an edit between two is seen by the second.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { readTextBounded } from "../../src/bus/read-bounded.js";
import { main } from "../../src/cli/main.js";
import { print } from "../../src/cli/safe-output.js";
import { stepGate } from "../../src/workers/broker.js";
import { tempRoot } from "../helpers/tmp.js";

vi.mock("../../src/bus/read-bounded.js", async (original) => {
  const actual = await original<typeof import("../../src/bus/read-bounded.js")>();
  return { ...actual, readTextBounded: vi.fn(actual.readTextBounded) };
});
vi.mock("../../src/cli/safe-output.js", () => ({ print: vi.fn() }));

const RUN = "run-once";
let root: string;
let stdout: string;

beforeEach(async () => {
  root = tempRoot("guild-bus-settings-once-");
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ max_rounds: 3 }));
  writeFileSync(path.join(root, "docs", "plan.md"), "# Plan\n");
  // a gate that ended (review off: skipped), for the commands that read one
  expect(await run("review", "docs/plan.md", "--gate", "G-plan", "--author", "claude", "--run-id", RUN, "--review", "off")).toBe(0);
  await stepGate(loadContext(new Layout(root)), RUN, "G-plan");
});

afterEach(() => {
  process.exitCode = 0;
});

/** The command in this process, with --root; its exit code. */
async function run(...argv: string[]): Promise<number> {
  stdout = "";
  vi.mocked(print).mockImplementation((name, chunk) => void (name === "stdout" && (stdout += String(chunk))));
  vi.mocked(readTextBounded).mockClear();
  return main([...argv, "--root", root]);
}

/** How often the last command read settings.json. */
const settingsReads = () => vi.mocked(readTextBounded).mock.calls.filter(([file]) => file === new Layout(root).settings).length;

describe("every command a person runs", () => {
  it.each([
    [["status"], 0],
    [["status", "--json"], 0],
    [["check", "--require", "G-plan"], 2], // a skip is not a pass of a required gate
    [["gate", "status"], 0],
    [["providers", "--json"], 0],
    [["scrub", "<root>/docs/plan.md"], 0],
    [["review", "docs/plan.md", "--gate", "G-spec", "--author", "claude"], 0],
    [["wait", RUN, "G-plan"], 0],
    // refused by the command (the gate ended), on the settings it was given
    [["resubmit", RUN, "G-plan", "--round", "1"], 1],
    [["decide", RUN, "G-plan", "retry", "--round", "1"], 1],
    [["respond", RUN, "G-plan", "--round", "1", "--reviewer-model", "gpt-5", "--file", "<root>/docs/plan.md"], 1],
  ])("reads settings.json once: %j", async (argv, code) => {
    expect(await run(...argv.map((a) => a.replace("<root>", root)))).toBe(code);
    expect(settingsReads()).toBe(1);
  });

  it("sees a settings edit made since the command before", async () => {
    expect(await run("gate", "status")).toBe(0);
    expect(stdout).toMatch(/^stop gate: off/);
    writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ stop_gate: { enabled: true } }));
    expect(await run("gate", "status")).toBe(0);
    expect(stdout).toMatch(/^stop gate: on/);
    // ...and a command refuses settings with problems, as checked before it runs
    writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify({ max_rounds: "three" }));
    expect(await run("status")).toBe(1);
  });
});
