// The published package as a user gets it: packed, installed into a scratch project without dev dependencies
// (dependencies come from the npm registry through the npm cache), then run with npx from there.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
      expect(shipped).toEqual(
        expect.arrayContaining([
          "LICENSE",
          "bin/guild-bus.js",
          "bin/package.json", // the bin is CommonJS in a package of ES modules
          "dist/cli/main.cjs",
          "dist/src/index.js",
          "dist/src/index.d.ts",
        ]),
      );
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
        'import { classifyFamily, gateStatus, requestReview, verifyGatePass } from "guild-bus";',
        `const root = ${JSON.stringify(demoRoot)};`,
        'const status = gateStatus(root, "demo-run", "G-spec");',
        "const failed = verifyGatePass({ resultRaw: null, artifactBytes: new Uint8Array() });",
        "const requested = await requestReview(root, {",
        '  artifact: "docs/export-spec.md", gate: "G-plan", author: "claude", runId: "lib-run",',
        "});",
        "console.log(JSON.stringify({ family: classifyFamily('gpt-5.2'), status: status.status, pass: failed.pass, requested }));",
      ].join("\n");
      writeFileSync(path.join(project, "use-the-library.js"), script);
      const lib = spawnSync(process.execPath, ["use-the-library.js"], { cwd: project, encoding: "utf8", timeout: scaled(60_000) });
      expect(lib.status, lib.stderr).toBe(0);
      expect(JSON.parse(lib.stdout)).toEqual({
        family: "openai",
        status: "satisfied",
        pass: false,
        requested: {
          ok: true,
          runId: "lib-run",
          gate: "G-plan",
          warnings: [],
          idle: "no broker worker is running for this project: nothing moves until `guild-bus up` runs",
        },
      });
      expect(readdirSync(path.join(demoRoot, ".guild", "runs", "lib-run", "review", "G-plan"))).toContain("request.json");

      // the declarations are the types a TypeScript user compiles against: a right call compiles, a wrong one does not
      const tsc = (body: string) => {
        writeFileSync(path.join(project, "use.ts"), body);
        writeFileSync(
          path.join(project, "tsconfig.json"),
          JSON.stringify({
            compilerOptions: { module: "nodenext", strict: true, noEmit: true, skipLibCheck: true, types: [] },
            files: ["use.ts"],
          }),
        );
        return spawnSync(process.execPath, [path.join(REPO, "node_modules", "typescript", "bin", "tsc"), "-p", project], {
          encoding: "utf8",
          timeout: scaled(120_000),
        });
      };
      const right = tsc('import { classifyFamily, type Family } from "guild-bus";\nexport const f: Family = classifyFamily("gpt-5");\n');
      expect(right.status, right.stdout).toBe(0);
      const wrong = tsc('import { verifyGatePass } from "guild-bus";\nexport const r = verifyGatePass({ resultRaw: 1 });\n');
      expect(wrong.stdout).toMatch(/use\.ts\(2,\d+\): error TS2\d+/);
      const types = readFileSync(path.join(project, "node_modules", "guild-bus", "dist", "src", "index.d.ts"), "utf8");
      for (const fn of ["requestReview", "gateStatus", "verifyGatePass", "classifyFamily"])
        expect(types).toContain(`export declare function ${fn}(`);
    },
  );

  it(
    "a source checkout without dist/ builds it on its first run (no install script needed); elsewhere it says what is missing",
    {
      timeout: scaled(300_000),
    },
    () => {
      const checkout = tempRoot("guild-bus-checkout-");
      for (const part of ["bin", "scripts", "src", "tsconfig.json", "package.json"])
        cpSync(path.join(REPO, part), path.join(checkout, part), { recursive: true });
      symlinkSync(path.join(REPO, "node_modules"), path.join(checkout, "node_modules"));
      const run = () =>
        spawnSync(process.execPath, [path.join(checkout, "bin", "guild-bus.js"), "family", "gpt-5"], {
          encoding: "utf8",
          timeout: scaled(240_000),
        });
      const first = run();
      expect(first.status, first.stderr).toBe(0);
      expect(first.stderr).toBe("guild-bus: building dist/ from the source checkout (first run) …\n");
      expect(first.stdout).toBe("gpt-5\topenai\n");
      expect(existsSync(path.join(checkout, "dist", "cli", "main.cjs"))).toBe(true); // bundled as `npm run build` does
      expect(run()).toMatchObject({ status: 0, stderr: "", stdout: "gpt-5\topenai\n" });

      const bare = tempRoot("guild-bus-bare-");
      cpSync(path.join(REPO, "bin"), path.join(bare, "bin"), { recursive: true });
      const r = spawnSync(process.execPath, [path.join(bare, "bin", "guild-bus.js"), "family", "gpt-5"], {
        encoding: "utf8",
        timeout: scaled(60_000),
      });
      expect(r.status).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe("guild-bus: dist/ is missing and cannot be built here; in a source checkout run `npm ci && npm run build`\n");
    },
  );
});
