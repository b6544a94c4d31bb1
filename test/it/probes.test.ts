// Integration: provider detection on a loaded machine. A stand-in `codex` on PATH whose --version takes longer than
// the first probe limit stays detected and pinned, through `guild-bus providers` and a real broker.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROBE_FRESH_MS, PROBE_TIMEOUTS_MS } from "../../src/adapters/probe.js";
import { makeProject } from "../helpers/bus.js";
import { withEnv } from "../helpers/cli-review.js";
import { tempRoot } from "../helpers/tmp.js";
import { scaled } from "../helpers/machine.js";

const FIRST_S = PROBE_TIMEOUTS_MS[0] / 1000;

describe("slow --version probes (integration)", () => {
  it(
    "a pinned codex whose --version outlasts the first limit is still detected and selected; `guild-bus providers` says what happened",
    async () => {
      const bin = tempRoot("guild-bus-standin-");
      const standin = path.join(bin, "codex");
      writeFileSync(
        standin,
        [
          "#!/usr/bin/env node",
          "// a stand-in codex that is slow to start, as on a loaded machine",
          'if (process.argv[2] !== "--version") process.exit(2);',
          `setTimeout(() => console.log("codex-cli 0.0.0-standin"), ${PROBE_TIMEOUTS_MS[0] + 2_500});`,
        ].join("\n"),
      );
      chmodSync(standin, 0o755);
      const env = { PATH: `${bin}${path.delimiter}${process.env.PATH}`, CODEX_API_KEY: "sk-standin-for-tests" };
      const p = makeProject();
      p.settings({ reviewer: "cx", providers: { cx: { adapter: "codex", model: "gpt-5" } } });

      const first = withEnv(env, () => p.cli(["providers"]));
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^✓ cx +adapter codex/m);
      expect(first.stdout).toContain(`codex codex-cli 0.0.0-standin (answered a second probe: the first timed out after ${FIRST_S} s)`);

      // The positive answer is cached on disk for this binary: the next process does not run --version again.
      const second = withEnv(env, () => p.cli(["providers"]));
      expect(second.stdout).toMatch(/^✓ cx +adapter codex/m);
      expect(second.stdout).toContain(
        `codex codex-cli 0.0.0-standin (same binary answered a probe in the last ${PROBE_FRESH_MS / 1000} s)`,
      );

      p.write("docs/spec.md", "# Spec\n\n- exports finish within 2 s\n");
      p.startWorker("broker", [], env);
      expect(withEnv(env, () => p.cli(["review", "docs/spec.md", "--gate", "G-spec", "--author", "claude", "--run-id", "r1"])).code).toBe(
        0,
      );
      await p.waitFor("r1", "G-spec", (f) => f.includes("packet-1.md"), "packet-1.md", scaled(60_000));
      const packet = readFileSync(path.join(p.gateDir("r1", "G-spec"), "packet-1.md"), "utf8");
      expect(packet).toMatch(/^reviewer_provider: cx$/m);
      expect(packet).toMatch(/^selection_status: selected$/m);
      expect(packet).toMatch(/^independence: strong$/m);
    },
    scaled(120_000),
  );

  it(
    "every installed CLI is probed at once: each stand-in's --version sees the other's start before it answers",
    async () => {
      const bin = tempRoot("guild-bus-standins-");
      const started = path.join(bin, "started.log");
      for (const name of ["codex", "claude"]) {
        const standin = path.join(bin, name);
        writeFileSync(
          standin,
          [
            "#!/usr/bin/env node",
            "// answers once both stand-ins are being probed, or says it was probed alone",
            'const fs = require("node:fs");',
            'if (process.argv[2] !== "--version") process.exit(2);',
            `fs.appendFileSync(${JSON.stringify(started)}, "${name}\\n");`,
            `const deadline = Date.now() + ${PROBE_TIMEOUTS_MS[0] + PROBE_TIMEOUTS_MS[1]};`,
            "setInterval(() => {",
            `  const both = fs.readFileSync(${JSON.stringify(started)}, "utf8").split("\\n").filter(Boolean);`,
            '  if (new Set(both).size === 2) console.log("' + name + '-cli 1.0 (probed alongside the other)");',
            '  else if (Date.now() > deadline) console.log("' + name + '-cli 1.0 (probed alone)");',
            "  else return;",
            "  process.exit(0);",
            "}, 50);",
          ].join("\n"),
        );
        chmodSync(standin, 0o755);
      }
      const env = { PATH: `${bin}${path.delimiter}${process.env.PATH}`, CODEX_API_KEY: "sk-standin", ANTHROPIC_API_KEY: "sk-standin" };
      const p = makeProject();
      const r = withEnv(env, () => p.cli(["providers", "--json"]));
      expect(r.code, r.stderr).toBe(0);
      const found = (JSON.parse(r.stdout) as { providers: Array<{ id: string; version: string | null }> }).providers;
      expect(found.filter((f) => f.id === "codex" || f.id === "claude").map((f) => [f.id, f.version])).toEqual([
        ["codex", "codex-cli 1.0 (probed alongside the other)"],
        ["claude", "claude-cli 1.0 (probed alongside the other)"],
      ]);
    },
    scaled(180_000),
  );
});
