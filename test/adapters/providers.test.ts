import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { authorIdentity, configuredProviders, type Provider, selectReviewer } from "../../src/core/selection.js";
import { resolvePolicy } from "../../src/core/policy.js";
import { Layout } from "../../src/bus/layout.js";
import {
  detectProviders,
  detectWithoutRunning,
  PROBE_FRESH_MS,
  PROBE_TIMEOUTS_MS,
  type Probe,
  type VersionProbe,
} from "../../src/adapters/probe.js";
import type { Settings } from "../../src/spec/schemas.js";
import { tempRoot } from "../helpers/tmp.js";

/**
 * A fake probe: `versions` per binary name is a version, null (--version fails) or the answers of successive probes;
 * by default every binary answers "<name> 1.0".
 */
function probe(
  over: Partial<Probe> & { onPath?: string[]; versions?: Record<string, string | null | VersionProbe[]>; files?: string[] } = {},
): Probe & { versionCalls: string[] } {
  const calls: string[] = [];
  return {
    which: over.which ?? ((b) => ((over.onPath ?? []).includes(b) ? `/usr/bin/${b}` : null)),
    version: async (b, timeoutMs) => {
      const name = path.basename(b);
      const nth = calls.filter((c) => c.startsWith(`${b} `)).length;
      calls.push(`${b} ${timeoutMs}`);
      const v = over.versions && name in over.versions ? over.versions[name]! : `${name} 1.0`;
      if (Array.isArray(v)) return v[Math.min(nth, v.length - 1)]!;
      return v === null ? { kind: "failed", reason: "exit 1" } : { kind: "ok", version: v };
    },
    stamp: over.stamp ?? ((b) => `${b} 100 1700000000000 42`),
    env: over.env ?? {},
    fileExists: (f) => (over.files ?? []).includes(f),
    home: "/home/u",
    versionCalls: calls,
  };
}

describe("provider detection", () => {
  const layout = () => new Layout(tempRoot());

  it("reads each configured provider as selection does: `providers` never shows another family or selectability", async () => {
    const settings: Settings = {
      family_aliases: { "mycorp-large": "google" },
      providers: {
        cx: { adapter: "codex", model: "gpt-5", input: "stdin", selectable: true },
        own: { adapter: "http", model: "mycorp-large", input: "stdin", selectable: true, base_url: "http://127.0.0.1:1", api_key_env: "K" },
        odd: { adapter: "command", model: "no-such-vendor", input: "stdin", selectable: false, argv: ["reviewer"] },
        cp: { adapter: "copilot", input: "stdin", selectable: true, copilot_profiles: { openai: "gpt-reviewer", google: "gem-reviewer" } },
        human: { adapter: "manual", input: "file", selectable: true },
      },
    };
    const shown = await detectProviders(settings, layout(), probe());
    const fields = ({ id, adapter, model, family, selectable, profileFamilies }: Provider) => ({
      id,
      adapter,
      model,
      family,
      selectable,
      profileFamilies,
    });
    expect(shown.filter((p) => p.source !== "path").map(fields)).toEqual(configuredProviders(settings).map(fields));
  });

  it("needs the binary, a working --version and an auth signal; never reads secrets", async () => {
    const settings: Settings = { providers: { cx: { adapter: "codex", model: "gpt-5", input: "stdin", selectable: true } } };
    const none = await detectProviders(settings, layout(), probe());
    expect(none.find((p) => p.id === "cx")).toMatchObject({ available: false, why: ["codex not found on PATH"] });
    const noAuth = await detectProviders(settings, layout(), probe({ onPath: ["codex"] }));
    expect(noAuth.find((p) => p.id === "cx")).toMatchObject({ available: false });
    const broken = await detectProviders(
      settings,
      layout(),
      probe({ onPath: ["codex"], versions: { codex: null }, env: { CODEX_API_KEY: "sk-x" } }),
    );
    expect(broken.find((p) => p.id === "cx")!.why[0]).toMatch(/--version failed/);
    const stored = await detectProviders(settings, layout(), probe({ onPath: ["codex"], files: ["/home/u/.codex/auth.json"] }));
    expect(stored.find((p) => p.id === "cx")).toMatchObject({ available: true, auth: "stored auth ~/.codex/auth.json", family: "openai" });
    const viaEnv = await detectProviders(settings, layout(), probe({ onPath: ["codex"], env: { CODEX_API_KEY: "sk-secret-value" } }));
    expect(JSON.stringify(viaEnv)).not.toContain("sk-secret-value");
    expect(viaEnv.find((p) => p.id === "cx")!.auth).toBe("env CODEX_API_KEY set");
  });

  it("looks a relative binary up where the adapter runs it: under the project root, wherever the command started", async () => {
    const l = layout();
    const settings: Settings = {
      providers: {
        cx: { adapter: "codex", binary: "./tools/codex", input: "stdin", selectable: true },
        cmd: { adapter: "command", argv: ["bin/review", "--json"], input: "stdin", selectable: true },
      },
    };
    const asked: string[] = [];
    const found = await detectProviders(settings, l, probe({ which: (b) => (asked.push(b), b), env: { CODEX_API_KEY: "k" } }));
    expect(asked.filter((b) => b.includes("/")).sort()).toEqual([path.join(l.root, "bin/review"), path.join(l.root, "tools/codex")]);
    expect(found.find((p) => p.id === "cx")!.binary).toBe(path.join(l.root, "tools/codex"));
  });

  it("a directory where a command provider's program should be is not its program: not found, never dispatched to", async () => {
    const l = layout();
    mkdirSync(path.join(l.root, "bin", "review"), { recursive: true });
    const settings: Settings = {
      providers: { cmd: { adapter: "command", model: "qwen3", argv: ["bin/review"], input: "stdin", selectable: true } },
    };
    expect((await detectWithoutRunning(settings, l)).find((p) => p.id === "cmd")).toMatchObject({ available: false });
  });

  it("finds unconfigured CLIs on PATH with their host family, and keeps capability declarations detect-only", async () => {
    const l = layout();
    mkdirSync(path.join(l.hosts, "pi"), { recursive: true });
    writeFileSync(
      path.join(l.hosts, "pi", "capability.json"),
      JSON.stringify({ schema_version: "host_capability.v1", provider: "pi", model: "kimi-k2", family: "openai" }),
    );
    const found = await detectProviders({}, l, probe({ onPath: ["claude"], env: { ANTHROPIC_API_KEY: "k" } }));
    expect(found.find((p) => p.id === "claude")).toMatchObject({ source: "path", family: "anthropic", available: true, selectable: true });
    // the declared family is informational: the family comes from the model string
    expect(found.find((p) => p.id === "pi")).toMatchObject({
      source: "capability",
      family: "moonshot",
      available: false,
      selectable: false,
    });
    expect(found.find((p) => p.id === "manual")).toMatchObject({ available: true, selectable: false });
  });

  it("an http provider needs a base URL and its key variable; a command provider needs its program", async () => {
    const settings: Settings = {
      providers: {
        api: {
          adapter: "http",
          model: "deepseek-chat",
          base_url: "http://127.0.0.1:1/v1",
          api_key_env: "DS_KEY",
          input: "stdin",
          selectable: true,
        },
        cmd: { adapter: "command", model: "qwen3", argv: ["my-reviewer"], input: "stdin", selectable: true },
      },
    };
    const off = await detectProviders(settings, layout(), probe());
    expect(off.filter((p) => p.id === "api" || p.id === "cmd").map((p) => p.available)).toEqual([false, false]);
    const on = await detectProviders(settings, layout(), probe({ onPath: ["my-reviewer"], env: { DS_KEY: "x" } }));
    expect(on.filter((p) => p.id === "api" || p.id === "cmd").map((p) => p.available)).toEqual([true, true]);
  });

  it("feeds selection: an unavailable CLI is never selected, the next different-family one is", async () => {
    const settings: Settings = {
      providers: {
        cx: { adapter: "codex", model: "gpt-5", input: "stdin", selectable: true },
        gm: { adapter: "gemini", model: "gemini-2.5-pro", input: "stdin", selectable: true },
      },
    };
    const found = await detectProviders(settings, layout(), probe({ onPath: ["gemini", "codex"], env: { GEMINI_API_KEY: "g" } }));
    const request = { author_host: "claude", reviewer: "auto" };
    const sel = selectReviewer(
      resolvePolicy({ ...request } as never, settings),
      request,
      authorIdentity(request, settings),
      found,
      settings,
    );
    expect(sel).toMatchObject({ status: "selected", independence: "strong", provider: { id: "gm" } });
  });
});

describe("probes run at once", () => {
  it("every CLI's --version is probed concurrently, and a binary two providers share is probed once", async () => {
    let inFlight = 0;
    let most = 0;
    const calls: string[] = [];
    const concurrent: Probe = {
      ...probe({ onPath: ["codex", "claude", "gemini"] }),
      version: async (binary) => {
        calls.push(binary);
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return { kind: "ok", version: `${path.basename(binary)} 1.0` };
      },
    };
    const settings: Settings = {
      providers: {
        a: { adapter: "codex", model: "gpt-5", input: "stdin", selectable: true },
        b: { adapter: "codex", model: "gpt-5-mini", input: "stdin", selectable: true },
      },
    };
    const found = await detectProviders(settings, new Layout(tempRoot()), concurrent);
    expect(found.filter((p) => p.version).map((p) => [p.id, p.version])).toEqual([
      ["a", "codex 1.0"],
      ["b", "codex 1.0"],
      ["claude", "claude 1.0"],
      ["gemini", "gemini 1.0"],
    ]);
    expect(calls.sort()).toEqual(["/usr/bin/claude", "/usr/bin/codex", "/usr/bin/gemini"]);
    expect(most).toBe(3);
  });
});

describe("--version probes on a slow machine: a pinned, installed reviewer is never dropped because a probe was slow", () => {
  const [FIRST, SECOND] = PROBE_TIMEOUTS_MS;
  const TIMEOUT: VersionProbe = { kind: "timeout" };
  const OK: VersionProbe = { kind: "ok", version: "codex-cli 0.171.0" };
  const settings: Settings = { reviewer: "cx", providers: { cx: { adapter: "codex", model: "gpt-5", input: "stdin", selectable: true } } };
  const env = { CODEX_API_KEY: "sk-test" };
  /** A project with .guild/, so positive probes are cached. */
  const project = () => {
    const l = new Layout(tempRoot());
    mkdirSync(l.guild);
    return l;
  };
  /** Time passes: every cached answer becomes older than PROBE_FRESH_MS. */
  const age = (l: Layout) => {
    const entries = JSON.parse(readFileSync(l.probeCache, "utf8")) as Record<string, { at: string }>;
    for (const e of Object.values(entries)) e.at = new Date(Date.now() - PROBE_FRESH_MS - 1000).toISOString();
    writeFileSync(l.probeCache, JSON.stringify(entries));
  };
  const cx = (found: Awaited<ReturnType<typeof detectProviders>>) => found.find((p) => p.id === "cx")!;
  const pinned = (found: Awaited<ReturnType<typeof detectProviders>>) => {
    const request = { author_host: "claude", reviewer: "cx" };
    return selectReviewer(resolvePolicy({ ...request } as never, settings), request, authorIdentity(request, settings), found, settings);
  };

  it("a planted cache nested past the JSON reader's depth is no cache: the next positive probe is saved over it", async () => {
    const l = project();
    writeFileSync(l.probeCache, `{"x":${"[".repeat(20_000)}${"]".repeat(20_000)}}`);
    await detectProviders(settings, l, probe({ onPath: ["codex"], env, versions: { codex: [OK] } }));
    expect(Object.values(JSON.parse(readFileSync(l.probeCache, "utf8")))).toEqual([
      expect.objectContaining({ version: "codex-cli 0.171.0" }),
    ]);
  });

  it("a first probe that times out is repeated with the long limit; its answer keeps the pin, and the reason says so", async () => {
    const p = probe({ onPath: ["codex"], env, versions: { codex: [TIMEOUT, OK] } });
    const found = await detectProviders(settings, project(), p);
    expect(p.versionCalls).toEqual([`/usr/bin/codex ${FIRST}`, `/usr/bin/codex ${SECOND}`]);
    expect(cx(found)).toMatchObject({ available: true, version: "codex-cli 0.171.0" });
    expect(cx(found).why[0]).toBe(`codex codex-cli 0.171.0 (answered a second probe: the first timed out after ${FIRST / 1000} s)`);
    expect(pinned(found)).toMatchObject({ status: "selected", independence: "strong", provider: { id: "cx" } });
  });

  it(`after a timeout, a positive probe cached for the same binary is trusted without probing again; \
a changed binary is probed again`, async () => {
    const l = project();
    await detectProviders(settings, l, probe({ onPath: ["codex"], env, versions: { codex: [OK] } }));
    age(l);
    const slow = probe({ onPath: ["codex"], env, versions: { codex: [TIMEOUT] } });
    const found = await detectProviders(settings, l, slow);
    expect(slow.versionCalls).toEqual([`/usr/bin/codex ${FIRST}`]);
    expect(cx(found)).toMatchObject({ available: true, version: "codex-cli 0.171.0" });
    expect(cx(found).why[0]).toMatch(/from an earlier probe of this same binary: --version timed out after 5 s/);
    const changed = probe({
      onPath: ["codex"],
      env,
      versions: { codex: [TIMEOUT, OK] },
      stamp: () => "/usr/bin/codex 200 1800000000000 43",
    });
    await detectProviders(settings, l, changed);
    expect(changed.versionCalls).toEqual([`/usr/bin/codex ${FIRST}`, `/usr/bin/codex ${SECOND}`]);
  });

  it("a positive answer given in the last minutes (by any process: it is on disk) is used without running --version; \
a changed binary is probed", async () => {
    const l = project();
    await detectProviders(settings, l, probe({ onPath: ["codex"], env, versions: { codex: [OK] } }));
    const next = probe({ onPath: ["codex"], env, versions: { codex: [TIMEOUT] } });
    const found = await detectProviders(settings, l, next);
    expect(next.versionCalls).toEqual([]);
    expect(cx(found)).toMatchObject({ available: true, version: "codex-cli 0.171.0" });
    expect(cx(found).why[0]).toBe(`codex codex-cli 0.171.0 (same binary answered a probe in the last ${PROBE_FRESH_MS / 1000} s)`);
    const changed = probe({ onPath: ["codex"], env, versions: { codex: [OK] }, stamp: () => "/usr/bin/codex 200 1800000000000 43" });
    await detectProviders(settings, l, changed);
    expect(changed.versionCalls).toEqual([`/usr/bin/codex ${FIRST}`]);
  });

  it("both probes time out: present on PATH with its version unknown, still available and still the pin — never 'not found'", async () => {
    const found = await detectProviders(settings, project(), probe({ onPath: ["codex"], env, versions: { codex: [TIMEOUT, TIMEOUT] } }));
    expect(cx(found)).toMatchObject({ available: true, version: null, binary: "/usr/bin/codex" });
    expect(cx(found).why[0]).toBe(
      `codex --version probe timed out (${FIRST / 1000} s, then ${SECOND / 1000} s): on PATH, version unknown; kept available`,
    );
    expect(pinned(found)).toMatchObject({ status: "selected", provider: { id: "cx" } });
    // Not on PATH is another thing, and says so.
    const absent = await detectProviders(settings, project(), probe({ env }));
    expect(cx(absent)).toMatchObject({ available: false, why: ["codex not found on PATH"] });
    expect(pinned(absent)).toMatchObject({
      status: "degraded-local",
      reason: expect.stringMatching(/^pinned reviewer cx unavailable: codex not found on PATH(;|$)/),
    });
  });

  it("the long second probe is announced once per binary before it starts (a person waiting hears why); not a quick one", async () => {
    const notes: string[] = [];
    const slow = probe({ onPath: ["codex", "gemini"], env, versions: { codex: [TIMEOUT, OK], gemini: [TIMEOUT, TIMEOUT] } });
    await detectProviders(settings, project(), slow, (n) => notes.push(n));
    const note = (b: string) =>
      `/usr/bin/${b} --version did not answer within ${FIRST / 1000} s; waiting up to ${SECOND / 1000} s more ` +
      "(a slow CLI is not taken for a missing one)";
    expect(notes.sort()).toEqual([note("codex"), note("gemini")]);
    const quick: string[] = [];
    await detectProviders(settings, project(), probe({ onPath: ["codex"], env, versions: { codex: [OK] } }), (n) => quick.push(n));
    expect(quick).toEqual([]);
  });

  it("a probe that answers with a failure makes it unavailable and forgets the cached answer", async () => {
    const l = project();
    await detectProviders(settings, l, probe({ onPath: ["codex"], env, versions: { codex: [OK] } }));
    age(l);
    const broken = await detectProviders(settings, l, probe({ onPath: ["codex"], env, versions: { codex: null } }));
    expect(cx(broken)).toMatchObject({ available: false, why: ["codex --version failed (exit 1)", "env CODEX_API_KEY set"] });
    const slow = probe({ onPath: ["codex"], env, versions: { codex: [TIMEOUT, OK] } });
    await detectProviders(settings, l, slow);
    expect(slow.versionCalls).toHaveLength(2); // nothing cached any more
  });
});
