// `guild-bus review`: a new request.json (and run.json) for a gate, refused before anything is written when the
// request cannot be served or its run and gate already have one.
import { busJson } from "../core/bus-json.js";
import { reopenRun } from "../bus/finished-runs.js";
import { existsSync, lstatSync, statSync } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { customAlphabet } from "nanoid";
import { readArtifact } from "../bus/artifact.js";
import { lostGuildLink } from "../bus/project-root.js";
import { deliver } from "../bus/deliver.js";
import { hasValidOutcome, readJson } from "../bus/gate-reader.js";
import { Layout } from "../bus/layout.js";
import { readTextBounded, ReadRefused } from "../bus/read-bounded.js";
import { loadSettings } from "../bus/settings.js";
import { type LoadedSettings, settingsRefusal } from "../bus/settings-file.js";
import {
  gateQuorum,
  MAX_CAP,
  pathRefusal,
  pinnedReviewer,
  quorumRefusal,
  requestRefusal,
  type ResolvedPolicy,
  resolvePolicy,
  reviewMode,
  unknownReviewer,
} from "../core/policy.js";
import { authorIdentity } from "../core/selection.js";
import { scrubOptions, type ScrubOptions, scrubWithReport } from "../core/scrub.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { assertGate, assertRunId } from "../spec/ids.js";
import { AuthorName, Difficulty, type QuorumRule, Request, RunMeta, type Settings, StopPolicy } from "../spec/schemas.js";
import { workerRunning } from "../runtime/peers.js";
import { runningSupervisor } from "../runtime/supervisor-lock.js";
import { type Answer, refuse, refusing } from "./answer.js";

const suffix = customAlphabet("0123456789abcdefghijklmnopqrstuvwxyz", 6);

function newRunId(date = new Date()): string {
  return `run-${date.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}-${suffix()}`;
}

export interface ReviewParams {
  artifact: string;
  gate: string;
  author: string;
  /** Where the author host came from: the caller's word, or the MCP handshake (then `authorHostVersion` too). */
  authorHostSource?: "declared" | "mcp-client-info";
  authorHostVersion?: string;
  authorModel?: string;
  runId?: string;
  reviewer?: string;
  review?: "cross" | "local" | "off";
  risk?: "low" | "medium" | "high";
  cap?: number;
  stop?: StopPolicy;
  difficulty?: Difficulty;
  humanCheckpoint?: boolean;
  /** A quorum gate (SPEC §26): K of N reviewers of distinct families. */
  quorum?: QuorumRule;
  paths?: string[];
}

/** What `--paths` names, in refusals. */
const RELATED_PATH = "related path";

/**
 * At nightmare the reviewer's CLI reads the files itself, so the scrubber never sees what it sends to its provider:
 * what each listed file holds that the scrubber would redact, and what was not checked (a directory, a large file).
 */
function unredactedAtNightmare(layout: Layout, relPaths: string[], options: ScrubOptions): string[] {
  return [...new Set(relPaths)].flatMap((rel) => {
    const file = layout.artifact(rel, RELATED_PATH);
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

/** What a face says after a request while no broker runs: nothing moves until one does. */
function noBrokerNote(layout: Layout): string | null {
  // an `up` that runs is starting its broker (`status` says when it gave one up)
  if (workerRunning(layout, "broker") || runningSupervisor(layout) !== null) return null;
  return "no broker worker is running for this project: nothing moves until `guild-bus up` runs";
}

export interface Requested {
  runId: string;
  gate: string;
  warnings: string[];
  /** No broker runs for the project (noBrokerNote), else null: a face that waits says so its own way. */
  idle: string | null;
}

/**
 * The round cap as every face refuses it: each passes what it was given (a number, or the CLI's text unparsed), and a
 * cap is refused here, never clamped (that would change the ask).
 */
export function capRefusal(cap: number | string): string | null {
  const n = typeof cap === "number" ? cap : /^\d+$/.test(cap.trim()) ? Number(cap) : NaN;
  if (Number.isInteger(n) && n >= 1 && n <= MAX_CAP) return null;
  return (
    `cap refused: a gate's round cap is a whole number from 1 to ${MAX_CAP}, not ${Number.isNaN(n) ? JSON.stringify(cap) : n}; ` +
    "nothing was requested" +
    (n > MAX_CAP ? ` — ask for ${MAX_CAP} or fewer (a human adds rounds with extend-cap when the cap is hit)` : "")
  );
}

/** Deliver run.json (first request of a run) and request.json; a gate is requested once per run. */
/** `checked`: settings.json as the caller already read it for this request (the CLI's check), else it is read here. */
export async function requestReview(layout: Layout, p: ReviewParams, checked?: LoadedSettings): Promise<Answer<Requested>> {
  return refusing(() => deliverRequest(layout, p, checked));
}

async function deliverRequest(layout: Layout, p: ReviewParams, checked: LoadedSettings | undefined): Promise<Answer<Requested>> {
  const lost = lostGuildLink(layout.root); // every face: the MCP server finds its root as the CLI does
  if (lost) return refuse(`${lost}; nothing was requested`);
  const gate = assertGate(p.gate);
  const runId = assertRunId(p.runId ?? newRunId());
  const badCap = p.cap === undefined ? null : capRefusal(p.cap);
  if (badCap) return refuse(badCap);
  // the host is shown and passed on as the model is: one rule for both names (a packet names them on one line)
  const hostName = AuthorName.safeParse(p.author);
  if (!hostName.success || !p.author.trim())
    return refuse(`invalid input: author_host: ${hostName.error?.issues[0]?.message ?? "must be a non-blank string"}`);
  const author = p.author.trim();
  const abs = layout.artifact(p.artifact);
  const { settings, problems, fault } = checked ?? loadSettings(layout);
  if (fault) return refuse(`settings cannot be read for now (${fault}); nothing was requested — try again`);
  // on defaults the broker would pick another reviewer than the settings name (weak, or the manual one)
  const badSettings = settingsRefusal(layout, problems);
  if (badSettings) return refuse(`${badSettings}; nothing was requested — fix the settings first`);
  if (!p.artifact.trim()) return refuse("artifact refused: no file named");
  // every path as the project names it (a face may have resolved it against its own directory), judged by name first:
  // a missing `c:notes.md` is a drive path, not a missing file
  const named = (p.paths ?? []).map((rel) => layout.rel(layout.artifact(rel, RELATED_PATH)));
  const badName = pathRefusal([layout.rel(abs), ...named]);
  if (badName) return refuse(`request refused: ${badName}`);
  if (existsSync(abs) && statSync(abs).isDirectory()) return refuse(`artifact refused: ${layout.rel(abs)} is a directory; name a file`);
  // Read now as the broker will read it (inside the project, a regular file, size limit, UTF-8), so nothing is
  // written for an artifact it would escalate at once.
  const artifact = readArtifact(layout, layout.rel(abs), scrubOptions(settings));
  if (!artifact.ok) return refuse(`artifact refused: ${artifact.detail}`);
  const missing = named.find((rel) => !existsSync(layout.artifact(rel, RELATED_PATH)));
  if (missing !== undefined) return refuse(`${RELATED_PATH} not found: ${missing}`);
  const paths = named.map((rel) => {
    layout.readableArtifact(rel, RELATED_PATH);
    return rel;
  });
  const unknown = unknownReviewer(p.reviewer ?? "auto", settings);
  if (unknown) return refuse(unknown);
  // Refused up front with the broker's own rule, so nothing is written for a request it would refuse.
  const difficulty = p.difficulty ?? settings.difficulty ?? "medium";
  const refusal = requestRefusal({ reviewer: p.reviewer ?? "auto", paths, artifact_path: layout.rel(abs) }, settings, difficulty);
  if (refusal) return refuse(`request refused: ${refusal}`);
  const exposed = difficulty === "nightmare" ? unredactedAtNightmare(layout, [layout.rel(abs), ...paths], scrubOptions(settings)) : [];
  const local = (p.review ?? settings.review) === "local" && !settings.weak_reviewer;
  const { conflict } = authorIdentity({ author_host: author, author_model: p.authorModel }, settings);
  const warnings = [
    ...(conflict ? [`author family unknown: ${conflict}; independence will be weak`] : []),
    ...(local
      ? [
          "review local with no weak_reviewer in .guild/settings.json: the broker takes an available reviewer of the author's family, " +
            "else any other reviewer, else the manual reviewer (a person answers with `guild-bus respond`); independence is weak",
        ]
      : []),
    ...(exposed.length
      ? [
          `difficulty nightmare: the reviewer reads files itself, unredacted: ${exposed.join("; ")}. ` +
            "It may read the rest of the project as well. Use difficulty hard to send the artifact redacted",
        ]
      : []),
  ];
  // the broker's own rule for what a quorum cannot be asked with (a pinned reviewer, local review, an incoherent rule)
  const quorum = gateQuorum({ quorum: p.quorum, gate }, settings);
  const quorumWhy = quorumRefusal(quorum, { reviewer: p.reviewer ?? "auto", review: p.review }, settings);
  if (quorumWhy) return refuse(`request refused: ${quorumWhy}`);
  const now = new Date().toISOString();
  const opts = { guildDir: layout.guild, makeDirs: true }; // a request starts its run, and in a fresh project .guild
  // both records are validated before either is written
  const run = RunMeta.parse({ schema_version: "guild_bus.run.v1", run_id: runId, created_at: now, created_by: author });
  const asked = Request.parse({
    schema_version: "guild_bus.request.v1",
    run_id: runId,
    gate,
    artifact_path: layout.rel(abs),
    author_host: author,
    ...(p.authorHostSource ? { author_host_source: p.authorHostSource } : {}),
    ...(p.authorHostVersion ? { author_host_version: p.authorHostVersion } : {}),
    ...(p.authorModel?.trim() ? { author_model: p.authorModel.trim() } : {}),
    // the pin in force now (the request's, else settings.reviewer), recorded: a later settings edit re-judges nothing
    reviewer: pinnedReviewer({ reviewer: p.reviewer ?? "auto" }, settings) ?? "auto",
    // the review mode in force (one a high risk or require_review forces is cross): a skip is judged by the request alone
    review: reviewMode({ review: p.review, risk: p.risk }, settings).mode,
    ...(p.risk ? { risk: p.risk } : {}),
    ...(p.cap ? { cap: p.cap } : {}),
    // the stop policy, difficulty and quorum in force, recorded like the pin: what a packet must keep (SPEC §15)
    stop: p.stop ?? settings.stop ?? "verdict",
    difficulty,
    ...(p.humanCheckpoint ? { human_checkpoint: true } : {}),
    ...(quorum ? { quorum } : {}),
    ...(paths.length ? { paths } : {}),
    requested_at: now,
  });
  // the cap, checkpoint, restart cap and stall detection in force, recorded like the stop policy: an escalation the
  // broker raised under them stays its own when the settings change (SPEC §6), and the gate's rounds keep them
  const policy = resolvePolicy(asked, settings);
  const request = Request.parse({ ...asked, ...recorded(policy) });
  // the clamp of the settings' cap, said now: the request records the clamped cap, so no later reader can say it
  warnings.push(...policy.warnings);
  const requestText = busJson(request);
  // refused before run.json lands: nothing is written for a request no reader would accept
  if (Buffer.byteLength(requestText) > MAX_FILE_BYTES)
    return refuse(`request refused: request.json would be larger than ${MAX_FILE_BYTES} bytes`);
  const notADir = notADirectory([
    layout.runs,
    layout.runDir(runId),
    path.dirname(layout.gateDir(runId, gate)),
    layout.gateDir(runId, gate),
  ]);
  if (notADir) return refuse(`${layout.rel(notADir)} is not a directory: move it aside, then request again (nothing was written)`);
  await deliver(layout.runMeta(runId), busJson(run), opts);
  const r = await deliver(layout.gateFile(runId, gate, "request.json"), requestText, opts);
  // the same call again (its first try killed or timed out after the request landed, or an MCP host retrying): that
  // request goes on, and another run, a second paid review of the same file, is never advised
  // (only while the gate is under way: an ended one is not reviewed again, whatever its file holds now), ended as the
  // bus judges it: an outcome.json that is not a valid one of this gate (a torn foreign write, SPEC §5) ends nothing
  const ended = r.status === "conflict" && hasValidOutcome(layout, runId, gate);
  const earlier = r.status === "conflict" && !ended ? sameRequestAt(layout.gateFile(runId, gate, "request.json"), request, settings) : null;
  if (r.status === "conflict" && earlier === null)
    return refuse(`${runId} ${gate} already has a request; a gate is reviewed once per run — use another --run-id`);
  if (earlier !== null) warnings.push(`the same request was already in (requested at ${earlier}); it goes on, nothing new was written`);
  reopenRun(layout, runId); // a run listed as finished carries work again: running workers rescan it at once
  return { ok: true, runId, gate, warnings, idle: noBrokerNote(layout) };
}

/** The cap, checkpoint, restart cap and stall detection a request is judged under (its own, else the settings'). */
function recorded({ cap, humanCheckpoint, restartCap, stallDetection }: ResolvedPolicy) {
  return { cap, human_checkpoint: humanCheckpoint, restart_cap: restartCap, stall_detection: stallDetection };
}

/**
 * When the request in `file` is `request` but for its time, that time; else (another request, unreadable) null. One
 * an earlier build wrote without the recorded policy is judged under the settings, as the broker judges it.
 */
function sameRequestAt(file: string, request: Request, settings: Settings): string | null {
  // read as the broker reads it: a file it moves aside (a repeated key, say) is no request that goes on
  const found = readJson(file, Request).value;
  if (found === null) return null;
  const judged = { ...found, ...recorded(resolvePolicy(found, settings)), requested_at: "" };
  return isDeepStrictEqual(judged, { ...request, requested_at: "" }) ? found.requested_at : null;
}

/** The first of these paths that exists as something other than a directory (a file), if any; a link is refused by
 * name when the request is delivered (never written through). */
function notADirectory(dirs: string[]): string | undefined {
  return dirs.find((dir) => {
    try {
      const st = lstatSync(dir, { throwIfNoEntry: false });
      return st !== undefined && !st.isDirectory() && !st.isSymbolicLink();
    } catch {
      return false; // under a link (to a file): the delivery refuses the link by name
    }
  });
}
