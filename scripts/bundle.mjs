// `npm run build`, after tsc: bundles what bin/guild-bus.js loads (dist/src/cli and the libraries it uses) into
// dist/cli. One process then loads tens of files instead of about 170 (`status` starts about a third sooner; see
// bench/README.md). CommonJS, which Node 20 loads sooner than ES modules and bin/compile-cache.js can start from V8's
// cached code. Chunk names carry no hash, so a rebuild overwrites them in place as tsc does its own output, and files
// the new build did not write are removed.
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "dist", "cli");
const ENTRIES = ["main", "verify-gate-pass", "safe-output"];

// jsonc-parser's visitor, which tsc's ES modules load with createRequire (its ES build imports without file extensions,
// which Node's ES loader refuses), is bundled from that ES build: the bundle then holds it, and the compile cache too.
const UMD_VISITOR =
  /^import \{ createRequire \} from "node:module";$([^]*)^const \{ visit \} = createRequire\(import\.meta\.url\)\("jsonc-parser\/lib\/umd\/impl\/parser\.js"\);$/m;
const bundledParser = {
  name: "bundled-jsonc-parser",
  transform(code, id) {
    if (!id.endsWith(path.join("core", "json-answer.js"))) return null;
    if (!UMD_VISITOR.test(code)) throw new Error(`${id}: jsonc-parser is no longer loaded as scripts/bundle.mjs expects`);
    return code.replace(UMD_VISITOR, '$1import { visit } from "jsonc-parser/lib/esm/impl/parser.js";');
  },
};

// commander loads child_process at its top for the subcommands it can run as executables, which guild-bus has none
// of: loading it cost every command about 3 ms of its start (bench/README.md). It is loaded when a spawn asks for it.
const EAGER_CHILD_PROCESS = /^const childProcess = require\('node:child_process'\);$/m;
const lazyChildProcess = {
  name: "commander-lazy-child-process",
  transform(code, id) {
    if (!id.endsWith(path.join("node_modules", "commander", "lib", "command.js"))) return null;
    if (!EAGER_CHILD_PROCESS.test(code)) throw new Error(`${id}: commander no longer loads child_process as scripts/bundle.mjs expects`);
    const lazy = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
    return code.replace(EAGER_CHILD_PROCESS, lazy);
  },
};

const written = new Set();
const result = await build({
  input: Object.fromEntries(ENTRIES.map((name) => [name, path.join(ROOT, "dist", "src", "cli", `${name}.js`)])),
  platform: "node",
  plugins: [bundledParser, lazyChildProcess],
  // an entry may export more than its own module does: the modules every command loads (commander, the overview, the
  // formatting) are then part of main.cjs rather than ten small chunks beside it, and each file a start loads costs
  // about 0.4 ms of CPU of its own (opened, read, checked against its cache, compiled) whatever its size (bench/README.md)
  preserveEntrySignatures: "allow-extension",
  logLevel: "warn",
  onLog: (level, log) => process.stderr.write(`bundle ${level}: ${log.message}\n`),
  output: {
    dir: OUT,
    format: "cjs",
    entryFileNames: "[name].cjs",
    chunkFileNames: "chunks/[name].cjs",
    strict: true, // as the ES modules were: an assignment to a frozen value throws, never passes silently
    comments: { legal: true, annotation: false, jsdoc: false }, // less to read and hash at each start; licences stay
  },
});
for (const file of result.output) written.add(path.join(OUT, file.fileName));
for (const entry of readdirSync(OUT, { recursive: true, withFileTypes: true })) {
  const file = path.join(entry.parentPath, entry.name);
  if (entry.isFile() && !written.has(file)) rmSync(file);
}
