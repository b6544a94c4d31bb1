// A worker plans with the settings as the file holds them now: an edit is taken at the next gate it handles, not at
// the next reconcile pass (a request made just after a provider was added must not be planned without it).
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { ContextHolder, SETTINGS_GONE_GRACE_MS, workerLogger } from "../../src/runtime/worker-options.js";
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

describe("a settings file that goes missing", () => {
  const providers = { "gpt-rev": { adapter: "command", model: "gpt-5", argv: ["x"] } };

  it("is an editor's rename-save for a moment: the settings read before stand until it is back, or the grace ends", () => {
    const layout = new Layout(tempRoot());
    mkdirSync(layout.guild, { recursive: true });
    writeFileSync(layout.settings, JSON.stringify({ reviewer: "gpt-rev", providers, restart_cap: 3 }));
    const logged: string[] = [];
    const holder = new ContextHolder(layout, (m) => logged.push(m));
    const t0 = Date.now();
    renameSync(layout.settings, `${layout.settings}~`); // the editor moves the old file away...
    expect(holder.reload(t0).settings).toMatchObject({ reviewer: "gpt-rev", restart_cap: 3 });
    expect(holder.forWork().settings.reviewer).toBe("gpt-rev");
    expect(logged.at(-1)).toMatch(/settings\.json is missing .*: keeping the settings read before$/);
    expect(holder.reload(t0 + SETTINGS_GONE_GRACE_MS - 1).settings.reviewer).toBe("gpt-rev");
    // ...and writes the new one: taken at once, and a later disappearance has its own grace
    writeFileSync(layout.settings, JSON.stringify({ reviewer: "gpt-rev", providers, restart_cap: 4 }));
    expect(holder.forWork().settings.restart_cap).toBe(4);
    rmSync(layout.settings);
    const t1 = t0 + 2 * SETTINGS_GONE_GRACE_MS;
    expect(holder.reload(t1).settings.restart_cap).toBe(4);
    // deleted for good: past the grace, measured from when this worker first saw it missing, the defaults
    expect(holder.reload(t1 + SETTINGS_GONE_GRACE_MS).settings).toEqual({});
    expect(logged.at(-1)).toMatch(/settings\.json has been missing for 10 s: taking the defaults$/);
    expect(holder.forWork().settings).toEqual({});
  });

  it("a worker that never saw a file takes the defaults at once", () => {
    const layout = new Layout(tempRoot());
    mkdirSync(layout.guild, { recursive: true });
    const holder = new ContextHolder(layout, () => undefined);
    expect(holder.forWork().settings).toEqual({});
    expect(holder.reload(Date.now() + 1).settings).toEqual({});
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
