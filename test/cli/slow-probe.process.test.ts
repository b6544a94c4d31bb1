// A CLI whose --version hangs (a broken install waiting on an update check): `providers` and `init` wait up to 35 s
// for it (a slow CLI is never taken for a missing one), and said nothing all that time.
import { spawn } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, makeProject } from "../helpers/bus.js";
import { tempRoot } from "../helpers/tmp.js";
import { scaled } from "../helpers/machine.js";

const started: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGINT"); // as Ctrl-C: the CLI ends its probes with it
});

/** Runs the command until its stderr matches `pattern` (then kills it): the text, or null if it ended or timed out first. */
function stderrUntil(args: string[], env: NodeJS.ProcessEnv, pattern: RegExp, timeoutMs: number): Promise<string | null> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  started.push(child);
  let text = "";
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs);
    child.stderr!.on("data", (b: Buffer) => {
      text += b.toString();
      if (pattern.test(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.on("exit", () => {
      clearTimeout(timer);
      resolve(pattern.test(text) ? text : null);
    });
  });
}

describe("a reviewer CLI whose --version does not answer", () => {
  it.each([["providers"], ["init", "--host", "codex"]])("%s says what it waits for instead of waiting in silence", async (...args) => {
    const p = makeProject();
    const bin = tempRoot("guild-bus-bin-");
    writeFileSync(path.join(bin, "gemini"), "#!/bin/sh\nexec sleep 1000\n");
    chmodSync(path.join(bin, "gemini"), 0o755);
    const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, GEMINI_API_KEY: "present" };
    // the first probe has 5 s; the note comes as the second, long one starts
    const said = await stderrUntil([...args, "--root", p.root], env, /--version did not answer/, scaled(20_000));
    expect(said).toMatch(/^guild-bus: .*\/gemini --version did not answer within 5 s; waiting up to 30 s more/m);
  });
});
