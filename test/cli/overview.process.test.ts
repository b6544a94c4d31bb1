// The top-level --help is printed from the summary table without loading any command: it must read exactly as the
// help of the program with every command registered, so the table cannot drift from the commands. It runs the built
// dist/ (the program reads its version from the package beside it).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type * as Main from "../../src/cli/main.js";
import type * as Overview from "../../src/cli/overview.js";
import { REPO } from "../helpers/bus.js";

const built = async <T>(file: string) => (await import(pathToFileURL(path.join(REPO, "dist", "src", "cli", file)).href)) as T;

describe("the command overview", () => {
  it("lists every command, with its usage and description, as the registered commands do", async () => {
    const { addCommands, addOverview, baseProgram, COMMANDS } = await built<typeof Main>("main.js");
    const { COMMAND_SUMMARIES } = await built<typeof Overview>("overview.js");
    const full = baseProgram();
    await addCommands(full, Object.keys(COMMANDS));
    const overview = baseProgram();
    addOverview(overview);
    expect(Object.keys(COMMAND_SUMMARIES).sort()).toEqual(Object.keys(COMMANDS).sort());
    expect(overview.helpInformation()).toBe(full.helpInformation());
    expect(overview.helpInformation()).toMatch(/^ {2}decide \[options\] <run> <gate> <choice> \[n\] +answer an escalation/m);
  });
});
