// guild-bus family <model>...: the one classifier, from the shell, with the project's family_aliases as the bus uses them.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { ROOT_HELP } from "./errors.js";
import { classifyModel, type FamilyAliases } from "../core/family.js";
import { FAMILIES, MAX_FILE_BYTES } from "../spec/constants.js";
import { print } from "./safe-output.js";
import type { ReadRefused } from "../bus/read-bounded.js";

export function register(program: Command): void {
  program
    .command("family")
    .description(summary("family"))
    .argument("<model...>", "model ids")
    .option("--json", "print a JSON array")
    .option("--alias <needle=family...>", "extra needles, over the project's settings family_aliases")
    .option("--root <dir>", ROOT_HELP)
    .action(async (models: string[], opts: { json?: boolean; alias?: string[]; root: string }, cmd: Command) => {
      const known = FAMILIES.filter((f) => f !== "unknown");
      const given = (opts.alias ?? []).map((a) => a.split("=", 2));
      const bad = given.find(([needle = "", family]) => !needle.trim() || !known.some((f) => f === family));
      if (bad) cmd.error(`--alias ${bad.join("=")}: give needle=family, the family one of ${known.join(", ")}`);
      const aliases: FamilyAliases = { ...(await projectAliases(opts.root, cmd)), ...(Object.fromEntries(given) as FamilyAliases) };
      const rows = models.map((model) => ({ model, family: classifyModel(model, aliases) }));
      print("stdout", opts.json ? JSON.stringify(rows) + "\n" : rows.map((r) => `${r.model}\t${r.family}\n`).join(""));
    });
}

/**
 * The project's family_aliases, read as every worker reads the settings (a model the bus counts as its alias's family
 * must read so here too). Settings that name no aliases are not parsed: the command stays free of the schemas.
 */
async function projectAliases(root: string, cmd: Command): Promise<FamilyAliases | undefined> {
  const [{ Layout }, { readTextBounded }] = await Promise.all([import("../bus/layout.js"), import("../bus/read-bounded.js")]);
  const layout = new Layout(root);
  let text: string | null;
  try {
    text = readTextBounded(layout.settings, { max: MAX_FILE_BYTES, followSymlink: true });
  } catch (error) {
    text = (error as ReadRefused).kind === "missing" ? "" : null; // unreadable: loadSettings below says why
  }
  // the key may be written with \u escapes: such a file is read whole
  if (text !== null && !text.includes("family_aliases") && !text.includes("\\u")) return undefined;
  const [{ loadSettings }, { settingsRefusal }] = await Promise.all([import("../bus/settings.js"), import("../bus/settings-file.js")]);
  const { settings, problems } = loadSettings(layout);
  const refusal = settingsRefusal(layout, problems);
  if (refusal) cmd.error(refusal);
  return settings.family_aliases;
}
