// verify-gate-pass --scrub hashes the artifact as the bus does: with the redaction patterns of the project's settings.
// It read them from the current directory (not the project found like every other command finds it), and settings
// with problems gave way to the defaults in silence: run from docs/, or with one bad value in the settings, a result
// that reviewed bytes the project's settings scrub to others passed (and the bus's own results failed as "changed").
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { run } from "../../src/cli/verify-gate-pass.js";
import { print } from "../../src/cli/safe-output.js";
import { sha256Hex } from "../../src/core/sha.js";
import { tempRoot } from "../helpers/tmp.js";

const ARTIFACT = "# Spec\n\nInternal ticket internal-123456.\n";
const cwd = process.cwd();
const printed = { stdout: "", stderr: "" };
vi.mock("../../src/cli/safe-output.js", () => ({ print: vi.fn() }));

afterEach(() => {
  process.chdir(cwd);
  vi.restoreAllMocks();
});

/** A project whose settings redact `internal-NNNNNN`, and a result that reviewed the artifact's raw bytes. */
function project(settings: unknown) {
  const root = tempRoot();
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  mkdirSync(path.join(root, "docs"));
  writeFileSync(path.join(root, ".guild", "settings.json"), JSON.stringify(settings));
  writeFileSync(path.join(root, "docs", "spec.md"), ARTIFACT);
  const result = path.join(root, "result.json");
  const reviewed = { packet_id: "p", artifact_sha256_reviewed: sha256Hex(Buffer.from(ARTIFACT)), verdict: "satisfied" };
  writeFileSync(result, JSON.stringify({ schema_version: "review_result.v1", ...reviewed, blocking_findings: [] }));
  return { root, result };
}

/** verify-gate-pass in this process: its exit code, and what it printed. */
async function verify(args: string[]) {
  printed.stdout = printed.stderr = "";
  vi.mocked(print).mockImplementation((name, chunk) => void (printed[name] += String(chunk)));
  const code = await run(args);
  return { code, ...printed };
}

const PATTERNS = { secrets_policy: { redaction_patterns: ["internal-[0-9]{6}"] } };

describe("verify-gate-pass --scrub", () => {
  it("uses the project's settings from any directory inside it, as every command does", async () => {
    const { root, result } = project(PATTERNS);
    process.chdir(root);
    const atRoot = await verify(["--result", result, "--artifact", "docs/spec.md", "--scrub"]);
    expect(atRoot.code, atRoot.stderr).toBe(2); // the raw bytes were reviewed; the bus hashes them scrubbed
    process.chdir(path.join(root, "docs"));
    const inDocs = await verify(["--result", result, "--artifact", "spec.md", "--scrub"]);
    expect(inDocs.code, inDocs.stderr).toBe(2);
    expect(JSON.parse(inDocs.stdout).recomputed_sha256).toBe(JSON.parse(atRoot.stdout).recomputed_sha256);
  });

  it("refuses settings with problems (exit 1), never hashing with the defaults in their place", async () => {
    const { root, result } = project({ secrets_policy: { redaction_patterns: [...PATTERNS.secrets_policy.redaction_patterns, 5] } });
    const r = await verify(["--result", result, "--artifact", path.join(root, "docs", "spec.md"), "--scrub", "--root", root]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^guild-bus: verify-gate-pass: .*settings\.json: .*redaction_patterns.*fix the settings first/);
    // without --scrub no settings are read: the gate-pass on the raw bytes, as before
    expect((await verify(["--result", result, "--artifact", path.join(root, "docs", "spec.md")])).code).toBe(0);
  });
});
