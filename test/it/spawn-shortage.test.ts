// A reviewer's child spawned while the worker is out of file descriptors (EMFILE): Node gives the child no pipes and
// an "error" event, which once ended the worker with every paid dispatch in flight. Nothing ran, so the spawn is
// tried again a moment later, and the review runs once descriptors are free.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";

// run in a process of its own: it takes every descriptor it can, and frees them 200 ms after the first spawn failed
const SCRIPT = `
import { closeSync, openSync } from "node:fs";
const { runChild } = await import(process.argv[2]);
const held = [];
try { for (;;) held.push(openSync("/dev/null", "r")); } catch (error) { if (error.code !== "EMFILE") throw error; }
setTimeout(() => { for (const fd of held) closeSync(fd); }, 200);
const argv = [process.execPath, "-e", "process.stdout.write('reviewed')"];
const outcome = await runChild({ argv, stdin: "", timeoutMs: 120000, env: process.env });
process.stdout.write(JSON.stringify(outcome));
`;

describe("a reviewer spawned out of file descriptors", () => {
  it("does not end the worker: the spawn is tried again and the child runs once descriptors are free", () => {
    const script = path.join(tempRoot("guild-bus-emfile-"), "shortage.mjs");
    writeFileSync(script, SCRIPT);
    const child = pathToFileURL(path.join(REPO, "dist", "src", "adapters", "child.js")).href;
    const run = spawnSync(process.execPath, [script, child], { encoding: "utf8", timeout: 120_000 });
    expect(run.stderr).not.toMatch(/Unhandled 'error' event/);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: "exit", code: 0, stdout: "reviewed" });
  });
});
