// The floors the bus is compared with: a process that watches a directory with fs.watch and answers each
// `<from>-<n>` with a durable `<to>-<n>` (stage, fsync, link, fsync the directory — the bus's own delivery).
// `ping pong` is the echo floor; two of them, `ping mid` and `mid pong`, are the relay floor (bench/floors.ts).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { deliver } from "../src/bus/deliver.js";
import { tryWatch } from "./watch.js";

const [dir, guildDir, from = "ping", to = "pong"] = process.argv.slice(2) as [string, string, string?, string?];
const answered = new Set<string>();
const asked = new RegExp(`^${from}-(\\d+)$`);
tryWatch(dir, null, (name) => {
  const m = name === null ? null : asked.exec(name);
  if (!m || answered.has(m[1]!)) return;
  answered.add(m[1]!);
  void deliver(path.join(dir, `${to}-${m[1]}`), `${to} ${m[1]}\n`, { guildDir });
});
writeFileSync(path.join(dir, `ready-${from}`), "");
