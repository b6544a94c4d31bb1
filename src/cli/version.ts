// The package's own version (package.json beside bin/), for --version and the MCP handshake.
import { readFileSync } from "node:fs";
import { packagePath } from "../bus/package-files.js";

export function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string }).version;
}
