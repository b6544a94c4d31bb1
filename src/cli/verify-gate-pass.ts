// guild-bus verify-gate-pass: drop-in for Guild's scripts/verify-gate-pass.ts (exit 0 pass, 2 fail, 1 usage).
// Parsed with node:util parseArgs and free of zod/commander, so the command starts about as fast as node itself.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { evaluateGatePass } from "../gate-pass.js";

export const USAGE = `Usage: guild-bus verify-gate-pass --result <file> --artifact <file> [--packet-id <id>] [--force-pass] [--scrub] [--root <dir>]

Evaluate the five checksum-bound gate-pass conditions; print the verdict JSON.
  --result <file>     review_result.v1 JSON (missing or unreadable: the gate fails)
  --artifact <file>   the artifact the result must be bound to (unreadable: usage error)
  --packet-id <id>    packet id issued for the round (omitted: not checked)
  --force-pass        a human force-pass: relaxes only the verdict condition
  --scrub             hash the scrubbed artifact bytes, as the bus does
  --root <dir>        project root whose .guild/settings.json adds redaction patterns (with --scrub)
Exit: 0 pass, 2 fail, 1 usage error or unreadable artifact.
`;

async function scrubbedBytes(text: string, root: string | undefined): Promise<Buffer> {
  const [{ scrub }, { Layout }, { loadSettings }] = await Promise.all([
    import("../scrub.js"),
    import("../layout.js"),
    import("../settings.js"),
  ]);
  const { settings } = loadSettings(new Layout(root ?? process.cwd()));
  return Buffer.from(scrub(text, { customPatterns: settings.secrets_policy?.redaction_patterns }), "utf8");
}

function usageError(message: string): number {
  process.stderr.write(`verify-gate-pass: ${message}\n${USAGE}`);
  return 1;
}

export async function run(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        result: { type: "string" },
        artifact: { type: "string" },
        "packet-id": { type: "string" },
        "force-pass": { type: "boolean" },
        scrub: { type: "boolean" },
        root: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    return usageError((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.result) return usageError("--result is required");
  if (!values.artifact) return usageError("--artifact is required");
  let artifactBytes: Buffer;
  try {
    artifactBytes = readFileSync(values.artifact);
  } catch (error) {
    process.stderr.write(`verify-gate-pass: cannot read artifact ${values.artifact}: ${(error as Error).message}\n`);
    return 1;
  }
  if (values.scrub) artifactBytes = await scrubbedBytes(artifactBytes.toString("utf8"), values.root);
  let resultRaw: string | null;
  try {
    resultRaw = readFileSync(values.result, "utf8");
  } catch {
    resultRaw = null;
  }
  const report = evaluateGatePass({
    resultRaw,
    artifactBytes,
    packetId: values["packet-id"],
    forcePass: values["force-pass"] === true,
  });
  process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  return report.pass ? 0 : 2;
}
