// dist/ is missing: in a source checkout (tsconfig.json and the dev dependencies present) build it once as
// `npm run build` does (the project's own TypeScript, then the bundle); anywhere else say what is wrong. The build's
// output goes to stderr, never stdout, which may be read as JSON.
const { spawnSync } = require("node:child_process");
const { existsSync } = require("node:fs");
const { createRequire } = require("node:module");
const path = require("node:path");

exports.buildFromSource = function buildFromSource() {
  const tsconfig = path.join(__dirname, "..", "tsconfig.json");
  let tsc = null;
  try {
    tsc = createRequire(tsconfig).resolve("typescript/bin/tsc");
  } catch {
    // no compiler: not a checkout with its dev dependencies installed
  }
  if (!existsSync(tsconfig) || !tsc) {
    process.stderr.write("guild-bus: dist/ is missing and cannot be built here; in a source checkout run `npm ci && npm run build`\n");
    process.exit(1);
  }
  process.stderr.write("guild-bus: building dist/ from the source checkout (first run) …\n");
  const bundle = path.join(__dirname, "..", "scripts", "bundle.mjs");
  const ok = (argv) => spawnSync(process.execPath, argv, { stdio: ["ignore", 2, 2] }).status === 0;
  if (!ok([tsc, "-p", tsconfig])) {
    process.stderr.write("guild-bus: the build failed (its errors are above)\n");
    process.exit(1);
  }
  // the bundle only makes starts faster: without it (a node_modules from before rolldown) the modules run
  if (!ok([bundle]))
    process.stderr.write("guild-bus: the bundle (dist/cli) was not built, so dist/src runs; `npm ci && npm run build` builds it\n");
};
