// The review console as a user starts it: `guild-bus ui` in a child process, its URL read from what it prints once.
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach } from "vitest";
import { BIN, stopChild } from "./bus.js";
import { scaled } from "./machine.js";

const started = new Set<ChildProcess>();

afterEach(async () => {
  await Promise.all([...started].map((c) => stopChild(c)));
  started.clear();
});

export interface Console {
  /** The URL printed at start, token included. */
  url: string;
  /** http://127.0.0.1:<port>: what the page's own requests carry as Origin */
  origin: string;
  /** The origin and the console's random base path: every page's address starts with it. */
  home: string;
  token: string;
  child: ChildProcess;
  output: () => string;
}

export async function startUi(root: string, extra: string[] = []): Promise<Console> {
  const port = extra.includes("--port") ? [] : ["--port", "0"];
  const child = spawn(process.execPath, [BIN, "ui", "--root", root, ...port, ...extra], { stdio: ["ignore", "pipe", "pipe"] });
  started.add(child);
  let out = "";
  child.stdout!.on("data", (b: Buffer) => (out += b));
  child.stderr!.on("data", (b: Buffer) => (out += b));
  const deadline = Date.now() + scaled(20_000);
  for (;;) {
    const m = /(http:\/\/127\.0\.0\.1:\d+)(\/[\w-]+)\/\?token=([\w-]+)/.exec(out);
    if (m) return { url: m[0], origin: m[1]!, home: m[1]! + m[2]!, token: m[3]!, child, output: () => out };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`guild-bus ui did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
