#!/usr/bin/env node
// verify-gate-pass is dispatched before the full CLI loads: hooks call it often and it must start fast.
const args = process.argv.slice(2);
if (args[0] === "verify-gate-pass") {
  const { run } = await import("../dist/src/cli/verify-gate-pass.js");
  process.exitCode = await run(args.slice(1));
} else {
  const { main } = await import("../dist/src/cli/main.js");
  process.exitCode = await main(args);
}
