// guild-bus verify-gate-pass: drop-in for Guild's scripts/verify-gate-pass.ts (exit 0 pass, 2 fail, 1 usage).
// Parsed with node:util parseArgs and free of zod/commander, so the command starts about as fast as node itself.
import { parseArgs } from "node:util";
import { oneResultPass } from "../core/verdict-pass.js";
import { decodeUtf8, readBounded, type ReadRefused } from "../bus/read-bounded.js";
import { MAX_ARTIFACT_BYTES, MAX_FILE_BYTES } from "../spec/constants.js";
import { repeatedFlag, reportError, rootProblem } from "./errors.js";
import { print } from "./safe-output.js";

export const USAGE = `Usage: guild-bus verify-gate-pass --result <file> --artifact <file> [--packet-id <id>] \
[--force-pass] [--scrub] [--root <dir>] [--stop verdict|score]

Evaluate the five checksum-bound gate-pass conditions; print the verdict JSON. The result's own rulings count as
the bus counts them (any but a withdrawal keeps it closed); \`guild-bus check\` re-derives a whole gate.
  --result <file>     review_result.v1 JSON (missing or unreadable: the gate fails; not a regular file, or over
                      ${MAX_FILE_BYTES} bytes: usage error)
  --artifact <file>   the artifact the result must be bound to (unreadable, not a regular file, or over
                      ${MAX_ARTIFACT_BYTES} bytes: usage error)
  --packet-id <id>    packet id issued for the round (omitted: not checked)
  --force-pass        a human force-pass: relaxes only the verdict condition
  --scrub             hash the scrubbed artifact bytes, as the bus does
  --root <dir>        project root whose .guild/settings.json adds redaction patterns (with --scrub; default: the
                      nearest directory up from here holding .guild/; settings with problems: usage error)
  --stop score        the round's stop policy is a score gate: the score condition replaces the verdict's

Examples:
  $ guild-bus verify-gate-pass --result result-1.json --artifact docs/spec.md --packet-id <id> --scrub
  $ guild-bus verify-gate-pass --result result-2.json --artifact docs/plan.md --stop score

Exit codes: 0 pass; 2 fail; 1 usage error or unreadable artifact
`;

const HINT = "(guild-bus verify-gate-pass --help shows the usage)";

/**
 * The artifact's bytes as the bus scrubs them: with the redaction patterns of the project's settings, the project found
 * as every command finds it (the nearest directory up holding .guild/), never the current directory's. Settings with
 * problems are refused, as every other command refuses them: their defaults would hash other bytes than the bus did,
 * and pass or fail a result on settings the project did not write.
 */
async function scrubbedBytes(text: string, root: string | undefined): Promise<Buffer> {
  const [{ scrub, scrubOptions }, { Layout }, { loadSettings }, { settingsRefusal }, { findProjectRoot }] = await Promise.all([
    import("../core/scrub.js"),
    import("../bus/layout.js"),
    import("../bus/settings.js"),
    import("../bus/settings-file.js"),
    import("../bus/project-root.js"),
  ]);
  const layout = new Layout(root ?? findProjectRoot(process.cwd()));
  const { settings, problems } = loadSettings(layout);
  const refusal = settingsRefusal(layout, problems);
  if (refusal) throw new Error(`${refusal}; --scrub hashes with the project's redaction settings only — fix the settings first`);
  return Buffer.from(scrub(text, scrubOptions(settings)), "utf8");
}

function usageError(message: string): number {
  return reportError(`verify-gate-pass: ${message}`, HINT);
}

export async function run(args: string[]): Promise<number> {
  let values, tokens;
  try {
    ({ values, tokens } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      tokens: true,
      options: {
        result: { type: "string" },
        artifact: { type: "string" },
        "packet-id": { type: "string" },
        "force-pass": { type: "boolean" },
        scrub: { type: "boolean" },
        root: { type: "string" },
        stop: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    return usageError((error as Error).message);
  }
  const given = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== "option" || t.value === undefined) continue; // flags may repeat harmlessly
    if (given.has(t.name)) return usageError(repeatedFlag(`--${t.name}`));
    given.add(t.name);
  }
  if (values.help) {
    // exit 0 here means "the gate passes": help asked for beside a check must not read as one
    if (tokens.some((t) => t.kind === "option" && t.name !== "help")) return usageError("--help takes no other options");
    print("stdout", USAGE);
    return 0;
  }
  if (!values.result) return usageError("--result is required");
  if (!values.artifact) return usageError("--artifact is required");
  const stop = values.stop ?? "verdict";
  if (stop !== "verdict" && stop !== "score") return usageError(`--stop must be verdict or score (got ${JSON.stringify(stop)})`);
  const badRoot = values.root === undefined ? null : rootProblem(values.root);
  if (badRoot) return usageError(badRoot);
  let artifactBytes: Buffer;
  try {
    artifactBytes = readBounded(values.artifact, { max: MAX_ARTIFACT_BYTES, followSymlink: true });
    if (values.scrub) artifactBytes = await scrubbedBytes(decodeUtf8(artifactBytes, values.artifact), values.root);
  } catch (error) {
    return reportError(`verify-gate-pass: ${(error as Error).message}`);
  }
  let resultRaw: string | null = null;
  try {
    resultRaw = decodeUtf8(readBounded(values.result, { max: MAX_FILE_BYTES, followSymlink: true }), values.result);
  } catch (error) {
    // Guild's rule: a missing or unreadable result fails the gate; a FIFO, device, directory or oversized file is a usage error
    const kind = (error as ReadRefused).kind;
    if (kind === "not-regular" || kind === "too-large") return reportError(`verify-gate-pass: ${(error as Error).message}`);
    if (kind !== "missing") reportError(`verify-gate-pass: ${(error as Error).message}`); // said, and the gate fails
  }
  const report = oneResultPass({ resultRaw, artifactBytes, packetId: values["packet-id"], forcePass: values["force-pass"] === true }, stop);
  print("stdout", JSON.stringify(report, null, 2) + "\n");
  return report.pass ? 0 : 2;
}
