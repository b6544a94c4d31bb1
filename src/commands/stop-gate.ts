// The author host's stop hook (`guild-bus hook stop`): while a gate the host opened waits for the author, the host
// may not end its turn — the block reason carries the findings. Opt-in (settings stop_gate.enabled, `guild-bus gate
// on`), and bounded: after max_blocks blocks of one gate the turn ends with a message saying what still waits, so a
// host is never held in a loop it can only force its way out of.
import type { BusContext } from "../bus/context.js";
import { listGates } from "../bus/gate-list.js";
import { currentGates } from "../bus/gate-history.js";
import { readTextBounded } from "../bus/read-bounded.js";
import { replace } from "../bus/replace.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { parseJsonAnswer } from "../core/json-answer.js";
import { hostKey } from "../core/host-name.js";
import { authorRevises, nextStepLine } from "../core/next-step.js";
import { shownLines } from "../core/terminal-safe.js";
import { boundedFindingLines, findingsOf } from "./findings.js";
import { viewGate } from "./gate-view.js";

export const DEFAULT_MAX_BLOCKS = 2;
const OFF = "turn it off with `guild-bus gate off` (or stop_gate.enabled false in .guild/settings.json)";

/** What the hook prints for the host to decode and show to a person: made safe here, as an MCP reply is (shownLines). */
export type StopVerdict = { block: true; reason: string } | { block: false; message: string | null };

/** The blocks counted per gate. Only counts this hook could have written are taken: a planted negative count would
 * hold a host far past max_blocks, and a nested value would overflow the rewrite. */
function blockCounts(ctx: BusContext): Record<string, number> {
  let text: string;
  try {
    text = readTextBounded(ctx.layout.stopGateState, { max: MAX_FILE_BYTES });
  } catch {
    return {}; // absent, unreadable or no regular file: no block counted yet
  }
  const answer = parseJsonAnswer(text);
  const value = answer.ok ? answer.value : null;
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, number] => Number.isSafeInteger(e[1]) && e[1] >= 0));
}

/** The host's stop being answered (Claude Code's hook input): its session, and its transcript's size at that stop. */
export interface StopEvent {
  session: string;
  transcriptBytes: number;
}

/**
 * Should `host` (the MCP client name that authored, e.g. claude-code) be kept from ending its turn? `stop`, when the
 * host says which stop this is, lets several hooks of one stop count one block.
 */
export async function stopGate(ctx: BusContext, host: string, now = Date.now(), stop: StopEvent | null = null): Promise<StopVerdict> {
  const gate = ctx.settings.stop_gate;
  if (!gate?.enabled) {
    // settings that could not be read whole may be why the gate is off: the host's user is told, not left guessing
    const problems = ctx.settingsProblems.join("; ");
    return {
      block: false,
      message: problems ? shownLines([`guild-bus: the stop gate is off while the settings have problems: ${problems}`]) : null,
    };
  }
  const max = gate.max_blocks ?? DEFAULT_MAX_BLOCKS;
  const listing = listGates(ctx.layout);
  // history is left out: the hook runs at the end of every turn, so it caught a hand-written outcome long before
  const { current } = currentGates(ctx.layout, listing.gates, now);
  const mine = current
    .map((r) => viewGate(ctx, r.runId, r.gate))
    .filter((v) => hostKey(host) !== "" && hostKey(v.snapshot.request?.author_host) === hostKey(host));
  // an ended gate whose pass does not re-derive (a hand-written outcome) is no pass either; one whose artifact was
  // edited since is history, as every later edit makes it
  const waiting = mine.filter((v) => v.decision.state === "awaiting_author" || v.unproven !== undefined);
  // a gate only a person can move (an escalation, the manual reviewer's answer, workers that do not run) cannot be
  // moved by holding the turn, but it has not passed: its person is told at every stop, as the next step says it
  const forPerson = mine
    .filter((v) => !waiting.includes(v) && v.decision.state !== "done" && v.next.person_first)
    .map((v) => `guild-bus: ${v.snapshot.runId} ${v.snapshot.gate} has not passed: ${nextStepLine(v.next)}`);
  const told = (line?: string) => (forPerson.length || line ? shownLines([...forPerson, ...(line ? [line] : [])]) : null);
  // a stop held for another gate still names them: the block's reason is that stop's message
  const held = (lines: string[]): StopVerdict => ({ block: true, reason: shownLines([...lines, ...forPerson]) });
  // a run or gate directory the bus refuses (a link put in its place) hides gates nobody can judge, whoever's they are
  const hidden = listing.ignored.filter((i) => i.hides);
  if (!waiting.length && !hidden.length) return { block: false, message: told() };
  const counts = blockCounts(ctx);
  const key = (v: (typeof waiting)[number]) => `${v.snapshot.runId}/${v.snapshot.gate}`;
  // one stop of the host counts one block, however many guild-bus hooks it runs (the plugin's and init's both):
  // a block this stop already counted is not counted again
  const mark = (counted: string) => (stop ? `${counted} ${stop.session}` : null);
  const before = (counted: string) => {
    const m = mark(counted);
    return (counts[counted] ?? 0) - (m !== null && counts[m] === stop!.transcriptBytes ? 1 : 0);
  };
  const next = waiting.find((v) => before(key(v)) < max);
  const unread = next ? undefined : hidden.find((i) => before(i.path) < max);
  if (!next && !unread) {
    const names = [...waiting.map(key), ...hidden.map((i) => i.path)].join(", ");
    return {
      block: false,
      message: told(`guild-bus: ${names} still wait(s) for you; the stop gate let the turn end after ${max} blocks (${OFF})`),
    };
  }
  const counted = next ? key(next) : unread!.path;
  const n = before(counted) + 1;
  const marked = mark(counted);
  // the counts of gates gone to history or removed, and of paths no longer refused, are let go: every host's hook reads
  // this file at every turn, and it would otherwise keep a key per gate and session the project ever blocked on
  const keptNames = [...current.map((r) => `${r.runId}/${r.gate}`), ...hidden.map((i) => i.path)];
  const kept = new Set(keptNames);
  const live = Object.entries(counts).filter(([k]) => kept.has(k) || keptNames.some((g) => k.startsWith(`${g} `)));
  const written = { ...Object.fromEntries(live), [counted]: n, ...(marked !== null ? { [marked]: stop!.transcriptBytes } : {}) };
  try {
    await replace(ctx.layout.stopGateState, JSON.stringify(written, null, 2) + "\n", { guildDir: ctx.layout.guild });
  } catch (error) {
    // a block that cannot be counted could hold the host for ever: the turn ends, and the host is told why
    const where = ctx.layout.rel(ctx.layout.stopGateState);
    return {
      block: false,
      message: shownLines([`guild-bus: ${counted} waits for you, but ${where} cannot be written (${(error as Error).message}); ${OFF}`]),
    };
  }
  if (!next) {
    const reason = [
      `guild-bus: ${unread!.path} cannot be read by the bus (${unread!.reason}), so the gates under it cannot be judged: ` +
        "restore it as a plain directory (`guild-bus check` fails them until then).",
      `Stop-gate block ${n} of ${max} for it; ${OFF}.`,
    ];
    return held(reason);
  }
  const { runId, gate: gateName } = next.snapshot;
  // the author's turn with something else to do first (restore the artifact, say) is said as the next step says it
  if (!authorRevises(next.snapshot, next.decision, next.artifact)) {
    const run = next.next.command ? ` — run: ${next.next.command}` : "";
    const reason = [
      `guild-bus: ${runId} ${gateName} has not passed: ${next.next.waiting_on}${run}.`,
      `Stop-gate block ${n} of ${max} for this gate; ${OFF}.`,
    ];
    return held(reason);
  }
  const found = findingsOf(ctx, next.snapshot, next.decision.round); // the view's snapshot: the gate is not read again
  const findings = found ? boundedFindingLines(found) : [`(round ${next.decision.round}'s result is unreadable)`];
  const reason = [
    `guild-bus: ${runId} ${gateName} is waiting for you (round ${next.decision.round}: ${next.decision.detail}).`,
    ...findings,
    "Revise the artifact to answer them, then call resubmit and wait (guild-bus MCP tools), " +
      `or \`guild-bus resubmit ${runId} ${gateName} --round ${next.decision.round}\`.`,
    `Stop-gate block ${n} of ${max} for this gate; ${OFF}.`,
  ];
  return held(reason);
}
