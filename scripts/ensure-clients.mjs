// Installs the pinned real reviewer CLIs (clients/package-lock.json) for the real-client tests, once.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const clients = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "clients");
const bins = ["codex", "claude", "gemini"].map((b) => path.join(clients, "node_modules", ".bin", b));
if (bins.every((b) => existsSync(b))) process.exit(0);
console.error("installing the pinned reviewer CLIs into clients/ (test-only) …");
const r = spawnSync("npm", ["ci", "--prefix", clients, "--no-audit", "--no-fund"], { stdio: "inherit" });
process.exit(r.status ?? 1);
