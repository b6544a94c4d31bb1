// A reviewer child ends when it exits, not when every process it started has closed its output: a descendant that
// left the process group (setsid) cannot hold a finished answer hostage until the timeout.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runChild } from "../../src/adapters/child.js";
import { until } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";

describe("runChild", () => {
  it("takes the answer of a child that exited while a descendant in its own session still holds the pipes", async () => {
    const pidFile = path.join(tempRoot(), "escaped.pid");
    // the script stands in for a reviewer; the test itself may use a shell
    // it answers only once the descendant has left its group: killed before, it would escape nothing
    const script =
      `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 300' & ` +
      `while [ ! -s "${pidFile}" ]; do sleep 0.05; done; echo '{"verdict":"satisfied"}'`;
    try {
      const outcome = await runChild({ argv: ["sh", "-c", script], stdin: "", timeoutMs: 120_000, env: process.env });
      expect(outcome).toMatchObject({ kind: "exit", code: 0, stdout: '{"verdict":"satisfied"}\n' });
      expect(outcome.kind === "exit" && outcome.stderr).toContain("outlived it and held its output open");
    } finally {
      await until("the escaped process wrote its pid", () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
      process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
    }
  });
});
