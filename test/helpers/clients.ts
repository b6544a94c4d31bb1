// Shared pieces of the real-client tests (codex, http): an artifact carrying known secrets, async CLI calls (the mock
// endpoint lives in the test process, so a blocking spawnSync would starve it), and a direct-dispatch context.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type DispatchInput, dispatchProject } from "../../src/adapters/types.js";
import type { PacketFrontMatter, ProviderConfig, Settings } from "../../src/spec/schemas.js";
import { BIN, type Project } from "./bus.js";
import { scaled } from "./machine.js";

interface CorpusEntry {
  name: string;
  secret: string;
  context: string;
}

const CORPUS: CorpusEntry[] = JSON.parse(readFileSync(new URL("../../fixtures/secrets/corpus.json", import.meta.url), "utf8"));

/** Secrets embedded in the test artifact; none may ever reach an endpoint. */
export const SECRETS = ["openai-legacy-key", "openai-project-key", "github-classic-pat", "anthropic-api-key"].map((name) => {
  const entry = CORPUS.find((e) => e.name === name);
  if (!entry) throw new Error(`secret corpus has no ${name}`);
  return entry;
});

export const ARTIFACT_LINE = "- exports finish within 2 s at the 95th percentile";

export const SPEC = [
  "# Spec: export button",
  "",
  "## Acceptance criteria",
  ARTIFACT_LINE,
  "",
  "## Notes",
  ...SECRETS.map((s) => s.context),
  "",
].join("\n");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `guild-bus <args> --root <root>` without blocking the event loop. */
export function cliAsync(p: Project, args: string[], timeoutMs = scaled(60_000)): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, "--root", p.root], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b));
    child.stderr.on("data", (b: Buffer) => (stderr += b));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`guild-bus ${args.join(" ")} did not finish in ${timeoutMs} ms\n${stderr}\nlogs:\n${p.logs.join("").slice(-4000)}`));
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** Poll a predicate until it holds (the deadline scales with the machine factor), else fail naming `what`. */
export async function until(what: string, predicate: () => boolean, timeoutMs = scaled(30_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export type GateStatus = Record<string, unknown> & { state: string; status: string; round: number };

export async function statusAsync(p: Project, run: string, gate: string): Promise<GateStatus> {
  const r = await cliAsync(p, ["status", run, gate, "--json"]);
  if (r.code !== 0) throw new Error(`status failed: ${r.stderr}`);
  return JSON.parse(r.stdout).gates[0];
}

export async function waitStateAsync(
  p: Project,
  run: string,
  gate: string,
  states: string[],
  timeoutMs = scaled(30_000),
): Promise<GateStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await statusAsync(p, run, gate);
    if (states.includes(s.state)) return s;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${states.join("|")}; state ${s.state} (${String(s.detail)}); ` +
          `files: ${p.files(run, gate).join(" ")}\nlogs:\n${p.logs.join("").slice(-4000)}`,
      );
    }
    await sleep(150);
  }
}

/**
 * Every file under dir, path relative to dir → its bytes as latin1 text (a symlink as "-> target", not followed), for
 * "this value was never written anywhere" and "nothing new was left here" checks.
 */
export function treeFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const file = path.join(d, e.name);
      if (e.isDirectory()) walk(file);
      else if (e.isSymbolicLink()) out[path.relative(dir, file)] = `-> ${readlinkSync(file)}`;
      else out[path.relative(dir, file)] = readFileSync(file, "latin1");
    }
  };
  walk(dir);
  return out;
}

/** Files under dirs whose bytes contain needle (an ASCII string). */
export function filesContaining(needle: string, ...dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    Object.entries(treeFiles(dir))
      .filter(([, text]) => text.includes(needle))
      .map(([rel]) => path.join(dir, rel)),
  );
}

/** Every file under .guild/ as text, for "this value was never written anywhere" checks. */
export function guildText(p: Project): string {
  return Object.values(treeFiles(path.join(p.root, ".guild"))).join("\n");
}

export function packetField(p: Project, run: string, gate: string, round: number, name: string): string {
  const text = readFileSync(path.join(p.gateDir(run, gate), `packet-${round}.md`), "utf8");
  return new RegExp(`^${name}: (.+)$`, "m").exec(text)?.[1]?.trim().replace(/^"|"$/g, "") ?? "";
}

/** A DispatchInput for calling an adapter directly (no workers), with a plausible packet. */
export function directInput(
  root: string,
  providerId: string,
  config: ProviderConfig,
  prompt: string,
  settings: Settings = {},
): DispatchInput {
  const front = {
    schema_version: "guild_bus.packet.v1",
    packet_id: "pkt-direct-1",
    run_id: "r-direct",
    gate: "G-spec",
    round: 1,
    counted_round: 1,
    cap: 5,
    restart_of: null,
    restart_reason: null,
    author_host: "claude",
    author_model: null,
    author_family: "anthropic",
    author_family_source: "host-map",
    reviewer_provider: providerId,
    reviewer_adapter: config.adapter,
    reviewer_model: config.model ?? null,
    reviewer_family: "openai",
    independence: "strong",
    selection_status: "selected",
    selection_reason: "test",
    artifact_path: "docs/spec.md",
    artifact_sha256: "a".repeat(64),
    issued_at: new Date().toISOString(),
  } satisfies PacketFrontMatter;
  return {
    project: dispatchProject(root, settings),
    providerId,
    config,
    front,
    packetPath: path.join(root, "packet-1.md"),
    prompt,
    signal: new AbortController().signal,
  };
}

export const DIRECT_PROMPT =
  `---\npacket_id: pkt-direct-1\nartifact_sha256: ${"a".repeat(64)}\n---\n` + `# Adversarial review\n\n${ARTIFACT_LINE}\n`;
