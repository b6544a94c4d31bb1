// Starting a command is mostly V8 compiling the bundle (bench/README.md), so V8's compiled code of each bundle file is
// kept on disk for the next start. The code is cached when the process exits, with every function the command ran;
// v8-compile-cache saves it right after the top level compiles, and that saved nothing measurable (bench/README.md).
// The cache lives in the user's own cache directory, never a shared /tmp one that another user could fill with code
// for us to run, under the hash of the file it compiles. GUILD_BUS_COMPILE_CACHE=0 turns it off.
// Nothing here may stop a command: a cache that cannot be read or written only makes the start slower.
const { hash } = require("node:crypto");
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { homedir } = require("node:os");
const path = require("node:path");
const vm = require("node:vm");

function cacheDir() {
  const xdg = process.env.XDG_CACHE_HOME;
  const home = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), ".cache");
  return path.join(home, "guild-bus", "compile-cache", `${process.arch}-v8-${process.versions.v8}`);
}

/** Compiles the files under `bundleDir` from the cache and caches those it had to compile when the process exits. */
exports.useCompileCache = function useCompileCache(bundleDir) {
  if (process.env.GUILD_BUS_COMPILE_CACHE === "0") return;
  const dir = cacheDir();
  const toSave = new Map();
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileCached(content, filename, ...rest) {
    if (!filename.startsWith(bundleDir + path.sep) || !filename.endsWith(".cjs")) return compile.call(this, content, filename, ...rest);
    const file = path.join(dir, hash("sha1", content));
    let cachedData;
    try {
      cachedData = readFileSync(file);
    } catch {
      // not cached yet
    }
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (!cachedData || script.cachedDataRejected) toSave.set(file, script);
    const requireHere = (id) => this.require(id);
    requireHere.resolve = (request, options) => Module._resolveFilename(request, this, false, options);
    requireHere.main = require.main;
    requireHere.cache = Module._cache;
    return script.runInThisContext().call(this.exports, this.exports, requireHere, this, filename, path.dirname(filename));
  };
  process.once("exit", () => {
    for (const [file, script] of toSave) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const staged = `${file}.${process.pid}.tmp`;
        writeFileSync(staged, script.createCachedData(), { mode: 0o600 });
        renameSync(staged, file);
      } catch {
        // unwritable (a read-only home, a full disk): the next start compiles again
      }
    }
  });
};
