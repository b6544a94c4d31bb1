import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { selectReviewer, authorIdentity } from "../src/broker/selection.js";
import { resolvePolicy } from "../src/broker/policy.js";
import { Layout } from "../src/layout.js";
import { detectProviders, type Probe } from "../src/providers/detect.js";
import type { Settings } from "../src/spec/schemas.js";
import { tempRoot } from "./helpers/tmp.js";

function probe(over: Partial<Probe> & { onPath?: string[]; versions?: Record<string, string | null>; files?: string[] } = {}): Probe & { versionCalls: string[] } {
  const calls: string[] = [];
  return {
    which: (b) => (over.onPath ?? []).includes(b) ? `/usr/bin/${b}` : null,
    version: async (b) => {
      calls.push(b);
      const name = path.basename(b);
      return over.versions && name in over.versions ? over.versions[name]! : `${name} 1.0`;
    },
    env: over.env ?? {},
    fileExists: (f) => (over.files ?? []).includes(f),
    home: "/home/u",
    versionCalls: calls,
  };
}

describe("provider detection", () => {
  const layout = () => new Layout(tempRoot());

  it("needs the binary, a working --version and an auth signal; never reads secrets", async () => {
    const settings: Settings = { providers: { cx: { adapter: "codex", model: "gpt-5", input: "stdin", selectable: true } } };
    const none = await detectProviders(settings, layout(), probe());
    expect(none.find((p) => p.id === "cx")).toMatchObject({ available: false, why: ["codex not found on PATH"] });
    const noAuth = await detectProviders(settings, layout(), probe({ onPath: ["codex"] }));
    expect(noAuth.find((p) => p.id === "cx")).toMatchObject({ available: false });
    const broken = await detectProviders(settings, layout(), probe({ onPath: ["codex"], versions: { codex: null }, env: { OPENAI_API_KEY: "sk-x" } }));
    expect(broken.find((p) => p.id === "cx")!.why[0]).toMatch(/--version failed/);
    const stored = await detectProviders(settings, layout(), probe({ onPath: ["codex"], files: ["/home/u/.codex/auth.json"] }));
    expect(stored.find((p) => p.id === "cx")).toMatchObject({ available: true, auth: "stored auth ~/.codex/auth.json", family: "openai" });
    const viaEnv = await detectProviders(settings, layout(), probe({ onPath: ["codex"], env: { OPENAI_API_KEY: "sk-secret-value" } }));
    expect(JSON.stringify(viaEnv)).not.toContain("sk-secret-value");
    expect(viaEnv.find((p) => p.id === "cx")!.auth).toBe("env OPENAI_API_KEY set");
  });

  it("finds unconfigured CLIs on PATH with their host family, and keeps capability declarations detect-only", async () => {
    const l = layout();
    mkdirSync(path.join(l.hosts, "pi"), { recursive: true });
    writeFileSync(path.join(l.hosts, "pi", "capability.json"), JSON.stringify({ schema_version: "host_capability.v1", provider: "pi", model: "kimi-k2", family: "openai" }));
    const found = await detectProviders({}, l, probe({ onPath: ["claude"], env: { ANTHROPIC_API_KEY: "k" } }));
    expect(found.find((p) => p.id === "claude")).toMatchObject({ source: "path", family: "anthropic", available: true, selectable: true });
    // the declared family is informational: the family comes from the model string
    expect(found.find((p) => p.id === "pi")).toMatchObject({ source: "capability", family: "moonshot", available: false, selectable: false });
    expect(found.find((p) => p.id === "manual")).toMatchObject({ available: true, selectable: false });
  });

  it("an http provider needs a base URL and its key variable; a command provider needs its program", async () => {
    const settings: Settings = {
      providers: {
        api: { adapter: "http", model: "deepseek-chat", base_url: "http://127.0.0.1:1/v1", api_key_env: "DS_KEY", input: "stdin", selectable: true },
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
    const sel = selectReviewer(resolvePolicy({ ...request } as never, settings), request, authorIdentity(request, settings), found, settings);
    expect(sel).toMatchObject({ status: "selected", independence: "strong", provider: { id: "gm" } });
  });
});
