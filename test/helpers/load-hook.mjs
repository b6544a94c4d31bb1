// Registered with `node --import`: records every module specifier resolved by the process, with the URL of the module
// importing it, into $GUILD_BUS_LOAD_LOG, so a test can prove which heavy modules a small command never loads.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  if (process.env.GUILD_BUS_LOAD_LOG) appendFileSync(process.env.GUILD_BUS_LOAD_LOG, specifier + "\\t" + (context.parentURL ?? "") + "\\n");
  return next(specifier, context);
}`),
);
