// A gate only a person can move on (its directory a link the bus refuses): the answer must not tell the model that
// waiting is the step ("No outcome yet: call wait again" had it poll for ever); wait stops there with exit 2.
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { inMemoryMcp } from "../helpers/mcp-client.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("wait on a gate only a person can move", () => {
  it("says a person must act, not only to call wait again", async () => {
    const g = await gateWithPacket("linked");
    const elsewhere = path.join(g.root, "elsewhere");
    mkdirSync(elsewhere);
    const run = "planted";
    mkdirSync(path.join(g.layout.runs, run, "review"), { recursive: true });
    symlinkSync(elsewhere, path.join(g.layout.runs, run, "review", GATE));
    const mcp = await inMemoryMcp(g.layout);
    try {
      const r = await mcp.call("wait", { run_id: run, gate: GATE, timeout_seconds: 1 });
      const text = (r.content[0] as { text: string }).text;
      expect(text).toContain("waiting for a human");
      expect(text).toContain("A person must act first");
      expect(text).not.toContain("No outcome yet");
      // it stops with wait's exit code for it (status says the same), so the model does not poll a gate nothing moves
      expect(r.structuredContent).toMatchObject({ still_running: false, exit_code: 2 });
    } finally {
      await mcp.close();
    }
  });
});

describe("the status tool and a directory the bus refuses", () => {
  it("names it, as `status` does, rather than leaving the hidden gate out unsaid", async () => {
    const g = await gateWithPacket("listed");
    const elsewhere = path.join(g.root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, path.join(g.layout.runs, "planted"));
    const mcp = await inMemoryMcp(g.layout);
    try {
      const r = await mcp.call("status", {});
      const text = (r.content[0] as { text: string }).text;
      expect(text).toMatch(/ignored \(tell the user; it hides gates `check` fails\): \.guild\/runs\/planted — symlink refused/);
      expect(text).toContain("listed G-spec");
      expect((r.structuredContent as { ignored: unknown[] }).ignored).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  });
});
