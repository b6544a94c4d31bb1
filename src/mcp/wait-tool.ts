// The MCP `wait` tool: follows a gate with the command layer's waitGate, sends progress notifications (round, state,
// whom it waits for, elapsed) while it runs, and answers before the client's own tool timeout with still_running
// rather than being killed. It never answers a pass the gate did not give: the outcome is read from the files.
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { loadContext } from "../bus/context.js";
import { loadSettings } from "../bus/settings.js";
import { settingsRefusal } from "../bus/settings-file.js";
import type { Layout } from "../bus/layout.js";
import { boundedFindingLines, findingsOf } from "../commands/findings.js";
import { waitGate } from "../commands/wait.js";
import { failure, reply } from "./reply.js";
import { shownLines } from "../core/terminal-safe.js";
import type { GateView } from "../commands/gate-view.js";
import { type NextStep, nextStepLine } from "../core/next-step.js";

const PROGRESS_EVERY_MS = 5_000;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export async function waitTool(
  layout: Layout,
  a: { run_id: string; gate: string; timeout_seconds: number },
  extra: Extra,
): Promise<CallToolResult> {
  const started = performance.now(); // monotonic, as waitGate's timeout
  const token = extra._meta?.progressToken;
  let sent = 0;
  let latest = "waiting";
  const progress = (message: string) => {
    // the heartbeat repeats where the gate stands (its state, whom it waits for), not a note or warning said once
    if (!/^(\[[^\]]*\] )?(note|warn): /.test(message)) latest = message;
    if (token === undefined) return;
    const elapsed = Math.round((performance.now() - started) / 1000);
    void extra
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: ++sent, message: shownLines([`${message} (${elapsed} s)`]) }, // shown as a reply is
      })
      .catch(() => undefined); // a client gone mid-wait: the answer below is what matters
  };
  const beat = setInterval(() => progress(latest), PROGRESS_EVERY_MS);
  try {
    const { view, timedOut, next } = await waitGate(layout, a.run_id, a.gate, {
      timeoutMs: a.timeout_seconds * 1000,
      note: progress,
      signal: extra.signal,
    });
    if (timedOut) return stillRunning(view, next, started);
    // an ended gate is never judged on settings the project did not write, as `check` and the CLI's `wait` refuse them:
    // a key dropped for one bad value (family_aliases, say) falls back to defaults, under which a pass the project's
    // settings do not re-derive would be answered as exit_code 0
    const refusal = settingsRefusal(layout, loadSettings(layout).problems);
    if (refusal) return failure(`${refusal}; the gate was not judged — tell the user to fix the settings, then call wait again`);
    return stopped(layout, view);
  } catch (error) {
    return failure((error as Error).message); // no such gate: a tool error the model reads, never "call wait again"
  } finally {
    clearInterval(beat);
  }
}

function stillRunning(view: GateView, next: NextStep, started: number): CallToolResult {
  const o = view.output;
  const elapsed = Math.round((performance.now() - started) / 1000);
  // the next step says whether waiting alone moves the gate: a person's step has a command to run (the manual
  // reviewer's answer, a worker to start) or says what to do (a path only a person can clear, a refused write)
  const ask = !next.person_first
    ? "No outcome yet: "
    : next.command
      ? "A person must act first: ask the user to run that command, then "
      : "A person must act first: tell the user what it waits for, then ";
  const text =
    `still running after ${elapsed} s: round ${o.round}, ${o.state} — ${nextStepLine(next)}. ` +
    `${ask}call wait again with run_id ${o.run_id} and gate ${o.gate}.`;
  return reply([text], { still_running: true, outcome: null, gate: o, waiting: next });
}

/** What the author should do next, by the exit code `review --wait` would give. */
const NEXT: Record<number, string> = {
  0: "the gate ended; report its status exactly as given",
  2: "the gate passed other bytes than the artifact holds now: do not report the artifact as reviewed; request a new review of it",
  3: "revise the artifact to answer every blocking finding, then call resubmit, then wait",
  4: "a human decision is needed: ask the user, then call decide with the option they chose",
};

/** decide refuses to name no round past round 1: the round goes with every call the client is told to make. */
const withRound = (round: number) => ` and round ${round}`;

/** No reviewer could run (5): what the escalation offers, and a person's own answer where the gate can take one. */
function unavailableNext(view: GateView, options: string[]): string {
  const enable = "no reviewer could run: ask the user to enable one (see the providers tool)";
  // a quorum is never answered by the manual reviewer (SPEC §26)
  const manual = view.snapshot.request?.quorum ? "" : "; or to answer it themselves: request the review again with reviewer manual";
  const round = withRound(view.decision.round);
  if (options.includes("retry")) return `${enable}, then call decide with retry${round}${manual}`;
  return (
    `${enable}, then call decide with ${options.join(" or ") || "rework"}${round} and request the review again under a new run id` + manual
  );
}

/** A human decision (4): what the client may answer with decide, and what only the user can (SPEC §25): force-pass,
 * and any answer to a human checkpoint, are refused to a client, so the next step never tells it to call them. */
function decisionNext(view: GateView, options: string[]): string {
  const o = view.output;
  const round = view.decision.round; // bound: a copied command never answers a round the user has not seen
  const reason = view.snapshot.escalations.get(round)?.reason;
  if (reason === "human_checkpoint")
    return (
      "a human decision is needed: this human checkpoint is the user's to answer, not yours (decide refuses it): show them the " +
      `round (call findings), then ask them to run \`guild-bus decide ${o.run_id} ${o.gate} ${options.join("|")} --round ${round}\` ` +
      "in a terminal or to use the review console"
    );
  if (!options.includes("force-pass")) return NEXT[4]! + withRound(round);
  return (
    `${NEXT[4]!}${withRound(round)}; force-pass is theirs to run ` +
    `(\`guild-bus decide ${o.run_id} ${o.gate} force-pass --round ${round}\` in a terminal or the review console): decide refuses it`
  );
}

/** The next step for the author model: by exit code, except where the gate says otherwise (an ended rework, a file to
 * restore before a retried round can go out, an outcome that does not re-derive). */
function nextFor(view: GateView, code: number, options: string[]): string {
  const ended = view.snapshot.outcome;
  if (view.unproven) return view.next.waiting_on;
  // 2 with no outcome: a gate directory the bus does not read, which waiting will never move
  if (code === 2 && !ended) return `A person must act first: tell the user the gate is ${nextStepLine(view.next)}`;
  if (code === 3 && ended) return `the gate ended ${ended.status}: revise the artifact, then request a new review`;
  if (code === 3 && view.next.command === null) return view.next.waiting_on;
  if (code === 5) return unavailableNext(view, options);
  if (code === 4) return decisionNext(view, options);
  return NEXT[code] ?? NEXT[0]!;
}

function stopped(layout: Layout, view: GateView): CallToolResult {
  const o = view.output;
  const code = view.exitCode!;
  const s = view.snapshot;
  const escalation = s.escalations.get(view.decision.round);
  const findings = code === 3 && view.decision.state === "awaiting_author" ? findingsOf(loadContext(layout), s, view.decision.round) : null;
  // a decision to ask the user for: an escalation (4), or no reviewer that could run (5)
  const options = escalation && (code === 4 || code === 5) ? escalation.options : [];
  const next = nextFor(view, code, options);
  // the outcome's own word only while it re-derives from the gate's files (SPEC §17)
  const ended = s.outcome && (view.unproven ? "unproven" : s.outcome.status);
  // a pass of bytes the artifact no longer holds (2) is said as one on the very line that names it: "outcome:
  // satisfied" alone is what an author model is told to look for before it reports the artifact as reviewed
  const otherBytes = code === 2 && !view.unproven;
  const lines = [
    `${o.run_id} ${o.gate}: ${o.status} at round ${o.round} — ${o.detail}`,
    ended
      ? `outcome: ${ended} (independence ${o.independence ?? "n/a"})` +
        (otherBytes ? ` — of other bytes than the artifact holds now: the artifact as it is was not passed` : "")
      : "no outcome yet",
    ...(findings ? boundedFindingLines(findings) : []),
    options.length ? `options: ${options.join(", ")}` : "",
    `Next: ${next}.`,
  ].filter(Boolean); // one line each (reply): a detail from a planted file cannot add a line the author model reads as ours
  return reply(lines, {
    still_running: false,
    outcome:
      s.outcome && ended
        ? {
            status: ended,
            final_round: s.outcome.final_round,
            independence: o.independence,
            // whether the pass is of the bytes the artifact holds now
            artifact_unchanged: !otherBytes,
          }
        : null,
    exit_code: code,
    gate: o,
    findings: findings ? { round: findings.round, verdict: findings.verdict, summary: findings.summary, list: findings.findings } : null,
    options,
    next,
  });
}
