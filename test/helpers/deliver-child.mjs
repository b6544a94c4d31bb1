// A real, killable process running deliver() or replace() from the built dist/ (tests spawn it; tsconfig does not cover test/).
//   node deliver-child.mjs loop <guildDir> <outDir> <count> <size>   deliver f-<i>.bin in order, print "ok <i>" after each
//   node deliver-child.mjs race <guildDir>                           per stdin line {final, text, size}, print the result as JSON
//   node deliver-child.mjs replace <guildDir> <view> <count> <size>  replace() the view with v-<i> in order, print "ok <i>" after each
// All print "ready" once loaded, so the parent can time kills and races after startup.
import { createHash } from "node:crypto";
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Content derived from the file name alone, so any final can be checked after a crash (cheap: the loop stays I/O-bound). */
export function payloadFor(name, size) {
  const out = Buffer.alloc(size, createHash("sha256").update(name).digest());
  // Number each 4 KiB page, so pages out of place or from another file show up too.
  for (let page = 0; page * 4096 + 4 <= size; page++) out.writeUInt32BE(page, page * 4096);
  return out;
}

async function main() {
  const [mode, guildDir, ...rest] = process.argv.slice(2);
  const { deliver } = await import("../../dist/src/bus/deliver.js");
  if (mode === "loop") {
    const [outDir, count, size] = rest;
    process.stdout.write("ready\n");
    for (let i = 0; i < Number(count); i++) {
      const name = `f-${i}.bin`;
      await deliver(path.join(outDir, name), payloadFor(name, Number(size)), { guildDir });
      process.stdout.write(`ok ${i}\n`);
    }
    return;
  }
  if (mode === "replace") {
    const { replace } = await import("../../dist/src/bus/replace.js");
    const [view, count, size] = rest;
    process.stdout.write("ready\n");
    for (let i = 0; i < Number(count); i++) {
      await replace(view, payloadFor(`v-${i}`, Number(size)), { guildDir });
      process.stdout.write(`ok ${i}\n`);
    }
    return;
  }
  if (mode === "race") {
    const lines = createInterface({ input: process.stdin });
    process.stdout.write("ready\n");
    for await (const line of lines) {
      const { final, text, size } = JSON.parse(line);
      try {
        const result = await deliver(final, payloadFor(text, size), { guildDir });
        process.stdout.write(JSON.stringify(result) + "\n");
      } catch (error) {
        process.stdout.write(JSON.stringify({ error: String(error) }) + "\n");
      }
    }
    return;
  }
  throw new Error(`unknown mode ${mode}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
