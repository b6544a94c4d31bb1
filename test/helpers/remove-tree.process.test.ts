// The test trees' removal (removeTree): a process still writing into a tree as it ends must not fail the test after it.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { until } from "./clients.js";
import { removeTree } from "./tmp.js";

it("removes a tree another process writes into while it is removed (rmSync's own retries failed with ENOTEMPTY)", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "guild-bus-remove-"));
  const cache = path.join(dir, "cache");
  mkdirSync(cache);
  // as workers flushing their compile cache at exit: new files for a moment, then none
  const script = `const fs = require("fs"); const end = Date.now() + 1500; let i = 0;
    while (Date.now() < end) { try { fs.writeFileSync(${JSON.stringify(cache)} + "/w" + i++, "x"); } catch {} }`;
  const writer = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
  const ended = new Promise((resolve) => writer.once("exit", resolve));
  await until("the writer's first files", () => readdirSync(cache).length > 10);
  await removeTree(dir);
  expect(existsSync(dir)).toBe(false);
  await ended;
});
