// What a gate waits on, and the exact command or file that moves it: so that no wait is ever silent.
import type { GateDecision } from "./decide.js";
import { contestRefusal, openRound, roundMembers, roundPacket, roundPackets, validDecision } from "./gate-queries.js";
import type { ResolvedPolicy } from "./policy.js";
import { packetMember, slotFile } from "./slot-file.js";
import { type GateSnapshot, problemText } from "./snapshot.js";
import type { StuckGate } from "./stuck.js";
import { type ArtifactView, redactedNote } from "./artifact-view.js";
import { changedSinceSent, passNoLongerHolds } from "./sent-bytes.js";
import { MAX_EXTEND_BY } from "../spec/constants.js";
import { dispatchedByBus } from "./adapter-kinds.js";
import { heldWords } from "./held-round.js";
import { type Advert, servedByWords } from "./advertised.js";

/** Which workers run on the tree (their heartbeats), as the caller can tell: a wait on a worker nobody runs is no wait. */
export interface WorkerPresence {
  running(kind: string): boolean;
  /** How long a `guild-bus up` has supervised the tree, in ms; null when none does. */
  supervisedFor(): number | null;
  /** The live reviewer workers of `kind` that say they run `provider` on their machines (SPEC §18). */
  servedBy?(kind: string, provider: string): Advert[];
  /** Every live reviewer worker of `kind` that says what it runs. */
  advertising?(kind: string): Advert[];
  /** The pids of this machine's workers of `kind` that run but no longer say they are alive (stopped, hung). */
  unresponsive?(kind: string): number[];
  /** What the live workers of `kind` say they keep failing to do for this gate (SPEC §18), each with its presence name. */
  stuckOn?(kind: string, runId: string, gate: string): Array<Omit<StuckGate, "run_id" | "gate"> & { peer: string }>;
}

export interface NextStep {
  /** Who the gate waits on, in words: "the broker", "reviewer codex (gpt-5)", "a person (the manual reviewer)", "the author"… */
  waiting_on: string;
  /** The exact command (or file to write) that moves the gate when it waits on a person; null when a worker moves it. */
  command: string | null;
  /** Whether nothing moves until a person acts (runs `command`, or does what `waiting_on` says): waiting alone won't. */
  person_first: boolean;
  /** The open round's packet and result paths, project-relative (the result may not exist yet). */
  packet_path: string | null;
  result_path: string | null;
  /** The escalation a human answers now, with the choices it offers. */
  escalation: { round: number; reason: string; detail: string; options: string[] } | null;
  /** Why the reviewer is not the one the request would have had: a degraded selection, a reviewer that failed first. */
  notes: string[];
}

const WORKER_STATES = new Set(["broker", "verifying", "normalizing"]);

/** The reviewer a packet addresses, in words. */
function reviewerWords(p: { reviewer_provider: string; reviewer_model: string | null }): string {
  return `reviewer ${p.reviewer_provider}${p.reviewer_model ? ` (${p.reviewer_model})` : ""}`;
}

/** Notes on how the open round's reviewer came to be chosen: every earlier reviewer that failed, and a weak selection. */
function selectionNotes(s: GateSnapshot, round: number): string[] {
  const notes = [...s.failures.values()]
    .filter((f) => f.round <= round && f.kind === "unavailable")
    .map((f) => {
      const then = f.round < round ? "; the broker selected again without it" : "";
      return `round ${f.round}: reviewer ${f.reviewer_provider ?? "?"} could not run (${f.reason})${then}`;
    });
  const p = s.packets.get(round);
  if (p && p.selection_status !== "selected") notes.push(`no cross-family reviewer: ${p.selection_reason}`);
  // while the person has yet to answer: an ended gate, or an answered round, waits for no one there
  if (p?.reviewer_adapter === "manual" && notes.length && !s.outcome && !s.results.has(round))
    notes.push("the review fell to the manual reviewer: a person must answer");
  return notes;
}

/** A read the system failed (EIO, ESTALE…) holds every worker back until it works, so a lasting one needs a person. */
export function readFaultWait(s: GateSnapshot): string | null {
  const fault = s.problems.find((p) => p.fault);
  return fault
    ? `the system to read ${fault.file} again (${fault.reason}); the workers keep trying — if it lasts, a person must check ` +
        "the disk or the mount"
    : null;
}

/** A path the bus writes made unusable (a directory at `trail.md`, a symlinked `rejected/`): only a person can clear it. */
export function blockedWait(s: GateSnapshot): string | null {
  // a request.json that is there but cannot be used (unreadable, invalid) is no gate waiting for a request: it says why
  const blocked = s.problems.find((p) => p.file === "." || p.blocks || (p.file === "request.json" && !s.request));
  return blocked ? `a human: ${problemText(blocked)}` : null;
}

/** An ended gate whose pass no longer holds for the bytes now in the tree: the author's, to request a new review. */
export function stalePassWait(s: GateSnapshot, artifact: ArtifactView): string | null {
  const stale = s.outcome && passNoLongerHolds(s.outcome, artifact);
  return stale ? `the author: the gate has ended, but ${stale}` : null;
}

/**
 * Whether the gate waits for its artifact to be readable again before the round a person chose (`retry`) can go out:
 * the author's to fix, by restoring the file, with no command; the round starts by itself.
 */
export function artifactWait(s: GateSnapshot, d: GateDecision, artifact: ArtifactView): string | null {
  if (d.state !== "awaiting_author" || artifact.ok || validDecision(s, d.round)?.choice !== "retry") return null;
  const file = s.request?.artifact_path ?? "the artifact";
  return `the author: ${file} cannot be read (${artifact.detail}); restore it and the retried round starts by itself`;
}

/**
 * Why the artifact cannot go out in the author's next round now (gone, not text, too large…), or null: the author's to
 * restore or fix before `resubmit`, which would otherwise issue nothing and escalate to a person.
 */
export function artifactUnusable(s: GateSnapshot, artifact: ArtifactView): string | null {
  return artifact.ok ? null : `${s.request?.artifact_path ?? "the artifact"} cannot be read (${artifact.detail})`;
}

/**
 * Whether the author's next step is to revise the artifact and resubmit: its turn, and nothing else in the way (a read
 * the system failed, a path only a person can clear, a file to restore before a retried round). The one rule for the
 * next step's resubmit command and for the stop hook's "revise, then resubmit".
 */
export function authorRevises(s: GateSnapshot, d: GateDecision, artifact: ArtifactView): boolean {
  return d.state === "awaiting_author" && !readFaultWait(s) && !blockedWait(s) && !artifactWait(s, d, artifact);
}

/** A second rebuttal of the open round, refused (SPEC §21: once per round); null while the round has none. */
export function secondRebuttal(s: GateSnapshot): string | null {
  const latest = openRound(s);
  return s.rebuttals.has(latest) ? `one rebuttal per round: rebuttal-${latest}.md already exists` : null;
}

/**
 * Why the author may not contest round `round`'s findings now, or null when it may (whose turn it is aside): once per
 * round, contestRefusal, and only while the artifact holds the bytes the round sent (a rebuttal is ruled on those).
 * The one rule for `rebut`, the console's rebut form and the words that offer a rebuttal.
 */
export function rebutRefusal(
  s: GateSnapshot,
  round: number,
  policy: Pick<ResolvedPolicy, "difficulty">,
  artifact: ArtifactView,
): string | null {
  const refused = secondRebuttal(s) ?? contestRefusal(s, round, policy);
  if (refused) return refused;
  const sent = roundPacket(s, round);
  if (sent && changedSinceSent(sent, artifact))
    return (
      `the artifact changed since round ${round} was sent, and a rebuttal is ruled on round ${round}'s bytes only: ` +
      `resubmit the revised artifact (a full round), or restore round ${round}'s bytes to contest its findings`
    );
  return null;
}

/**
 * Whether the gate waits for a person to answer its open round as the manual reviewer (`respond`, or a response file):
 * the one rule for the next step and for the console's "waiting for a person" list.
 */
export function awaitsManualAnswer(s: GateSnapshot, d: GateDecision): boolean {
  if (["done", "no_request", "awaiting_decision", "awaiting_author"].includes(d.state) || WORKER_STATES.has(d.state)) return false;
  if (readFaultWait(s) || blockedWait(s) || d.held?.length) return false;
  return roundPackets(s, openRound(s))[0]?.reviewer_adapter === "manual";
}

/**
 * The next step of a gate, from its snapshot, decision and the artifact as it is now; `gateDir` is the gate directory,
 * project-relative; `workers`, when given, tells which workers run.
 */
export function nextStep(s: GateSnapshot, d: GateDecision, gateDir: string, artifact: ArtifactView, workers?: WorkerPresence): NextStep {
  const round = openRound(s);
  const reviewers = roundPackets(s, round);
  const p = reviewers[0];
  const ids = `${s.runId} ${s.gate}`;
  const packet_path = p ? `${gateDir}/${slotFile("packet", round, packetMember(p))}` : null;
  const result_path = p ? `${gateDir}/${slotFile("result", round, packetMember(p))}` : null;
  const redacted = redactedNote(artifact);
  const base = { packet_path, result_path, escalation: null, notes: [...selectionNotes(s, round), ...(redacted ? [redacted] : [])] };
  if (d.state === "done") {
    const stale = stalePassWait(s, artifact);
    return { ...base, waiting_on: stale ?? "nothing (the gate has ended)", command: null, person_first: stale !== null };
  }
  const fault = readFaultWait(s);
  if (fault) return { ...base, waiting_on: fault, command: null, person_first: false }; // the workers try again
  const blocked = blockedWait(s);
  if (blocked) return { ...base, waiting_on: blocked, command: null, person_first: true };
  if (d.state === "no_request")
    return {
      ...base,
      waiting_on: "a request",
      command: `guild-bus review <artifact> --gate ${s.gate} --author <host>`,
      person_first: true,
    };
  if (d.state === "awaiting_decision") {
    const e = s.escalations.get(d.round);
    const options = e?.options ?? [];
    const choices = options.map((o) => (o === "extend-cap" ? `extend-cap <1-${MAX_EXTEND_BY}>` : o)).join("|");
    return {
      ...base,
      waiting_on: "a human decision",
      command: `guild-bus decide ${ids} ${choices || "<choice>"} --round ${d.round}`,
      person_first: true,
      escalation: e ? { round: d.round, reason: e.reason, detail: e.detail, options } : null,
    };
  }
  const restore = artifactWait(s, d, artifact);
  if (restore) return { ...base, waiting_on: restore, command: null, person_first: true };
  if (authorRevises(s, d, artifact)) {
    const unusable = artifactUnusable(s, artifact);
    return {
      ...base,
      waiting_on: unusable ? `the author: ${unusable}; restore or fix it, then resubmit` : "the author",
      command: `guild-bus resubmit ${ids} --round ${d.round} (after revising the artifact)`,
      person_first: true,
    };
  }
  const refill = retriedQuorumToFill(s, d);
  if (refill) return withIdle({ ...base, waiting_on: refill, command: "guild-bus providers", person_first: true }, ["broker"], workers, s);
  // a round whose worker waits for the broker is said reviewer by reviewer (below): the broker, and why
  if ((WORKER_STATES.has(d.state) && !d.held?.length) || !p) {
    const kind = d.state === "normalizing" ? "manual" : d.state === "verifying" ? "verifier" : "broker";
    const on = `the ${kind === "manual" ? "manual worker" : kind}`;
    return withIdle({ ...base, waiting_on: on, command: null, person_first: false }, [kind], workers, s);
  }
  if (awaitsManualAnswer(s, d)) {
    return {
      ...base,
      waiting_on: "a person (the manual reviewer)",
      command:
        `guild-bus respond ${ids} --round ${round} --reviewer-model <model> --file <review.md>` +
        ` (the packet to review: ${packet_path}; or write ${gateDir}/response-${round}.md, its first line` +
        " `Reviewer-Model: <model>`)",
      person_first: true,
    };
  }
  // a quorum round waits on each of its reviewers: `up` runs those the bus dispatches, a process of its own the others
  // one that live reviewer workers say they run names them (and their machines): the one to look at is there
  const slotsOf = (r: (typeof reviewers)[number]) => {
    const member = packetMember(r);
    return member === null ? s : s.members.get(member);
  };
  // a member whose result is in waits on the verifier, as a single reviewer's round would (`verifying`): while another
  // member still reviews, that worker is named too (a quorum has no manual member, so no response to normalize)
  const servedBy = (r: (typeof reviewers)[number]) => workers?.servedBy?.(r.reviewer_adapter, r.reviewer_provider) ?? [];
  // one whose worker waits for the broker to act first (its family maps lost, a file in its way) waits on the broker
  const held = d.held ?? [];
  const moving = reviewers.filter((r) => !held.some((h) => h.member === packetMember(r)));
  const answered = moving.filter((r) => {
    const slots = slotsOf(r);
    return slots?.results.has(round) && !slots.verdicts.has(round) && !slots.failures.has(round) && !slots.brokenSeals.has(round);
  });
  const byBus = moving.filter((r) => !answered.includes(r) && dispatchedByBus(r.reviewer_adapter) && !servedBy(r).length);
  const advertised = moving.filter((r) => !answered.includes(r) && dispatchedByBus(r.reviewer_adapter) && servedBy(r).length);
  const outside = moving.filter((r) => !answered.includes(r) && !dispatchedByBus(r.reviewer_adapter));
  // a worker started on its own (the demo's, one started by hand) before it advertises what it runs: that worker, not `up`;
  // not one that says it runs other providers only (started with --provider)
  const runner = (kind: string) => {
    if (!workers || workers.supervisedFor() !== null || !workers.running(kind)) return "`guild-bus up`";
    const others = [...new Set((workers.advertising?.(kind) ?? []).flatMap((a) => a.providers))].sort();
    return others.length ? `\`guild-bus up\` (the running ${kind} worker runs only ${others.join(", ")})` : `the ${kind} worker`;
  };
  const runners = [...new Set(byBus.map((r) => runner(r.reviewer_adapter)))];
  const parts = [
    ...(held.length ? [heldWords(held)] : []),
    ...advertised.map((r) => `${reviewerWords(r)}, run by ${servedByWords(r.reviewer_adapter, servedBy(r))}`),
    ...runners.map(
      (who) =>
        `${byBus
          .filter((r) => runner(r.reviewer_adapter) === who)
          .map(reviewerWords)
          .join(", ")}, run by ${who}`,
    ),
    ...outside.map((r) => {
      const result = `${gateDir}/${slotFile("result", round, packetMember(r))}`;
      const writes = `${reviewerWords(r)}, answered outside the bus (its own process writes ${result})`;
      // a process that began the round and died leaves it waiting on nobody: its restart ends it (SPEC §18 B, step 4)
      const began = slotsOf(r)?.attempts.has(round) ? slotFile("attempt", round, packetMember(r)) : null;
      return began
        ? `${writes}; it recorded ${began}: if that process is no longer running, start it again — it ends the round ` +
            `with ${slotFile("failure", round, packetMember(r))} (no_verdict) and a person decides`
        : writes;
    }),
    ...answered.map((r) => `${reviewerWords(r)}: result delivered, waiting for the verifier`),
  ];
  const waiting = { ...base, waiting_on: parts.join("; "), command: null, person_first: false };
  const unanswered = moving.filter((r) => {
    const slots = slotsOf(r);
    return dispatchedByBus(r.reviewer_adapter) && !slots?.results.has(round) && !slots?.failures.has(round);
  });
  const kinds = [
    ...(held.length ? ["broker"] : []),
    ...unanswered.map((r) => r.reviewer_adapter),
    ...(answered.length ? ["verifier"] : []),
  ];
  return withIdle(waiting, [...new Set(kinds)], workers, s);
}

/**
 * A retried quorum round that must select reviewers beyond those it keeps: the broker issues it only once reviewers of
 * other families are available, and meanwhile writes nothing (SPEC §26) — so the wait names what it needs and where to
 * look, never a bare "the broker", which would leave a person waiting on a worker that waits on them.
 */
function retriedQuorumToFill(s: GateSnapshot, d: GateDecision): string | null {
  const a = d.state === "broker" ? d.action : null;
  const q = a?.type === "packet" ? a.quorum : undefined;
  if (!a || !q || roundMembers(s, a.round).length || !s.escalations.has(a.round - 1) || q.keep.length >= q.rule.of) return null;
  const more = q.rule.of - q.keep.length;
  const kept = q.keep.map((p) => `${p.reviewer_provider} (${p.reviewer_family})`).join(", ") || "none";
  return (
    `the broker to select ${more} more reviewer${more === 1 ? "" : "s"} of families not yet in round ${a.round} ` +
    `(quorum ${q.rule.need}/${q.rule.of}; it keeps ${kept}): until reviewers of other families are available it issues ` +
    "nothing and waits — configure or enable one"
  );
}

/** How long an `up` may take to start its workers (and one the settings just added) before a missing one is said. */
export const SUPERVISOR_START_MS = 30_000;

/**
 * A wait on a worker kind nobody runs says so, with the command that starts it: `up` when none runs (a first run);
 * while one runs, only once it had time to start that kind (it gave it up, say: its log tells why), that worker
 * beside it.
 */
function withIdle(next: NextStep, kinds: string[], workers: WorkerPresence | undefined, s: GateSnapshot): NextStep {
  // a worker that runs but keeps failing on this gate (a fault that does not pass by itself, a bug) is named with its
  // error: "waiting for the verifier" alone would have a person wait on a retry that cannot succeed
  const failing = workers?.stuckOn ? kinds.flatMap((kind) => workers.stuckOn!(kind, s.runId, s.gate).map((g) => ({ kind, ...g }))) : [];
  if (failing.length) {
    const { kind, peer, tries, since, error } = failing[0]!;
    return {
      ...next,
      waiting_on:
        `${next.waiting_on}, but the ${kind} worker ${peer} has failed on this gate ${tries} times in a row since ${since}: ` +
        `${error} — it keeps trying; fix what the error names (its log has more), or ask for help with it`,
      person_first: true,
    };
  }
  const idle = workers ? kinds.filter((kind) => !workers.running(kind)) : [];
  if (!idle.length) return next;
  // one that runs but stopped saying so holds what it claimed: it is the one to look at, not a missing worker
  const stuck = idle.flatMap((kind) => (workers!.unresponsive?.(kind) ?? []).map((pid) => ({ kind, pid })));
  if (stuck.length) {
    const { kind, pid } = stuck[0]!;
    return {
      ...next,
      waiting_on:
        `${next.waiting_on}, but the ${kind} worker (pid ${pid} on this machine) has stopped saying it is alive: it is stopped ` +
        `or hung, and holds what it claimed — resume it (kill -CONT ${pid}), or end it (kill ${pid}) and start another`,
      command: `kill -CONT ${pid}`,
      person_first: true,
    };
  }
  const supervisedFor = workers!.supervisedFor();
  if (supervisedFor !== null && supervisedFor < SUPERVISOR_START_MS) return next; // still starting them
  const none = `, but no ${idle.join(" or ")} worker is running for this project`;
  return supervisedFor === null
    ? { ...next, waiting_on: `${next.waiting_on}${none}`, command: "guild-bus up", person_first: true }
    : {
        ...next,
        waiting_on: `${next.waiting_on}${none} (\`guild-bus up\` runs: its log says why)`,
        command: `guild-bus worker ${idle[0]}`,
        person_first: true,
      };
}

/** One line for a person: "waiting for X — run: Y". */
export function nextStepLine(n: NextStep): string {
  return `waiting for ${n.waiting_on}${n.command ? ` — run: ${n.command}` : ""}`;
}
