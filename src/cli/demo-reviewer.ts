// A SCRIPTED reviewer for the demo and the tests: no model is called. It reads a packet on stdin and answers
// from a plan (argv[2] = plan.json) or, without one, by a fixed rule: "TBD" in the artifact is blocking.
// argv[3] = a directory that keeps a copy of every packet it received, numbered in dispatch order.
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { print } from "./safe-output.js";

type Behaviour =
  | "satisfied"
  | "issues"
  | "sentinel"
  | "sentinel-inline"
  | "prose"
  | "malformed"
  | "crash"
  | "hang"
  | "wrong-sha"
  | "wrong-packet"
  | "slow-satisfied"
  | "by-content"
  | "rule";

/** One dispatch's answer: a behaviour, plus what the auto-review-loop modes need. */
interface Step {
  do?: Behaviour;
  /** Titles of the blocking findings ("issues"). */
  findings?: string[];
  /** Prose lines written before the envelope: `Score: <score_line>/10` and `Verdict: <verdict_line>`. */
  score_line?: string;
  verdict_line?: string;
  /** Structured fields in the envelope, as given (any JSON value). */
  score?: unknown;
  readiness?: unknown;
  memory_update?: string;
  /** "rule": the contested findings (by title) to withdraw; every other one is upheld. */
  withdraw?: string[];
}

interface Plan {
  /** Behaviour per dispatch, consumed in order (a repair call is a dispatch too); then `default`. */
  sequence?: Array<Behaviour | Step>;
  default?: Behaviour | Step;
  /** How long "slow-satisfied" takes. */
  slow_ms?: number;
  /** Model id the reviewer reports in its envelope. */
  reported_model?: string;
}

const LABEL = "[scripted reviewer — not a real model]";

function field(packet: string, name: string): string {
  return new RegExp(`^${name}: (.+)$`, "m").exec(packet)?.[1]?.trim().replace(/^"|"$/g, "") ?? "";
}

/** The next dispatch number, taken by creating its file exclusively: reviewers running side by side
 * (several workers) never share a number, as a read-then-write counter would let them. */
function claimDispatch(dir: string): number {
  mkdirSync(dir, { recursive: true });
  for (let n = 0; ; n++) {
    try {
      closeSync(openSync(path.join(dir, String(n)), "wx"));
      return n;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

function nextStep(planPath: string | undefined): { step: Step; plan: Plan; dispatch: number } {
  if (!planPath) return { step: { do: "by-content" }, plan: {}, dispatch: 0 };
  const plan = JSON.parse(readFileSync(planPath, "utf8")) as Plan;
  const n = claimDispatch(`${planPath}.dispatches`);
  const step = plan.sequence?.[n] ?? plan.default ?? "satisfied";
  return { step: typeof step === "string" ? { do: step } : step, plan, dispatch: n };
}

interface Answer {
  verdict: "satisfied" | "issues";
  blocking: Array<{ title: string; detail: string }>;
  extra?: Record<string, unknown>;
  overrides?: Record<string, string>;
}

function envelope(packet: string, a: Answer, plan: Plan, step: Step): string {
  const findings = a.blocking.map((b) => ({ severity: "blocking", ...b, evidence: "artifact" }));
  const body = {
    schema_version: "review_result.v1",
    packet_id: a.overrides?.packet_id ?? field(packet, "packet_id"),
    artifact_sha256_reviewed: a.overrides?.sha ?? field(packet, "artifact_sha256"),
    verdict: a.verdict,
    summary: `${LABEL} ${a.verdict === "satisfied" ? "No blocking findings." : `${a.blocking.length} blocking finding(s).`}`,
    findings,
    blocking_findings: findings,
    ...(plan.reported_model ? { reviewer_model: plan.reported_model } : {}),
    ...(step.score !== undefined ? { score: step.score } : {}),
    ...(step.readiness !== undefined ? { readiness: step.readiness } : {}),
    ...(step.memory_update !== undefined ? { memory_update: step.memory_update } : {}),
    ...a.extra,
  };
  const prose = [
    ...(step.score_line !== undefined ? [`Score: ${step.score_line}/10`] : []),
    ...(step.verdict_line !== undefined ? [`Verdict: ${step.verdict_line}`] : []),
  ];
  const fenced = `\`\`\`review_result.v1\n${JSON.stringify(body, null, 2)}\n\`\`\`\n`;
  return `Review follows.\n\n${prose.length ? prose.join("\n") + "\n\n" : ""}${fenced}`;
}

/** The fenced artifact under "## Artifact" (not the prior-round findings, which quote it). */
function artifactOf(packet: string): string {
  const after = packet.split("\n## Artifact")[1] ?? "";
  const m = /\n(`{3,})\n([\s\S]*?)\n\1\n/.exec(after);
  return m?.[2] ?? "";
}

/** The titles of the findings a ruling packet asks about (`### Finding <n>: <title>`). */
function contestedOf(packet: string): string[] {
  const section = packet.split("\n## Contested findings")[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/^### Finding \d+: (.+)$/gm)].map((m) => m[1]!);
}

function rule(packet: string, step: Step): Answer {
  const rulings = contestedOf(packet).map((finding) => {
    const withdrawn = step.withdraw?.includes(finding) ?? false;
    return {
      finding,
      ruling: withdrawn ? "withdrawn" : "upheld",
      reason: withdrawn ? "the rebuttal holds against the artifact" : "the artifact still shows it",
    };
  });
  const upheld = rulings.filter((r) => r.ruling === "upheld").map((r) => ({ title: r.finding, detail: "Upheld after the rebuttal." }));
  return { verdict: upheld.length ? "issues" : "satisfied", blocking: upheld, extra: { rulings } };
}

async function main(): Promise<void> {
  const packet = readFileSync(0, "utf8");
  const [planPath, logDir] = [process.argv[2], process.argv[3]];
  const { step, plan, dispatch } = nextStep(planPath);
  if (logDir) {
    mkdirSync(logDir, { recursive: true });
    appendFileSync(path.join(logDir, `${String(dispatch).padStart(4, "0")}-${process.pid}.md`), packet);
  }
  const artifact = artifactOf(packet);
  const answer = (a: Answer) => void print("stdout", envelope(packet, a, plan, step));
  const findings = (step.findings ?? ["Scripted blocking finding"]).map((title) => ({ title, detail: "Planned by the test script." }));
  switch (step.do ?? "satisfied") {
    case "by-content":
      return /\bTBD\b/.test(artifact)
        ? answer({
            verdict: "issues",
            blocking: [
              {
                title: "Acceptance criteria left as TBD",
                detail: "A spec cannot pass with an undefined criterion; state measurable criteria.",
              },
            ],
          })
        : answer({ verdict: "satisfied", blocking: [] });
    case "satisfied":
      return answer({ verdict: "satisfied", blocking: [] });
    case "slow-satisfied":
      await sleep(plan.slow_ms ?? 1500);
      return answer({ verdict: "satisfied", blocking: [] });
    case "issues":
      return answer({ verdict: "issues", blocking: findings });
    case "rule":
      return answer(rule(packet, step));
    case "wrong-sha":
      return answer({ verdict: "satisfied", blocking: [], overrides: { sha: "0".repeat(64) } });
    case "wrong-packet":
      return answer({ verdict: "satisfied", blocking: [], overrides: { packet_id: "some-other-packet" } });
    case "sentinel":
      return void print("stdout", `${LABEL}\nThe spec is complete and testable.\n\n## SATISFIED\n`);
    case "sentinel-inline":
      return void print("stdout", `${LABEL} I would say ## SATISFIED but one thing remains.\n`);
    case "prose":
      return void print("stdout", `${LABEL}\n- the plan is vague\n- criteria missing\n`);
    case "malformed":
      return void print("stdout", "```review_result.v1\n{ not json\n```\n");
    case "crash":
      print("stderr", "scripted crash\n");
      process.exit(7);
    // falls through (exit never returns)
    case "hang":
      await sleep(3_600_000);
      return;
  }
}

await main();
