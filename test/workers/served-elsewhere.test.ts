// The README's team layout (SPEC §13, §15): the broker's machine holds no key for reviewer hx, a reviewer worker on
// machB does and says so in its presence file. The broker selects hx; a keyless http worker here leaves the packet to
// machB's, and claims it as before once no live worker elsewhere says it runs hx.
import { mkdirSync, readFileSync, existsSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { requestReview } from "../../src/commands/review.js";
import { brokerProviders, stepGate } from "../../src/workers/broker.js";
import { reviewGate, servedElsewhere } from "../../src/workers/reviewer.js";
import { advertText } from "../../src/core/advertised.js";
import { peersDir } from "../../src/runtime/peers.js";
import { detected } from "../helpers/detected.js";
import type { ReviewerAdapter } from "../../src/adapters/types.js";
import { tempRoot } from "../helpers/tmp.js";

const GATE = "G-spec";
const RUN = "run-elsewhere";

/** What this machine's detection says: hx has no key here. */
const detectHere = async () => [
  detected({
    id: "hx",
    adapter: "http",
    available: false,
    note: "api key variable HX_KEY not set",
    why: ["api key variable HX_KEY not set"],
  }),
];

async function team() {
  const root = tempRoot("guild-bus-elsewhere-");
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  writeFileSync(
    path.join(root, ".guild", "settings.json"),
    JSON.stringify({ providers: { hx: { adapter: "http", model: "gpt-5", base_url: "http://127.0.0.1:9/v1", api_key_env: "HX_KEY" } } }),
  );
  writeFileSync(path.join(root, "spec.md"), "# Spec\n");
  const layout = new Layout(root);
  // machB's http worker, alive (re-dated now), says it runs hx
  const machB = path.join(peersDir(layout, "http"), "machB-4026531836-77");
  mkdirSync(path.dirname(machB), { recursive: true });
  writeFileSync(machB, advertText("machB", ["hx"]));
  expect(await requestReview(layout, { artifact: "spec.md", gate: GATE, author: "claude", runId: RUN })).toMatchObject({ ok: true });
  return { layout, machB, file: (name: string) => layout.gateFile(RUN, GATE, name) };
}

describe("a reviewer that runs only on another machine", () => {
  it("is selected by the broker, strong, when a live reviewer worker there advertises it", async () => {
    const { layout, file } = await team();
    const providers = brokerProviders(layout, { get: detectHere });
    await stepGate(loadContext(layout), RUN, GATE, { providers: () => providers(loadContext(layout).settings) });
    const packet = readFileSync(file("packet-1.md"), "utf8");
    expect(packet).toMatch(/^reviewer_provider: "?hx"?$/m);
    expect(packet).toMatch(/^selection_status: "?selected"?$/m);
  });

  it("is left by a worker that cannot run it here to the live one that can; claimed as before once that one is gone", async () => {
    const { layout, machB, file } = await team();
    const providers = brokerProviders(layout, { get: detectHere });
    await stepGate(loadContext(layout), RUN, GATE, { providers: () => providers(loadContext(layout).settings) });
    let paid = 0;
    const http: ReviewerAdapter = {
      dispatch: async () => {
        paid++;
        return { kind: "not-run", reason: "provider hx: environment variable HX_KEY (api_key_env) is not set" } as never;
      },
    };
    const logs: string[] = [];
    const { elsewhere } = servedElsewhere(layout, "http", undefined, detectHere);
    const left = new Set<string>(); // said once, not at every pass
    const pass = () =>
      reviewGate(
        loadContext(layout),
        RUN,
        GATE,
        { serves: ["http"], adapters: { http }, log: (m) => logs.push(m), elsewhere, left },
        new AbortController().signal,
      );
    await pass();
    await pass();
    expect(paid).toBe(0);
    expect(existsSync(file("attempt-1.json"))).toBe(false);
    expect(existsSync(file("failure-1.json"))).toBe(false);
    expect(logs).toEqual([`${RUN}/${GATE} round 1: provider hx cannot run on this machine; left to the http worker on machB`]);
    // machB's worker stopped saying it is alive: nothing is stranded, this worker claims the round as before
    const old = (Date.now() - 10 * 60_000) / 1000;
    utimesSync(machB, old, old);
    await pass();
    expect(existsSync(file("attempt-1.json"))).toBe(true);
    expect(paid).toBe(1);
  });
});

describe("what a reviewer worker advertises", () => {
  it("is found without running any binary: a CLI on disk with a key counts, and is never started to say so", async () => {
    const root = tempRoot("guild-bus-advert-");
    mkdirSync(path.join(root, ".guild"), { recursive: true });
    const ran = path.join(root, "ran");
    const cli = path.join(root, "codex-standin");
    // a stand-in that leaves a mark whenever anything runs it (--version included)
    writeFileSync(cli, `#!/bin/sh\necho "$@" >> ${JSON.stringify(ran)}\necho codex 1.0\n`, { mode: 0o755 });
    const settings = { providers: { cx: { adapter: "codex", binary: cli, model: "gpt-5", api_key_env: "CX_ADVERT_KEY" } } };
    writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify(settings));
    process.env.CX_ADVERT_KEY = "k";
    try {
      const { here } = servedElsewhere(new Layout(root), "codex");
      expect([...(await here.ids(loadContext(new Layout(root)).settings))]).toEqual(["cx"]);
      expect(existsSync(ran)).toBe(false);
    } finally {
      delete process.env.CX_ADVERT_KEY;
    }
  });
});
