// The CLI faces of init and the stop-gate switch: `init --dry-run` prints a diff and writes nothing; `init` writes,
// and says so; a second `init` has nothing to change; `gate on|off|status` report the switch they set.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, makeProject } from "../helpers/bus.js";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("guild-bus init and gate (CLI)", () => {
  it("dry-run shows the diff and writes nothing; init writes once; gate switches", () => {
    const p = makeProject();
    const dry = p.cli(["init", "--host", "claude", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("+++ b/.mcp.json");
    expect(dry.stdout).toContain('+      "command": "npx"');
    expect(dry.stderr).toMatch(/^would change: .*\.mcp\.json/m);
    expect(existsSync(path.join(p.root, ".mcp.json"))).toBe(false);

    const wrote = p.cli(["init", "--host", "claude"]);
    expect(wrote.stderr).toMatch(/^changed: .*\.claude\/skills\/guild-bus-review\/SKILL\.md/m);
    expect(existsSync(path.join(p.root, ".claude", "commands", "guild-review.md"))).toBe(true);
    expect(p.cli(["init", "--host", "claude"]).stderr).toMatch(/^nothing to change: already set up$/m);
    expect(p.cli(["init", "--host", "vim"])).toMatchObject({ code: 1, stderr: expect.stringContaining("unknown host vim") });

    expect(p.cli(["gate", "status"]).stdout).toBe("stop gate: off, at most 2 blocks per gate (.guild/settings.json stop_gate)\n");
    expect(p.cli(["gate", "on", "--max-blocks", "3"]).stdout).toContain("stop gate: on, at most 3 blocks per gate");
    expect(p.cli(["gate", "off"]).stdout).toContain("stop gate: off, at most 3 blocks per gate");
    // the hook is silent when the gate is off: nothing on stdout, exit 0
    expect(p.cli(["hook", "stop"], "{}")).toMatchObject({ code: 0, stdout: "" });
  });

  it("run below the project root, says where it wrote: the hosts read those files where they start", () => {
    const p = makeProject();
    const sub = path.join(p.root, "packages", "app");
    mkdirSync(sub, { recursive: true });
    const init = (args: string[]) => spawnSync(process.execPath, [BIN, "init", ...args], { cwd: sub, encoding: "utf8" });
    expect(init(["--host", "claude"]).stderr).toMatch(
      new RegExp(`^changed in ${escape(realpathSync(p.root))} \\(start the author hosts there\\): `, "m"),
    );
    expect(existsSync(path.join(p.root, ".claude", "settings.json"))).toBe(true);
    expect(init(["--host", "claude"]).stderr).toMatch(/^nothing to change in .* \(start the author hosts there\): already set up$/m);
    expect(p.cli(["init", "--host", "claude"]).stderr).toMatch(/^nothing to change: already set up$/m);
  });
});
