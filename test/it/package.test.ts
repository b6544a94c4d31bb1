// The published package as a user gets it: packed, installed into a scratch project without dev dependencies
// (dependencies come from the npm registry through the npm cache), then run with npx from there.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { REPO } from "../helpers/bus.js";
import { scaled } from "../helpers/machine.js";
import { tempRoot } from "../helpers/tmp.js";

/** npm (and npx) are run as programs, never through a shell. */
function npm(program: "npm" | "npx", args: string[], cwd: string, timeoutMs = scaled(300_000)) {
  const r = spawnSync(program, args, {
    cwd,
    encoding: "utf8",
    timeout: timeoutMs,
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, all: `${r.stdout}\n${r.stderr}\n${r.error?.message ?? ""}` };
}

describe("the npm package", () => {
  it(
    "packs without dev tools or install scripts, installs with --omit=dev, and runs demo, verify-gate-pass and the typed library",
    { timeout: scaled(900_000) },
    () => {
      const out = tempRoot("guild-bus-pack-");
      // dist/ is what the test command just built; prepack would build the same again
      const pack = npm("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", out], REPO);
      expect(pack.code, pack.all).toBe(0);
      const { filename, files } = (JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>)[0]!;
      const shipped = files.map((f) => f.path);
      expect(shipped).toEqual(expect.arrayContaining(["LICENSE", "bin/guild-bus.js", "dist/src/index.js", "dist/src/index.d.ts"]));
      expect(shipped.filter((f) => /^(dist\/bench|bench|test|scripts)\/|spec\/generate\./.test(f))).toEqual([]);

      const project = tempRoot("guild-bus-user-");
      writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
      const install = npm("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", path.join(out, filename)], project);
      expect(install.code, install.all).toBe(0);
      const installed = JSON.parse(readFileSync(path.join(project, "node_modules", "guild-bus", "package.json"), "utf8")) as {
        scripts?: Record<string, string>;
      };
      expect(Object.keys(installed.scripts ?? {}).filter((s) => /^(pre|post)?install$|^prepare$/.test(s))).toEqual([]);

      const demo = npm("npx", ["--no-install", "guild-bus", "demo", "--keep"], project);
      expect(demo.code, demo.all).toBe(0);
      expect(demo.stdout).toMatch(/satisfied/);
      const demoRoot = /== kept: (.+)\n/.exec(demo.stderr)![1]!;
      onTestFinished(() => rmSync(demoRoot, { recursive: true, force: true }));
      const gateDir = path.join(demoRoot, ".guild", "runs", "demo-run", "review", "G-spec");
      const last = readdirSync(gateDir)
        .filter((f) => /^result-\d+\.json$/.test(f))
        .sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]))
        .at(-1)!;
      const verify = npm(
        "npx",
        [
          "--no-install",
          "guild-bus",
          "verify-gate-pass",
          "--result",
          path.join(gateDir, last),
          "--artifact",
          path.join(demoRoot, "docs", "export-spec.md"),
          "--scrub",
          "--root",
          demoRoot,
        ],
        project,
      );
      expect(verify.code, verify.all).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ pass: true });

      const script = [
        'import { classifyFamily, gateStatus, verifyGatePass } from "guild-bus";',
        `const status = gateStatus(${JSON.stringify(demoRoot)}, "demo-run", "G-spec");`,
        "const failed = verifyGatePass({ resultRaw: null, artifactBytes: new Uint8Array() });",
        'console.log(JSON.stringify({ family: classifyFamily("gpt-5.2"), status: status.status, pass: failed.pass }));',
      ].join("\n");
      writeFileSync(path.join(project, "use-the-library.js"), script);
      const lib = spawnSync(process.execPath, ["use-the-library.js"], { cwd: project, encoding: "utf8", timeout: scaled(60_000) });
      expect(lib.status, lib.stderr).toBe(0);
      expect(JSON.parse(lib.stdout)).toEqual({ family: "openai", status: "satisfied", pass: false });
      const types = readFileSync(path.join(project, "node_modules", "guild-bus", "dist", "src", "index.d.ts"), "utf8");
      for (const fn of ["requestReview", "gateStatus", "verifyGatePass", "classifyFamily"])
        expect(types).toContain(`export declare function ${fn}(`);
    },
  );
});
