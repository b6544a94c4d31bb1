#!/usr/bin/env node
import { statSync } from "node:fs";

const mtime = (file) => statSync(new URL(file, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
// A package ships dist/ (built by prepack); a source checkout builds it on its first run, so that
// `npm ci && npx guild-bus demo` works on a fresh clone without an install script.
if (mtime("../dist/src/cli/main.js") < 0) {
  const { buildFromSource } = await import("./build-from-source.js");
  buildFromSource();
}
// The bundle `npm run build` makes (dist/cli) loads far fewer files than dist/src/cli. An installed package ships both
// built together (npm does not keep their mtimes). In a source checkout a later `tsc` rewrites every output and leaves
// the bundle stale, so there it is used only while it is at least as new as dist/src/cli/main.js (`tsc --watch`
// rewrites only what changed: then run `npm run build`). GUILD_BUS_BUNDLE=0 runs the modules.
const bundle = mtime("../dist/cli/main.js");
const checkout = mtime("../tsconfig.json") >= 0;
const bundled = process.env.GUILD_BUS_BUNDLE !== "0" && bundle >= 0 && (!checkout || bundle >= mtime("../dist/src/cli/main.js"));
const cli = bundled ? "../dist/cli/" : "../dist/src/cli/";
// what reviewers and planted files wrote reaches the terminal with its control characters shown, never acted on
const { guardOutput } = await import(`${cli}safe-output.js`);
guardOutput();
// verify-gate-pass is dispatched before the full CLI loads: hooks call it often and it must start fast.
const args = process.argv.slice(2);
if (args[0] === "verify-gate-pass") {
  const { run } = await import(`${cli}verify-gate-pass.js`);
  process.exitCode = await run(args.slice(1));
} else {
  const { main } = await import(`${cli}main.js`);
  process.exitCode = await main(args);
}
