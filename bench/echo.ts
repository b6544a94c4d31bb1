// The floor the bus is compared with: a second process that watches a directory with fs.watch and answers each
// `ping-<n>` with a durable `pong-<n>` (stage, fsync, link, fsync the directory — the bus's own delivery).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { deliver } from "../src/bus/deliver.js";
import { tryWatch } from "./watch.js";

const [dir, guildDir] = process.argv.slice(2) as [string, string];
const answered = new Set<string>();
tryWatch(dir, null, (name) => {
  const m = name === null ? null : /^ping-(\d+)$/.exec(name);
  if (!m || answered.has(m[1]!)) return;
  answered.add(m[1]!);
  void deliver(path.join(dir, `pong-${m[1]}`), `pong ${m[1]}\n`, { guildDir });
});
writeFileSync(path.join(dir, "ready"), "");
