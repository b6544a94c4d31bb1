// A SCRIPTED reviewer for the demo and the tests: no model is called. It reads a packet on stdin and answers
// from a plan (argv[2] = plan.json) or, without one, by a fixed rule: "TBD" in the artifact is blocking.
// argv[3] = a directory that keeps a copy of every packet it received, numbered in dispatch order.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

type Behaviour =
  | "satisfied" | "issues" | "sentinel" | "sentinel-inline" | "prose" | "malformed" | "crash" | "hang"
  | "wrong-sha" | "wrong-packet" | "slow-satisfied" | "by-content";

interface Plan {
  /** Behaviour per dispatch, consumed in order (a repair call is a dispatch too); then `default`. */
  sequence?: Behaviour[];
  default?: Behaviour;
  /** How long "slow-satisfied" takes. */
  slow_ms?: number;
  /** Model id the reviewer reports in its envelope. */
  reported_model?: string;
}

const LABEL = "[scripted reviewer — not a real model]";

function field(packet: string, name: string): string {
  return new RegExp(`^${name}: (.+)$`, "m").exec(packet)?.[1]?.trim().replace(/^"|"$/g, "") ?? "";
}

function nextBehaviour(planPath: string | undefined): { behaviour: Behaviour; plan: Plan; dispatch: number } {
  if (!planPath) return { behaviour: "by-content", plan: {}, dispatch: 0 };
  const plan = JSON.parse(readFileSync(planPath, "utf8")) as Plan;
  const counter = `${planPath}.count`;
  let n = 0;
  try {
    n = Number(readFileSync(counter, "utf8")) || 0;
  } catch {
    // first dispatch
  }
  writeFileSync(counter, String(n + 1));
  return { behaviour: plan.sequence?.[n] ?? plan.default ?? "satisfied", plan, dispatch: n };
}

function envelope(packet: string, verdict: "satisfied" | "issues", blocking: Array<{ title: string; detail: string }>, plan: Plan, overrides: Record<string, string> = {}): string {
  const findings = blocking.map((b) => ({ severity: "blocking", ...b, evidence: "artifact" }));
  const body = {
    schema_version: "review_result.v1",
    packet_id: overrides.packet_id ?? field(packet, "packet_id"),
    artifact_sha256_reviewed: overrides.sha ?? field(packet, "artifact_sha256"),
    verdict,
    summary: `${LABEL} ${verdict === "satisfied" ? "No blocking findings." : `${blocking.length} blocking finding(s).`}`,
    findings,
    blocking_findings: findings,
    ...(plan.reported_model ? { reviewer_model: plan.reported_model } : {}),
  };
  return `Review follows.\n\n\`\`\`review_result.v1\n${JSON.stringify(body, null, 2)}\n\`\`\`\n`;
}

/** The fenced artifact under "## Artifact" (not the prior-round findings, which quote it). */
function artifactOf(packet: string): string {
  const after = packet.split("\n## Artifact")[1] ?? "";
  const m = /\n(`{3,})\n([\s\S]*?)\n\1\n/.exec(after);
  return m?.[2] ?? "";
}

async function main(): Promise<void> {
  const packet = readFileSync(0, "utf8");
  const [planPath, logDir] = [process.argv[2], process.argv[3]];
  const { behaviour, plan, dispatch } = nextBehaviour(planPath);
  if (logDir) {
    mkdirSync(logDir, { recursive: true });
    appendFileSync(path.join(logDir, `${String(dispatch).padStart(4, "0")}-${process.pid}.md`), packet);
  }
  const artifact = artifactOf(packet);
  switch (behaviour) {
    case "by-content":
      return void process.stdout.write(
        /\bTBD\b/.test(artifact)
          ? envelope(packet, "issues", [{ title: "Acceptance criteria left as TBD", detail: "A spec cannot pass with an undefined criterion; state measurable criteria." }], plan)
          : envelope(packet, "satisfied", [], plan),
      );
    case "satisfied": return void process.stdout.write(envelope(packet, "satisfied", [], plan));
    case "slow-satisfied": await sleep(plan.slow_ms ?? 1500); return void process.stdout.write(envelope(packet, "satisfied", [], plan));
    case "issues": return void process.stdout.write(envelope(packet, "issues", [{ title: "Scripted blocking finding", detail: "Planned by the test script." }], plan));
    case "wrong-sha": return void process.stdout.write(envelope(packet, "satisfied", [], plan, { sha: "0".repeat(64) }));
    case "wrong-packet": return void process.stdout.write(envelope(packet, "satisfied", [], plan, { packet_id: "some-other-packet" }));
    case "sentinel": return void process.stdout.write(`${LABEL}\nThe spec is complete and testable.\n\n## SATISFIED\n`);
    case "sentinel-inline": return void process.stdout.write(`${LABEL} I would say ## SATISFIED but one thing remains.\n`);
    case "prose": return void process.stdout.write(`${LABEL}\n- the plan is vague\n- criteria missing\n`);
    case "malformed": return void process.stdout.write("```review_result.v1\n{ not json\n```\n");
    case "crash": process.stderr.write("scripted crash\n"); process.exit(7);
    // falls through (exit never returns)
    case "hang": await sleep(3_600_000); return;
  }
}

await main();
