// Registered with `node --import`: records every module specifier resolved by the process, with the URL of the module
// importing it, into $GUILD_BUS_LOAD_LOG, so a test can prove which heavy modules a small command never loads. ES modules
// are seen by a resolve hook, the bundle's CommonJS files by the CommonJS resolver and as they load (bin/compile-cache.js
// loads the bundle's own files by path, without the resolver).
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

register(
  "data:text/javascript," +
    encodeURIComponent(`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  if (process.env.GUILD_BUS_LOAD_LOG) appendFileSync(process.env.GUILD_BUS_LOAD_LOG, specifier + "\\t" + (context.parentURL ?? "") + "\\n");
  return next(specifier, context);
}`),
);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function logged(request, parent, ...rest) {
  if (process.env.GUILD_BUS_LOAD_LOG && parent?.filename)
    appendFileSync(process.env.GUILD_BUS_LOAD_LOG, `${request}\t${pathToFileURL(parent.filename).href}\n`);
  return resolveFilename.call(this, request, parent, ...rest);
};

const load = Module.prototype.load;
Module.prototype.load = function logged(filename, ...rest) {
  if (process.env.GUILD_BUS_LOAD_LOG)
    appendFileSync(process.env.GUILD_BUS_LOAD_LOG, `./${path.basename(filename)}\t${pathToFileURL(filename).href}\n`);
  return load.call(this, filename, ...rest);
};
