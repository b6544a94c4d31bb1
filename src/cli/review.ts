// guild-bus review: deliver request.json for a gate (and run.json for a new run); optionally wait for it.
import { existsSync, statSync } from "node:fs";
import type { Command } from "commander";
import { customAlphabet } from "nanoid";
import { readArtifact } from "../bus/artifact.js";
import { requestRefusal } from "../core/policy.js";
import { Layout } from "../bus/layout.js";
import { scrubOptions, type ScrubOptions, scrubWithReport } from "../core/scrub.js";
import { loadSettings } from "../bus/settings.js";
import { assertGate, assertRunId, GATE_NAMES } from "../spec/ids.js";
import { Difficulty, Request, RunMeta, StopPolicy } from "../spec/schemas.js";
import { deliver } from "../bus/deliver.js";
import { readTextBounded, ReadRefused } from "../bus/read-bounded.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { intArg, nonBlankArg, secondsArg } from "./options.js";
import { waitForGate } from "./wait.js";

const suffix = customAlphabet("0123456789abcdefghijklmnopqrstuvwxyz", 6);

export function newRunId(date = new Date()): string {
  return `run-${date.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}-${suffix()}`;
}

export interface ReviewParams {
  artifact: string;
  gate: string;
  author: string;
  authorModel?: string;
  runId?: string;
  reviewer?: string;
  review?: "cross" | "local" | "off";
  risk?: "low" | "medium" | "high";
  cap?: number;
  stop?: StopPolicy;
  difficulty?: Difficulty;
  humanCheckpoint?: boolean;
  paths?: string[];
}

/**
 * At nightmare the reviewer's CLI reads the files itself, so the scrubber never sees what it sends to its provider:
 * what each listed file holds that the scrubber would redact, and what was not checked (a directory, a large file).
 */
export function unredactedAtNightmare(layout: Layout, relPaths: string[], options: ScrubOptions): string[] {
  return [...new Set(relPaths)].flatMap((rel) => {
    const file = layout.artifact(rel);
    const st = statSync(file);
    if (st.isDirectory()) return [`${rel}/ is a directory: its files were not checked`];
    let text: string;
    try {
      text = readTextBounded(file, { max: MAX_FILE_BYTES, followSymlink: true });
    } catch (error) {
      if (error instanceof ReadRefused) return [`${rel} was not checked (${error.message.replace(/^[^:]*: /, "")})`];
      throw error;
    }
    const { redactions } = scrubWithReport(text, options);
    const total = Object.values(redactions).reduce((a, b) => a + b, 0);
    return total ? [`${rel} holds ${total} secret(s) the scrubber would redact (${Object.keys(redactions).join(", ")})`] : [];
  });
}

/** Deliver run.json (first request of a run) and request.json; a gate is requested once per run. */
export function requestReview(layout: Layout, p: ReviewParams): { runId: string; gate: string; warnings: string[] } {
  const gate = assertGate(p.gate);
  const runId = assertRunId(p.runId ?? newRunId());
  const abs = layout.artifact(p.artifact);
  const { settings } = loadSettings(layout);
  // Read now as the broker will read it (inside the project, a regular file, size limit, UTF-8), so nothing is
  // written for an artifact it would escalate at once.
  const artifact = readArtifact(layout, layout.rel(abs), scrubOptions(settings));
  if (!artifact.ok) throw new Error(`artifact refused: ${artifact.detail}`);
  const paths = (p.paths ?? []).map((rel) => {
    const file = layout.artifact(rel);
    if (!existsSync(file)) throw new Error(`path not found: ${rel}`);
    layout.readableArtifact(rel);
    return layout.rel(file);
  });
  // Refused up front with the broker's own rule, so nothing is written for a request it would refuse.
  const difficulty = p.difficulty ?? settings.difficulty ?? "medium";
  const refusal = requestRefusal({ reviewer: p.reviewer ?? "auto", paths }, settings, difficulty);
  if (refusal) throw new Error(`request refused: ${refusal}`);
  const exposed = difficulty === "nightmare" ? unredactedAtNightmare(layout, [layout.rel(abs), ...paths], scrubOptions(settings)) : [];
  const warnings = exposed.length
    ? [
        `difficulty nightmare: the reviewer reads files itself, unredacted: ${exposed.join("; ")}. It may read the rest of the project as well. Use difficulty hard to send the artifact redacted`,
      ]
    : [];
  const now = new Date().toISOString();
  const opts = { guildDir: layout.guild };
  // both records are validated before either is written
  const run = RunMeta.parse({ schema_version: "guild_bus.run.v1", run_id: runId, created_at: now, created_by: p.author });
  const request = Request.parse({
    schema_version: "guild_bus.request.v1",
    run_id: runId,
    gate,
    artifact_path: layout.rel(abs),
    author_host: p.author,
    ...(p.authorModel ? { author_model: p.authorModel } : {}),
    reviewer: p.reviewer ?? "auto",
    ...(p.review ? { review: p.review } : {}),
    ...(p.risk ? { risk: p.risk } : {}),
    ...(p.cap ? { cap: p.cap } : {}),
    ...(p.stop ? { stop: p.stop } : {}),
    ...(p.difficulty ? { difficulty: p.difficulty } : {}),
    ...(p.humanCheckpoint ? { human_checkpoint: true } : {}),
    ...(paths.length ? { paths } : {}),
    requested_at: now,
  });
  deliver(layout.runMeta(runId), JSON.stringify(run, null, 2) + "\n", opts);
  const r = deliver(layout.gateFile(runId, gate, "request.json"), JSON.stringify(request, null, 2) + "\n", opts);
  if (r.status === "conflict")
    throw new Error(`${runId} ${gate} already has a request; a gate is reviewed once per run — use another --run-id`);
  return { runId, gate, warnings };
}

interface ReviewOptions {
  gate: string;
  author: string;
  authorModel?: string;
  runId?: string;
  reviewer: string;
  review?: "cross" | "local" | "off";
  risk?: "low" | "medium" | "high";
  cap?: number;
  stop?: string;
  difficulty?: string;
  humanCheckpoint?: boolean;
  paths?: string[];
  wait?: boolean;
  json?: boolean;
  root: string;
  timeout?: number;
}

export function register(program: Command): void {
  program
    .command("review")
    .description("request a review of an artifact at a gate (workers started by `guild-bus up` carry it out)")
    .argument("<artifact>", "the artifact, inside the project")
    .requiredOption("--gate <gate>", GATE_NAMES)
    .requiredOption("--author <host>", "the host that wrote it (claude, codex, gemini, …)", nonBlankArg)
    .option("--author-model <model>", "the exact model that wrote it (decides the author family when known)", nonBlankArg)
    .option("--run-id <id>", "run to file it under (default: a new run)")
    .option("--reviewer <provider>", "auto, or a provider id to pin", nonBlankArg, "auto")
    .option("--review <mode>", "cross | local | off")
    .option("--risk <level>", "low | medium | high (high makes review required)")
    .option("--cap <n>", "round cap (default settings codex_cap, else 5, or 4 with --stop score; max 10)", intArg(1))
    .option("--stop <policy>", "verdict | score (score ≥ 6 and readiness ready|almost replace the verdict condition)")
    .option("--difficulty <level>", "medium | hard (reviewer memory, rebuttals) | nightmare (the reviewer reads the repository)")
    .option("--human-checkpoint", "wait for `guild-bus decide continue|stop|rework` after every round that does not end the gate")
    .option("--paths <paths...>", "further project-relative paths for the reviewer (read directly at nightmare)")
    .option("--wait", "block until the gate needs the author, needs a human, or ends")
    .option("--json", "print the result as JSON")
    .option("--timeout <seconds>", "with --wait: give up after this long (exit 1)", secondsArg)
    .option("--root <dir>", "project root (holds .guild/)", process.cwd())
    .action(async (artifact: string, o: ReviewOptions) => {
      const layout = new Layout(o.root);
      if (o.review && !["cross", "local", "off"].includes(o.review)) throw new Error(`--review must be cross, local or off`);
      if (o.risk && !["low", "medium", "high"].includes(o.risk)) throw new Error(`--risk must be low, medium or high`);
      const cap = o.cap;
      if (cap !== undefined && cap > 10) process.stderr.write(`warning: --cap ${cap} will be clamped to 10\n`);
      const stop = o.stop === undefined ? undefined : StopPolicy.safeParse(o.stop).data;
      if (o.stop !== undefined && !stop) throw new Error("--stop must be verdict or score");
      const difficulty = o.difficulty === undefined ? undefined : Difficulty.safeParse(o.difficulty).data;
      if (o.difficulty !== undefined && !difficulty) throw new Error("--difficulty must be medium, hard or nightmare");
      const { runId, gate, warnings } = requestReview(layout, {
        artifact,
        gate: o.gate,
        author: o.author,
        authorModel: o.authorModel,
        runId: o.runId,
        reviewer: o.reviewer,
        review: o.review,
        risk: o.risk,
        cap,
        stop,
        difficulty,
        humanCheckpoint: o.humanCheckpoint,
        paths: o.paths,
      });
      for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
      process.stderr.write(`requested: run ${runId}, gate ${gate}, ${layout.rel(layout.gateDir(runId, gate))}\n`);
      if (!o.wait) {
        process.stdout.write(
          o.json ? JSON.stringify({ run_id: runId, gate, gate_dir: layout.rel(layout.gateDir(runId, gate)) }) + "\n" : `${runId}\n`,
        );
        return;
      }
      process.exitCode = await waitForGate(layout, runId, gate, {
        json: o.json,
        timeoutMs: o.timeout === undefined ? undefined : o.timeout * 1000,
      });
    });
}
