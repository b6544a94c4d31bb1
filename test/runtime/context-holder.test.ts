// A worker plans with the settings as the file holds them now: an edit is taken at the next gate it handles, not at
// the next reconcile pass (a request made just after a provider was added must not be planned without it).
import { mkdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Layout } from "../../src/bus/layout.js";
import { ContextHolder } from "../../src/runtime/worker-options.js";
import { tempRoot } from "../helpers/tmp.js";

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
});
