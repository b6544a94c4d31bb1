// A reviewer child ends when it exits, not when every process it started has closed its output: a descendant that
// left the process group (setsid) cannot hold a finished answer hostage until the timeout, nor run on (a paid call)
// once the dispatch ended.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runChild } from "../../src/adapters/child.js";
import { until } from "../helpers/clients.js";
import { scaled } from "../helpers/machine.js";
import { tempRoot } from "../helpers/tmp.js";

/** Running, not a zombie (a killed orphan may wait for a reaper that never comes in a container). */
function running(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** A reviewer script that starts a descendant in a session of its own, waits for its pid, then runs `then`. */
function escaping(then: string): { script: string; escaped: () => Promise<number> } {
  const pidFile = path.join(tempRoot(), "escaped.pid");
  // the script stands in for a reviewer; the test itself may use a shell
  // it goes on only once the descendant has left its group: killed before, it would escape nothing
  const script = `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 300' & while [ ! -s "${pidFile}" ]; do sleep 0.05; done; ${then}`;
  const escaped = async () => {
    await until("the escaped process wrote its pid", () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
    return Number(readFileSync(pidFile, "utf8"));
  };
  return { script, escaped };
}

/** Kill what a failing test left behind. */
function reap(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone, as it should be
  }
}

describe("runChild", () => {
  it("takes the answer of a child that exited while a descendant in its own session holds the pipes, and kills that one", async () => {
    const { script, escaped } = escaping(`echo '{"verdict":"satisfied"}'`);
    try {
      const outcome = await runChild({ argv: ["sh", "-c", script], stdin: "", timeoutMs: 120_000, env: process.env });
      expect(outcome).toMatchObject({ kind: "exit", code: 0, stdout: '{"verdict":"satisfied"}\n' });
      expect(outcome.kind === "exit" && outcome.stderr).toContain("outlived it and held its output open; killed");
      const pid = await escaped();
      await until(`the escaped process ${pid} is gone`, () => !running(pid));
    } finally {
      reap(await escaped());
    }
  });

  it(
    "a timeout or an abort also kills what left the reviewer's group: a paid call does not run on",
    async () => {
      for (const end of ["timeout", "abort"] as const) {
        const { script, escaped } = escaping("sleep 300");
        const controller = new AbortController();
        try {
          const run = runChild({
            argv: ["sh", "-c", script],
            stdin: "",
            timeoutMs: end === "timeout" ? scaled(2_000) : 120_000,
            env: process.env,
            signal: controller.signal,
          });
          const pid = await escaped();
          if (end === "abort") controller.abort();
          expect((await run).kind).toBe(end === "timeout" ? "timeout" : "aborted");
          await until(`the escaped process ${pid} is gone after the ${end}`, () => !running(pid));
        } finally {
          reap(await escaped());
        }
      }
    },
    scaled(120_000),
  );

  it("keeps the answer of a child that exited before an abort was seen (its worker was stopped meanwhile)", async () => {
    const marker = path.join(tempRoot(), "done.pid");
    const child = `process.stdout.write("the answer"); require("node:fs").writeFileSync(${JSON.stringify(marker)}, String(process.pid));`;
    const controller = new AbortController();
    const running = runChild({
      argv: [process.execPath, "-e", child],
      stdin: "",
      timeoutMs: 120_000,
      env: process.env,
      signal: controller.signal,
    });
    // the loop stands still, as a stopped worker's does, until the child has exited (a zombie nobody reaped yet)
    const deadline = Date.now() + 120_000;
    const exited = () => {
      if (!existsSync(marker)) return false;
      const pid = readFileSync(marker, "utf8");
      return pid !== "" && / Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    };
    while (!exited()) if (Date.now() > deadline) throw new Error("the child never exited");
    controller.abort();
    expect(await running).toMatchObject({ kind: "exit", code: 0, stdout: "the answer" });
  });

  it("keeps the answer of a child that exited in time though its worker saw the timeout first (stopped meanwhile)", async () => {
    const marker = path.join(tempRoot(), "done.pid");
    const child = `process.stdout.write("the answer"); require("node:fs").writeFileSync(${JSON.stringify(marker)}, String(process.pid));`;
    const timeoutMs = 200;
    const started = Date.now();
    const running = runChild({ argv: [process.execPath, "-e", child], stdin: "", timeoutMs, env: process.env });
    // the loop stands still past the timeout, as a stopped worker's does, while the child answers and exits: the
    // overdue timer then runs before the exit is read
    const deadline = Date.now() + 120_000;
    const exited = () => {
      if (!existsSync(marker)) return false;
      const pid = readFileSync(marker, "utf8");
      return pid !== "" && / Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    };
    while (!exited() || Date.now() - started <= timeoutMs) if (Date.now() > deadline) throw new Error("the child never exited");
    expect(await running).toMatchObject({ kind: "exit", code: 0, stdout: "the answer" });
  });

  it("an abort while the child runs kills it and says so", async () => {
    const controller = new AbortController();
    const running = runChild({
      argv: [process.execPath, "-e", "setInterval(() => {}, 1000)"],
      stdin: "",
      timeoutMs: 120_000,
      env: process.env,
      signal: controller.signal,
    });
    controller.abort();
    expect(await running).toEqual({ kind: "aborted" });
  });
});
