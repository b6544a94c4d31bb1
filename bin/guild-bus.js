#!/usr/bin/env node
import { existsSync } from "node:fs";

// A package ships dist/ (built by prepack); a source checkout builds it on its first run, so that
// `npm ci && npx guild-bus demo` works on a fresh clone without an install script.
if (!existsSync(new URL("../dist/src/cli/main.js", import.meta.url))) {
  const { buildFromSource } = await import("./build-from-source.js");
  buildFromSource();
}
// what reviewers and planted files wrote reaches the terminal with its control characters shown, never acted on
const { guardOutput } = await import("../dist/src/cli/safe-output.js");
guardOutput();
// verify-gate-pass is dispatched before the full CLI loads: hooks call it often and it must start fast.
const args = process.argv.slice(2);
if (args[0] === "verify-gate-pass") {
  const { run } = await import("../dist/src/cli/verify-gate-pass.js");
  process.exitCode = await run(args.slice(1));
} else {
  const { main } = await import("../dist/src/cli/main.js");
  process.exitCode = await main(args);
}
