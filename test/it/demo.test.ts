// `guild-bus demo`, a new user's first run: it never tells them to start what it starts itself, and shows the files it
// names before it removes them.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BIN } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";

function demo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "demo"], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("guild-bus demo", () => {
  it(
    "waits for its own workers, never saying to run `guild-bus up`, and lists the gate's files",
    { timeout: scaled(180_000) },
    async () => {
      const r = await demo();
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/no \w+ worker is running|run: guild-bus up/);
      expect(r.stdout).toMatch(/^packet-1\.md$/m);
      expect(r.stdout).toMatch(/^outcome\.json$/m);
      expect(r.stderr).toContain("`guild-bus demo --keep` keeps it");
    },
  );
});
