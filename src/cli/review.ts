// guild-bus review: deliver request.json for a gate (and run.json for a new run); optionally wait for it.
import { existsSync, statSync } from "node:fs";
import type { Command } from "commander";
import { customAlphabet } from "nanoid";
import { Layout } from "../layout.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { Request, RunMeta } from "../spec/schemas.js";
import { deliver } from "../store/deliver.js";
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
}

/** Deliver run.json (first request of a run) and request.json; a gate is requested once per run. */
export function requestReview(layout: Layout, p: ReviewParams): { runId: string; gate: string } {
  const gate = assertGate(p.gate);
  const runId = assertRunId(p.runId ?? newRunId());
  const abs = layout.artifact(p.artifact);
  if (!existsSync(abs) || !statSync(abs).isFile()) throw new Error(`artifact not found: ${p.artifact}`);
  layout.readableArtifact(p.artifact); // a symlink leading out of the project is refused now, not at packet time
  const now = new Date().toISOString();
  const opts = { guildDir: layout.guild };
  deliver(layout.runMeta(runId), JSON.stringify(RunMeta.parse({ schema_version: "guild_bus.run.v1", run_id: runId, created_at: now, created_by: p.author }), null, 2) + "\n", opts);
  const request = Request.parse({
    schema_version: "guild_bus.request.v1", run_id: runId, gate, artifact_path: layout.rel(abs), author_host: p.author,
    ...(p.authorModel ? { author_model: p.authorModel } : {}), reviewer: p.reviewer ?? "auto",
    ...(p.review ? { review: p.review } : {}), ...(p.risk ? { risk: p.risk } : {}), ...(p.cap ? { cap: p.cap } : {}), requested_at: now,
  });
  const r = deliver(layout.gateFile(runId, gate, "request.json"), JSON.stringify(request, null, 2) + "\n", opts);
  if (r.status === "conflict") throw new Error(`${runId} ${gate} already has a request; a gate is reviewed once per run — use another --run-id`);
  return { runId, gate };
}

interface ReviewOptions {
  gate: string;
  author: string;
  authorModel?: string;
  runId?: string;
  reviewer: string;
  review?: "cross" | "local" | "off";
  risk?: "low" | "medium" | "high";
  cap?: string;
  wait?: boolean;
  json?: boolean;
  root: string;
  timeout?: string;
}

export function register(program: Command): void {
  program
    .command("review")
    .description("request a review of an artifact at a gate (workers started by `guild-bus up` carry it out)")
    .argument("<artifact>", "the artifact, inside the project")
    .requiredOption("--gate <gate>", "G-init G-spec G-plan G-quality G-operations G-diagnose or G-lane:<id>")
    .requiredOption("--author <host>", "the host that wrote it (claude, codex, gemini, …)")
    .option("--author-model <model>", "the exact model that wrote it (decides the author family when known)")
    .option("--run-id <id>", "run to file it under (default: a new run)")
    .option("--reviewer <provider>", "auto, or a provider id to pin", "auto")
    .option("--review <mode>", "cross | local | off")
    .option("--risk <level>", "low | medium | high (high makes review required)")
    .option("--cap <n>", "round cap (default settings codex_cap, else 5; max 10)")
    .option("--wait", "block until the gate needs the author, needs a human, or ends")
    .option("--json", "print the result as JSON")
    .option("--timeout <seconds>", "with --wait: give up after this long (exit 1)")
    .option("--root <dir>", "project root (holds .guild/)", process.cwd())
    .action(async (artifact: string, o: ReviewOptions) => {
      const layout = new Layout(o.root);
      if (o.review && !["cross", "local", "off"].includes(o.review)) throw new Error(`--review must be cross, local or off`);
      if (o.risk && !["low", "medium", "high"].includes(o.risk)) throw new Error(`--risk must be low, medium or high`);
      const cap = o.cap === undefined ? undefined : Number(o.cap);
      if (cap !== undefined && (!Number.isInteger(cap) || cap < 1)) throw new Error(`--cap must be a positive integer`);
      if (cap !== undefined && cap > 10) process.stderr.write(`warning: --cap ${cap} will be clamped to 10\n`);
      const { runId, gate } = requestReview(layout, {
        artifact, gate: o.gate, author: o.author, authorModel: o.authorModel, runId: o.runId, reviewer: o.reviewer,
        review: o.review, risk: o.risk, cap,
      });
      process.stderr.write(`requested: run ${runId}, gate ${gate}, ${layout.rel(layout.gateDir(runId, gate))}\n`);
      if (!o.wait) {
        process.stdout.write(o.json ? JSON.stringify({ run_id: runId, gate, gate_dir: layout.rel(layout.gateDir(runId, gate)) }) + "\n" : `${runId}\n`);
        return;
      }
      process.exitCode = await waitForGate(layout, runId, gate, { json: o.json, timeoutMs: o.timeout ? Number(o.timeout) * 1000 : undefined });
    });
}
