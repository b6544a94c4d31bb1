// Starting a command is mostly V8 compiling the bundle (bench/README.md), so V8's compiled code of each bundle file is
// kept on disk for the next start. The code is cached when the process exits, with every function the command ran;
// v8-compile-cache saves it right after the top level compiles, and that saved nothing measurable (bench/README.md).
// Cached data is code V8 runs without checking it, so it is only read from the user's own private directory (owned by
// the user, writable by nobody else, no symlinks), only for the very text it was compiled from, and behind a checksum
// of its own bytes (a flipped bit would otherwise crash every later start). GUILD_BUS_COMPILE_CACHE=0 turns it off.
// Nothing here may stop a command: a cache that cannot be trusted, read or written only makes the start slower.
//
// Without node:crypto, whose loading was ~5 ms of each start (bench/README.md): a cache file is named after the path of
// the file it compiles and holds a copy of that file's text, which must equal the text being compiled byte for byte
// (stronger than the sha1 it was once named by: no two texts pass for one; a name two paths share only makes them
// evict each other). Its checksum is CRC-32 (zlib's, as Node 22's own compile cache checks its files), over the header
// and the data: it has to catch corruption (every burst of up to 32 bits, else all but 1 in 2^32), not forgery, since
// whoever can write the user's private directory can already run code as the user.
const fs = require("node:fs");
const { crc32 } = require("node:zlib");
const Module = require("node:module");
const { homedir } = require("node:os");
const path = require("node:path");
const vm = require("node:vm");

/** A cache file: the CRC-32 of the rest of the header and the data, the number of starts that wrote it, the data's
 * length, the data, then the text it was compiled from. */
const CHECKSUM_BYTES = 4;
const WRITES_AT = CHECKSUM_BYTES;
const DATA_LENGTH_AT = WRITES_AT + 1;
const HEADER_BYTES = DATA_LENGTH_AT + 4;
/** The layout of the cache files; another layout is another directory (pruned when unused). */
const FORMAT = 2;
// V8 caches the functions a start ran, so a file first cached by one command (`family`) lacked what another
// (`status` on a project with gates) runs, and that one compiled it on every start. The next starts that read a file
// write it again with what they ran too; after this many writes it is left as it is (making the data costs ~10 ms).
const WRITES_PER_FILE = 3;
const MAX_CACHE_FILE_BYTES = 32 * 1024 * 1024;
// Every build and every Node version makes new files: a file or a version's directory not used for a week is removed
// when the cache is next written, and a file in use has its mtime moved on at most once a day to say so.
const DAY_MS = 24 * 60 * 60 * 1000;
const UNUSED_MS = 7 * DAY_MS;
const uid = typeof process.getuid === "function" ? process.getuid() : null;

/** Whether `dir` is a directory only this user can change (POSIX; elsewhere the platform's ACLs decide). */
function privateDirectory(dir, { allowSticky = false, followLink = false } = {}) {
  const st = followLink ? fs.statSync(dir) : fs.lstatSync(dir);
  if (!st.isDirectory() || uid === null) return st.isDirectory();
  const othersMayWrite = (st.mode & 0o022) !== 0 && !(allowSticky && st.mode & 0o1000);
  return (st.uid === uid || (allowSticky && st.uid === 0)) && !othersMayWrite;
}

/** The cache directory, made if missing, or null when there is no private place for it. */
function cacheDir() {
  const xdg = process.env.XDG_CACHE_HOME;
  const home = homedir();
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.isAbsolute(home) ? path.join(home, ".cache") : null;
  if (!base) return null;
  // V8 rejects data made by another V8 or under other flags: one directory each, so they never overwrite each other.
  // Named by the flags given rather than by v8.cachedDataVersionTag(), whose module costs ~2 ms of each start.
  const flags = nameOf(JSON.stringify([process.execArgv, process.env.NODE_OPTIONS ?? ""]));
  const tag = `${process.platform}-${process.arch}-v8-${process.versions.v8}-${flags}-${FORMAT}`;
  let dir = base;
  for (const part of [null, "guild-bus", "compile-cache", tag]) {
    if (part) dir = path.join(dir, part);
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if (error.code !== "EEXIST") return null;
    }
    if (!privateDirectory(dir, { allowSticky: part === null, followLink: part === null })) return null;
  }
  return dir;
}

/** A file name for `text` (a path, the flags). */
const nameOf = (text) => crc32(text).toString(16).padStart(8, "0");

/** What a cache file holds (its data, the number of starts that wrote it, the text it was compiled from), or undefined
 * when its checksum does not hold. */
function cacheFileParts(bytes) {
  if (bytes.length <= HEADER_BYTES) return undefined;
  const dataLength = bytes.readUInt32LE(DATA_LENGTH_AT);
  const sourceAt = HEADER_BYTES + dataLength;
  if (dataLength === 0 || sourceAt > bytes.length) return undefined;
  if (crc32(bytes.subarray(CHECKSUM_BYTES, sourceAt)) !== bytes.readUInt32LE(0)) return undefined;
  return { data: bytes.subarray(HEADER_BYTES, HEADER_BYTES + dataLength), writes: bytes[WRITES_AT], source: bytes.subarray(sourceAt) };
}
exports.cacheFileParts = cacheFileParts; // for its tests

/**
 * The cached data in `file` and how many starts wrote it, when it is this user's regular file, its checksum holds and
 * it was compiled from exactly `source` (the text being compiled, as UTF-8).
 */
function readCached(file, source) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (uid !== null && st.uid !== uid) || st.size <= HEADER_BYTES || st.size > MAX_CACHE_FILE_BYTES) return undefined;
    const bytes = fs.readFileSync(fd);
    const parts = bytes.length > source.length ? cacheFileParts(bytes) : undefined;
    // another text (a rebuild, or another file of that name) is never run from this file's data
    if (!parts || !parts.source.equals(source)) return undefined;
    if (Date.now() - st.mtimeMs > DAY_MS) markUsed(fd, path.dirname(file));
    return parts;
  } catch {
    return undefined; // not cached yet, or nothing we can trust
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Moves the mtime of a cache file and of its version's directory on: both are in use. */
function markUsed(fd, dir) {
  const now = new Date();
  try {
    fs.futimesSync(fd, now, now);
    fs.utimesSync(dir, now, now);
  } catch {
    // a read-only cache still serves; unmarked files are compiled again once pruned
  }
}

/** Removes what no start has used for a week: files of older builds in `dir`, and directories of other Node versions. */
function pruneUnused(dir) {
  const versions = path.dirname(dir);
  const entries = [
    ...fs.readdirSync(dir).map((name) => path.join(dir, name)),
    ...fs
      .readdirSync(versions)
      .map((name) => path.join(versions, name))
      .filter((other) => other !== dir),
  ];
  for (const entry of entries) {
    try {
      const st = fs.lstatSync(entry);
      if (Date.now() - st.mtimeMs > UNUSED_MS && (uid === null || st.uid === uid)) fs.rmSync(entry, { recursive: true, force: true });
    } catch {
      // removed by another start meanwhile, or not ours to remove
    }
  }
}

/** Writes the cached data of `source` under `file`: staged under a fresh name (never through a planted link), then renamed. */
function writeCached(file, source, data, writes) {
  const staged = `${file}.${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2)}.tmp`;
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    header[WRITES_AT] = writes;
    header.writeUInt32LE(data.length, DATA_LENGTH_AT);
    header.writeUInt32LE(crc32(data, crc32(header.subarray(CHECKSUM_BYTES))), 0);
    fs.writeFileSync(staged, Buffer.concat([header, data, source]), { flag: "wx", mode: 0o600 });
    fs.renameSync(staged, file);
  } catch {
    fs.rmSync(staged, { force: true }); // a full disk or a name taken: the next start compiles again
  }
}

/**
 * `require` for a bundle file. The bundle's files require each other as `./name.cjs`, `./chunks/name.cjs` (an entry
 * file) or `../name.cjs`: those are loaded by path, as Node would find them, without its resolution (a package scope
 * looked up and a realpath for each file took several ms of a start, bench/README.md). Anything else goes to Node's
 * own `require`.
 */
function bundleRequire(parent) {
  const dir = path.dirname(parent.filename);
  return function require(request) {
    if (!/^\.\.?\/(?:chunks\/)?[\w.-]+\.cjs$/.test(request)) return parent.require(request);
    const filename = path.join(dir, request);
    const cached = Module._cache[filename];
    if (cached) return cached.exports; // loaded, or being loaded by a cycle: its exports so far, as Node returns
    const child = new Module(filename, parent);
    Module._cache[filename] = child;
    try {
      child.load(filename);
    } catch (error) {
      delete Module._cache[filename];
      throw error;
    }
    return child.exports;
  };
}

/** Compiles the files under `bundleDir` from the cache, and caches those it had to compile when the process exits. */
exports.useCompileCache = function useCompileCache(bundleDir) {
  if (process.env.GUILD_BUS_COMPILE_CACHE === "0") return;
  // --experimental-policy checks each file in Node's own compile step, which this one replaces
  if ([...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => a.includes("policy"))) return;
  let dir;
  try {
    dir = cacheDir();
  } catch {
    dir = null; // no home directory (a uid without a passwd entry and no HOME), or one that cannot be read
  }
  if (!dir) return;
  /** Scripts whose cached data this start writes, with the number of starts that will then have written it. */
  const toSave = new Map();
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileCached(content, filename, ...rest) {
    // a script compiled by vm cannot import(): such a file is left to Node (the bundle turns its own into require)
    if (!filename.startsWith(bundleDir + path.sep) || !filename.endsWith(".cjs") || content.includes("import("))
      return compile.call(this, content, filename, ...rest);
    const file = path.join(dir, nameOf(filename));
    const source = Buffer.from(content, "utf8");
    const cached = readCached(file, source);
    const script = new vm.Script(Module.wrap(content), { filename, cachedData: cached?.data });
    if (!cached || script.cachedDataRejected) toSave.set(file, { source, script, writes: 1 });
    else if (cached.writes < WRITES_PER_FILE) toSave.set(file, { source, script, writes: cached.writes + 1 });
    return script.runInThisContext().call(this.exports, this.exports, bundleRequire(this), this, filename, path.dirname(filename));
  };
  process.once("exit", () => {
    for (const [file, { source, script, writes }] of toSave) writeCached(file, source, script.createCachedData(), writes);
    if (toSave.size === 0) return;
    try {
      pruneUnused(dir);
    } catch {
      // a directory that cannot be listed: the next write tries again
    }
  });
};
