// The package's own version (package.json beside bin/), for --version and the MCP handshake.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export function packageVersion(): string {
  const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "package.json");
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
}
