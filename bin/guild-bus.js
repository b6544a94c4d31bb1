#!/usr/bin/env node
// CommonJS (bin/package.json), as the bundle is: Node 20 loads CommonJS sooner than ES modules, and can start it from
// V8's cached compiled code (compile-cache.js).
const { statSync } = require("node:fs");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

const mtime = (file) => statSync(path.join(__dirname, file), { throwIfNoEntry: false })?.mtimeMs ?? -1;
// A package ships dist/ (built by prepack); a source checkout builds it on its first run, so that
// `npm ci && npx guild-bus demo` works on a fresh clone without an install script.
if (mtime("../dist/src/cli/main.js") < 0) require("./build-from-source.js").buildFromSource();
// The bundle `npm run build` makes (dist/cli) loads far fewer files than dist/src/cli. An installed package ships both
// built together (npm does not keep their mtimes). In a source checkout a later `tsc` rewrites every output and leaves
// the bundle stale, so there it is used only while it is at least as new as dist/src/cli/main.js (`tsc --watch`
// rewrites only what changed: then run `npm run build`). GUILD_BUS_BUNDLE=0 runs the modules.
const bundle = mtime("../dist/cli/main.cjs");
const checkout = mtime("../tsconfig.json") >= 0;
const bundled = process.env.GUILD_BUS_BUNDLE !== "0" && bundle >= 0 && (!checkout || bundle >= mtime("../dist/src/cli/main.js"));
if (bundled) require("./compile-cache.js").useCompileCache(path.join(__dirname, "..", "dist", "cli"));
/** One of the CLI's entry modules: the bundle's CommonJS file or tsc's ES module. */
const load = (name) =>
  bundled
    ? Promise.resolve(require(`../dist/cli/${name}.cjs`))
    : import(pathToFileURL(path.join(__dirname, `../dist/src/cli/${name}.js`)).href);

async function start() {
  // what reviewers and planted files wrote reaches the terminal with its control characters shown, never acted on
  (await load("safe-output")).guardOutput();
  // verify-gate-pass is dispatched before the full CLI loads: hooks call it often and it must start fast.
  const args = process.argv.slice(2);
  if (args[0] === "verify-gate-pass") process.exitCode = await (await load("verify-gate-pass")).run(args.slice(1));
  else process.exitCode = await (await load("main")).main(args);
}
// A command whose work never settles must not pass for a success (as an ES module's unsettled top-level await exits
// 13): when the loop runs dry before it did, the exit code says so.
let settled = false;
process.once("beforeExit", () => {
  if (settled) return;
  process.exitCode = 13;
  process.stderr.write("guild-bus: internal error: the command stopped before it finished\n");
});
start().then(
  () => (settled = true),
  (error) => {
    settled = true;
    throw error; // an unhandled rejection: printed, exit 1
  },
);
