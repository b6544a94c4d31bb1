// A worker plans with the settings as the file holds them now: an edit is taken at the next gate it handles, not at
// the next reconcile pass (a request made just after a provider was added must not be planned without it).
import { mkdirSync, writeFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { ContextHolder, workerLogger } from "../../src/runtime/worker-options.js";
import { tempRoot } from "../helpers/tmp.js";
import { ReadFault } from "../../src/core/read-fault.js";

describe("the settings a worker acts with", () => {
  it("are read again as soon as settings.json changed, without waiting for the next pass", () => {
    const layout = new Layout(tempRoot());
    mkdirSync(layout.guild, { recursive: true });
    writeFileSync(layout.settings, JSON.stringify({ restart_cap: 3 }));
    const holder = new ContextHolder(layout, () => undefined);
    expect(holder.forWork().settings.restart_cap).toBe(3);
    writeFileSync(
      layout.settings,
      JSON.stringify({ restart_cap: 4, providers: { h: { adapter: "http", model: "gpt-5", base_url: "http://127.0.0.1:1/v1" } } }),
    );
    const now = holder.forWork().settings;
    expect(now.restart_cap).toBe(4);
    expect(Object.keys(now.providers ?? {})).toEqual(["h"]);
  });

  it("a file being saved (empty), torn or with an invalid value keeps the settings read whole before; with none, a writer waits", () => {
    const layout = new Layout(tempRoot());
    mkdirSync(layout.guild, { recursive: true });
    const providers = { "gpt-rev": { adapter: "command", model: "gpt-5", argv: ["x"] } };
    writeFileSync(layout.settings, JSON.stringify({ reviewer: "gpt-rev", providers }));
    const logged: string[] = [];
    const holder = new ContextHolder(layout, (m) => logged.push(m));
    for (const saving of [
      "",
      '{"reviewer": "gpt-rev", "provid',
      JSON.stringify({ reviewer: "gpt-rev", providers: { "gpt-rev": { adapter: "x" } } }),
    ]) {
      writeFileSync(layout.settings, saving);
      expect(holder.forWork().settings).toMatchObject({ reviewer: "gpt-rev", providers: { "gpt-rev": { model: "gpt-5" } } });
      expect(logged.at(-1)).toMatch(/: keeping the settings read before$/);
    }
    // a worker that starts while the file cannot be taken whole decides nothing; the console still reads
    const fresh = new ContextHolder(layout, () => undefined);
    expect(() => fresh.forWork()).toThrow(ReadFault);
    expect(() => fresh.forWork()).toThrow(
      /settings\.json cannot be taken whole \(providers\.gpt-rev\.adapter: .*\): nothing is decided until it is fixed/,
    );
    expect(fresh.forWork(true).settings.providers).toEqual({});
    writeFileSync(layout.settings, JSON.stringify({ reviewer: "gpt-rev", providers, restart_cap: 2 }));
    expect(fresh.forWork().settings.restart_cap).toBe(2);
    expect(holder.forWork().settings.restart_cap).toBe(2);
  });
});

describe("a worker's log", () => {
  it("prints each message on one line: a reason quoting a file cannot print a line of its own", () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => written.push(String(chunk)) > 0);
    try {
      workerLogger("verifier")("r1/G-spec: rejected result-1.json: bad\n2026-01-01T00:00:00.000Z [verifier 1] r1/G-spec: passed");
    } finally {
      write.mockRestore();
    }
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(
      /\] r1\/G-spec: rejected result-1\.json: bad\\u000a2026-01-01T00:00:00\.000Z \[verifier 1\] r1\/G-spec: passed\n$/,
    );
  });
});
