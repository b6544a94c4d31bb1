// `npm run integrations`: renders the shipped Claude Code plugin (integrations/claude) and Gemini CLI extension
// (integrations/gemini) from src/commands/host-files.ts, the one source of what a host is given.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { claudePluginFiles, geminiExtensionFiles } from "../dist/src/commands/host-files.js";

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const { version } = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8"));
for (const [dir, files] of [
  ["claude", claudePluginFiles(version)],
  ["gemini", geminiExtensionFiles(version)],
]) {
  const root = path.join(repo, "integrations", dir);
  rmSync(root, { recursive: true, force: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  console.log(`wrote ${Object.keys(files).length} files to integrations/${dir}`);
}
