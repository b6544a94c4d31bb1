// Files the package ships beside its code (bin/, package.json, src/ui/assets, dist/src/cli/demo-reviewer.js), found
// from wherever this module runs: dist/src/bus after tsc, dist/cli when bundled, src/bus under the test runner.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

export function packagePath(...parts: string[]): string {
  root ??= packageRoot(path.dirname(fileURLToPath(import.meta.url)));
  return path.join(root, ...parts);
}

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "bin", "guild-bus.js")) && existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`guild-bus: no package root (bin/guild-bus.js) above ${from}`);
  }
}
