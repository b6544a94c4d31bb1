// A snapshot of one gate directory: every file parsed and validated, problems listed. Reading only.
// Symlinks are never followed, oversized files are never read, and a verdict counts only if it is bound to the
// result and packet actually on disk (a forged or stale verdict is a problem, not a verdict).
import { lstatSync, readdirSync, type Stats } from "node:fs";
import path from "node:path";
import type * as z from "zod/mini";
import { parseJsonAnswer } from "../core/json-answer.js";
import { anyMoverFor, GATE_FILES, type Layout, misnamedReason, parseRoundFile } from "./layout.js";
import { sha256Hex } from "../core/sha.js";
import {
  Attempt,
  Decision,
  Escalation,
  Failure,
  FamilyMaps,
  Outcome,
  type PacketFrontMatter,
  Request,
  Resubmit,
  VerdictFile,
} from "../spec/schemas.js";
import { describeIssues } from "../spec/issues.js";
import { parsePacket } from "../core/packet.js";
import { FAMILY_MAPS_RE } from "../core/family.js";
import { embeddingProblem, quorumRoundProblem, requestProblem, successionProblem } from "../core/packet-chain.js";
import { cachedParse } from "./parse-cache.js";
import { GateStats, type Stat } from "./gate-stats.js";
import { kindOf, readBounded, readBytesAndText, readTextBounded } from "./read-bounded.js";
import { faultFlag, isSystemFault } from "./system-fault.js";
import { ReadFault } from "../core/read-fault.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { BUS_DIRS, emptySlots, emptySnapshot, type GateSnapshot, type ReviewSlots, type SeenFile } from "../core/snapshot.js";
import { sealFile, slotFile } from "../core/slot-file.js";
import { failureRefusal } from "../core/result-slot.js";
import { largest } from "../core/extremes.js";
import { offers, openRound, rebuttalRefusal } from "../core/gate-queries.js";
import { decisionNoteProblem, rebuttalTextProblem } from "../core/person-text.js";
import { before, parseIsoTime } from "../core/iso-time.js";

/** A refused read of a gate file, naming it as every reason does: by its name, not this machine's path to it (the reason
 * is recorded beside the moved file and shown by status, on every machine sharing the tree). */
function readRefusal(error: unknown, file: string): string {
  return (error as Error).message.split(file).join(path.basename(file));
}

/** A bus JSON file read and judged as every gate reader judges it (the one answer parser, then `schema`). */
export function readJson<T>(
  file: string,
  schema: z.ZodMiniType<T>,
  sha?: string,
): { value: T | null; reason?: string; unread?: true; fault?: true } {
  let text: string;
  try {
    text = readTextBounded(file, { max: MAX_FILE_BYTES });
  } catch (error) {
    return { value: null, reason: `unreadable: ${readRefusal(error, file)}`, unread: true, ...faultFlag(error) };
  }
  // a file named by its sha256 (family-maps-<sha>.json) is those bytes or none: an edit changes no packet's judgement
  if (sha !== undefined && sha256Hex(text) !== sha)
    return { value: null, reason: "its bytes are not the sha256 its name binds (changed since the broker wrote it)" };
  // the one answer parser: a decision with a repeated key, or nesting zod would recurse into, is refused
  const json = parseJsonAnswer(text);
  if (!json.ok) return { value: null, reason: json.kind === "syntax" ? "not valid JSON" : json.reason };
  const parsed = schema.safeParse(json.value);
  return parsed.success ? { value: parsed.data } : { value: null, reason: describeIssues(parsed.error).join("; ") };
}

function readRejected(dir: string): GateSnapshot["rejected"] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names
    .filter((n) => !n.endsWith(".reason.json"))
    .map((file) => {
      try {
        const reason = JSON.parse(readTextBounded(path.join(dir, `${file}.reason.json`), { max: 64 * 1024 })).reason;
        return { file, reason: typeof reason === "string" ? reason : "(no reason recorded)" };
      } catch {
        return { file, reason: "(no reason recorded)" };
      }
    });
}

/**
 * A gate directory whose request and packets name another gate was moved or copied here whole (`mv` or `cp -r` of a
 * run): its files are that gate's record, not drops to move aside one by one. Nothing here is read or written until a
 * person moves it back or out of .guild/runs, as for a linked gate directory.
 */
function movedGate(layout: Layout, runId: string, gate: string, dir: string, of: string): GateSnapshot {
  const [run, named] = of.split("\u0000") as [string, string];
  const home = layout.rel(layout.gateDir(run, named));
  const snap = emptySnapshot(runId, gate, dir);
  snap.problems.push({
    file: ".",
    reason:
      `holds run ${run}'s gate ${named} (its request and packets name it: moved or copied here); move it back to ${home}, ` +
      "or out of .guild/runs: nothing in it is read or moved aside until then",
    mtimeMs: 0,
  });
  return snap;
}

/** A gate file's path: the gate directory is already normalised and bus names are plain, so no path.join (hot: per file per read). */
export const inGate = (dir: string, name: string) => `${dir}${path.sep}${name}`;

/** parseRoundFile, remembered by name: the same names come back at every read of every gate. */
const roundFiles = new Map<string, ReturnType<typeof parseRoundFile>>();
function roundFile(name: string): ReturnType<typeof parseRoundFile> {
  let parsed = roundFiles.get(name);
  if (parsed === undefined) {
    if (roundFiles.size >= 65_536) roundFiles.clear(); // junk names cannot grow it without bound
    roundFiles.set(name, (parsed = parseRoundFile(name)));
  }
  return parsed;
}

/** Kinds of round file that steer the open round whatever their round: few, so always stat-ed. */
const STEERING = new Set(["escalation", "decision", "resubmit", "rebuttal"]);

/**
 * `incremental`: a worker's read, which may take a closed round's stat from its previous read of this gate (gate-stats.ts).
 * A closed round is one before the open round but one: decide() judges the open round and the one it restarts, and
 * the files of older rounds only add to the trail, the next packet's history and stall evidence.
 */
export function readGate(layout: Layout, runId: string, gate: string, incremental = false): GateSnapshot {
  const dir = layout.gateDir(runId, gate);
  const snap = emptySnapshot(runId, gate, dir);
  try {
    layout.assertNoSymlinks(dir); // a linked run, review or gate directory is not read, so nothing is done for it
  } catch (error) {
    snap.problems.push({ file: ".", reason: (error as Error).message, mtimeMs: 0, ...faultFlag(error) });
    return snap;
  }
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isSystemFault(error))
      snap.problems.push({ file: ".", reason: `cannot list: ${(error as Error).message}`, mtimeMs: 0, fault: true });
    // a gate that is a file, or a directory nobody may list, is no gate waiting for a request: a person must act
    else if (code === "ENOTDIR")
      snap.problems.push({ file: ".", reason: "not a directory: move it aside (a gate is a directory of files)", mtimeMs: 0 });
    else if (code !== "ENOENT")
      snap.problems.push({ file: ".", reason: `cannot be listed (${code ?? (error as Error).message}): fix its permissions`, mtimeMs: 0 });
    return snap;
  }
  const listed = names.map((name) => ({ name, round: roundFile(name) }));
  const lastPacket = listed.reduce((top, { round: r }) => (r?.kind === "packet" && r.round > top ? r.round : top), 0);
  const stats = new GateStats(dir, incremental);
  const closedBelow = stats.closedBelow(lastPacket);
  const closed = (round: number) => round < closedBelow;
  const prints: string[] = [];
  const listedStats = new Map<string, Stat>(); // each listed file's stat, so it is not lstat-ed again to hash it
  let mtime = 0;
  const problem = (file: string, reason: string, flags?: { fault?: true; blocks?: true }) =>
    snap.problems.push({ file, reason, mtimeMs: mtime, ...flags });
  // what a file names that its place does not, each with the value its directory or name holds: the writer's fix
  const placed = (v: { run_id: string; gate: string }, field?: string, named?: number, wanted?: number): string | null => {
    const wrong: string[] = [];
    if (v.run_id !== runId) wrong.push(`run_id ${v.run_id}, not ${runId}`);
    if (v.gate !== gate) wrong.push(`gate ${v.gate}, not ${gate}`);
    if (field !== undefined && named !== wanted) wrong.push(`${field} ${named}, not ${wanted} as its name says`);
    return wrong.length ? `names another run, gate or round (${wrong.join("; ")})` : null;
  };
  // the gate a request and a packet name, when it is not this one: a gate directory moved or copied here whole
  const elsewhere = (v: { run_id: string; gate: string }) => (v.run_id !== runId || v.gate !== gate ? `${v.run_id}\u0000${v.gate}` : null);
  let requestOf: string | null = null;
  const packetsOf = new Set<string>();
  const take = <T>(name: string, stat: Stat, schema: z.ZodMiniType<T>, misplaced: (v: T) => string | null, put: (v: T) => void) => {
    const file = inGate(dir, name);
    const { value, reason, fault } = parseOnce(
      stat,
      file,
      () => readJson(file, schema),
      (r) => !r.unread,
    );
    const wrong = value === null ? null : misplaced(value);
    if (value === null) problem(name, reason ?? "invalid", fault ? { fault } : {});
    else if (wrong !== null) problem(name, wrong);
    else put(value);
  };
  // a text the next packet embeds (memory, rebuttal) is read then: one that cannot be (not UTF-8) is a problem the
  // broker moves aside now, not a packet that can never be built
  // `judge`'s word on the text is kept for later: whether it counts depends on files read after this one
  const readableText = (name: string, stat: Stat, judge?: (text: string) => string | null) => {
    const file = inGate(dir, name);
    const { reason, judged, fault } = parseOnce(
      stat,
      file,
      () => textReadProblem(file, judge),
      (r) => !r.fault,
    );
    if (reason !== null) problem(name, reason, fault ? { fault } : {});
    return { readable: reason === null, judged: judged ?? null };
  };
  const rebuttalTexts = new Map<number, string | null>();
  let junk = 0;
  for (const { name, round: parsed } of listed) {
    // A name no bus file has, and no worker moves aside, is judged by the name alone, never stat-ed, and only the
    // first few are named: a gate holding a hundred thousand of them costs one listing, not a hundred thousand
    // lstat()s and problems a look. A misnamed file of a bus kind (result-01.json) is stat-ed and reported as ever:
    // its mover needs its age and its name.
    const mapsSha = FAMILY_MAPS_RE.exec(name)?.[1];
    const known = name === GATE_FILES.request || name === GATE_FILES.outcome || parsed !== null || mapsSha !== undefined;
    if (name.startsWith(".") && !BUS_DIRS.has(name)) continue; // claims and foreign temp files
    if (!known && name !== GATE_FILES.trail && !BUS_DIRS.has(name) && !anyMoverFor(name)) {
      if (++junk <= NAMED_JUNK) problem(name, NOT_A_BUS_NAME);
      continue;
    }
    let stat: Stat | undefined;
    try {
      stat = stats.stat(name, parsed !== null && !STEERING.has(parsed.kind) && closed(parsed.round));
    } catch (error) {
      if (isSystemFault(error)) problem(name, `cannot stat: ${(error as Error).message}`, { fault: true });
      continue;
    }
    if (!stat) continue; // gone since the listing
    const { st, version } = stat;
    mtime = st.mtimeMs;
    listedStats.set(name, stat);
    if (name !== GATE_FILES.trail) prints.push((stat.print ??= `${name}:${st.size}:${st.mtimeMs}`));
    // The bus's own directories must be real ones: every write into a linked one is refused, so say who must act.
    if (BUS_DIRS.has(name) && !st.isDirectory()) {
      problem(name, `${st.isSymbolicLink() ? "a symlink" : "not a directory"}: the bus refuses to write there; remove it (SPEC §2)`, {
        blocks: true,
      });
      continue;
    }
    // the trail is replaced whole by a rename, which a directory refuses: the gate could never show its end, nor end
    if (name === GATE_FILES.trail && st.isDirectory()) {
      problem(name, "a directory: the broker cannot write the trail, so the gate cannot end; remove it (SPEC §2)", { blocks: true });
      continue;
    }
    if (name.startsWith(".")) continue; // .claims, .verified: read where they are needed
    if (name === "rejected" && st.isDirectory()) {
      // listed and read again only when a name came or went (its directory's stat moved): it only grows
      const rejectedDir = path.join(dir, name);
      snap.rejected = cachedParse(
        rejectedDir,
        version,
        () => readRejected(rejectedDir),
        () => true,
      );
      continue;
    }
    if (!known && name !== GATE_FILES.trail && name !== "rejected") {
      problem(name, misnamedReason(name) ?? NOT_A_BUS_NAME);
      continue;
    }
    if (st.isSymbolicLink()) {
      if (known) problem(name, "symlink refused: deliver a regular file");
      continue;
    }
    if (!st.isFile()) {
      if (known) problem(name, `not a regular file (${kindOf(st)}): deliver a regular file`);
      continue;
    }
    if (known && st.size > MAX_FILE_BYTES) {
      problem(name, `too large (${st.size} bytes > ${MAX_FILE_BYTES})`);
      continue;
    }
    if (name === GATE_FILES.request)
      take(
        name,
        stat,
        Request,
        (v) => {
          requestOf = elsewhere(v);
          return placed(v);
        },
        (v) => (snap.request = v),
      );
    else if (name === GATE_FILES.outcome) take(name, stat, Outcome, placed, (v) => (snap.outcome = v));
    else if (mapsSha !== undefined) {
      // read only while its bytes are the sha its name binds: an edited file changes no packet's judgement (SPEC §7)
      const file = inGate(dir, name);
      const { value, reason, fault } = parseOnce(
        stat,
        file,
        () => readJson(file, FamilyMaps, mapsSha),
        (r) => !r.unread,
      );
      if (value === null) problem(name, reason ?? "invalid", fault ? { fault } : {});
      else snap.familyMaps.set(mapsSha, value);
    } else {
      if (!parsed) continue;
      const { kind, round, member } = parsed;
      // a quorum member's files go to its own slots (SPEC §26)
      const slots = member === null ? snap : slotsOf(snap, member);
      switch (kind) {
        case "packet": {
          const file = inGate(dir, name);
          const { front, problems, fault } = parseOnce(
            stat,
            file,
            (): { front: PacketFrontMatter | null; problems: string[]; read: boolean; fault?: true } => {
              try {
                // the body is checked once per version (it can be megabytes), not kept
                const { front, body, problems } = parsePacket(readTextBounded(file, { max: MAX_FILE_BYTES }));
                const unbound = front && embeddingProblem(front, body);
                return unbound ? { front: null, problems: [unbound], read: true } : { front, problems, read: true };
              } catch (error) {
                return { front: null, problems: [`unreadable: ${readRefusal(error, file)}`], read: false, ...faultFlag(error) };
              }
            },
            (r) => r.read,
          );
          const misplaced = front && placed(front, "round", front.round, round);
          const of = front && elsewhere(front);
          if (of) packetsOf.add(of);
          if (!front) problem(name, problems.join("; "), fault ? { fault } : {});
          else if (misplaced) problem(name, `front matter ${misplaced}`);
          else if (member !== null && (front.reviewer_provider !== member || !front.quorum))
            problem(name, `front matter is not a quorum packet for reviewer ${member}`);
          else if (member === null && front.quorum) problem(name, "a quorum packet must name its reviewer: packet-<n>.<provider>.md");
          else slots.packets.set(round, front);
          break;
        }
        case "attempt":
          take(
            name,
            stat,
            Attempt,
            (v) => placed(v, "round", v.round, round),
            (v) => slots.attempts.set(round, v),
          );
          break;
        case "result":
          slots.results.set(round, seenFile(stat));
          break;
        case "response":
          slots.responses.set(round, seenFile(stat));
          break;
        case "failure":
          take(
            name,
            stat,
            Failure,
            (v) => placed(v, "round", v.round, round),
            (v) => slots.failures.set(round, v),
          );
          break;
        case "verdict":
          take(
            name,
            stat,
            VerdictFile,
            (v) => placed(v, "round", v.round, round),
            (v) => slots.verdicts.set(round, v),
          );
          break;
        case "resubmit":
          take(
            name,
            stat,
            Resubmit,
            (v) => placed(v, "after_round", v.after_round, round),
            () => snap.resubmits.add(round),
          );
          break;
        case "escalation":
          take(
            name,
            stat,
            Escalation,
            (v) => placed(v, "round", v.round, round),
            (v) => snap.escalations.set(round, v),
          );
          break;
        case "decision":
          take(
            name,
            stat,
            Decision,
            (v) => placed(v, "round", v.round, round),
            (v) => snap.decisions.set(round, v),
          );
          break;
        case "memory":
          if (readableText(name, stat).readable) slots.memories.add(round);
          break;
        case "rebuttal": {
          const { readable, judged } = readableText(name, stat, rebuttalTextProblem);
          if (!readable) break;
          snap.rebuttals.add(round);
          rebuttalTexts.set(round, judged);
          break;
        }
      }
    }
  }
  if (requestOf !== null && packetsOf.has(requestOf)) return movedGate(layout, runId, gate, dir, requestOf);
  if (junk > NAMED_JUNK) problem(`${junk - NAMED_JUNK} more names`, `not bus file names either (the first ${NAMED_JUNK} are named above)`);
  const files = shaOncePerRead(dir, listedStats, stats, closed, (name, reason) =>
    snap.problems.push({ file: name, reason: `cannot hash: ${reason}`, mtimeMs: 0, fault: true }),
  );
  // every packet names the request's author, and a later one follows the one before it as the broker issues them:
  // else it is no round's
  for (const [member, slots] of [[null, snap] as const, ...snap.members]) {
    for (const [round, packet] of slots.packets) {
      const why = snap.request && requestProblem(packet, snap.request, member);
      if (!why) continue;
      slots.packets.delete(round);
      const file = `packet-${round}${member === null ? "" : `.${member}`}.md`;
      snap.problems.push({ file, reason: why, mtimeMs: listedStats.get(file)?.st.mtimeMs ?? 0 });
    }
  }
  const memberRounds = new Set([...snap.members.values()].flatMap((slots) => [...slots.packets.keys()]));
  for (const round of memberRounds) {
    const members = [...snap.members].filter(([, slots]) => slots.packets.has(round));
    const why = quorumRoundProblem(
      snap.packets.get(round),
      members.map(([, slots]) => slots.packets.get(round)!),
    );
    if (!why) continue;
    for (const [member, slots] of [[null, snap] as const, ...members]) {
      const file = `packet-${round}${member === null ? "" : `.${member}`}.md`;
      if (slots.packets.delete(round)) snap.problems.push({ file, reason: why, mtimeMs: listedStats.get(file)?.st.mtimeMs ?? 0 });
    }
  }
  // a quorum round follows the round before it as any round does: a member packet of a far round is no round's (the
  // open round, and every walk over rounds, would reach it)
  for (const round of [...memberRounds].sort((a, b) => a - b)) {
    const issued = (r: number) => snap.packets.has(r) || [...snap.members.values()].some((slots) => slots.packets.has(r));
    if (round === 1 || issued(round - 1)) continue;
    for (const [member, slots] of snap.members)
      if (slots.packets.delete(round)) {
        const file = `packet-${round}.${member}.md`;
        snap.problems.push({
          file,
          reason: `no packet of round ${round - 1} precedes it`,
          mtimeMs: listedStats.get(file)?.st.mtimeMs ?? 0,
        });
      }
  }
  for (const [member, slots] of [[null, snap] as const, ...snap.members])
    for (const [round, failure] of slots.failures) {
      const packet = slots.packets.get(round);
      const why = packet && failureRefusal(slots, packet, failure);
      if (!why) continue;
      slots.failures.delete(round);
      const file = slotFile("failure", round, member);
      snap.problems.push({ file, reason: why, mtimeMs: listedStats.get(file)?.st.mtimeMs ?? 0 });
    }
  for (const round of [...snap.packets.keys()].sort((a, b) => a - b)) {
    const packet = snap.packets.get(round)!;
    if (round === 1 || packet.quorum) continue;
    const why = successionProblem(packet, snap.packets.get(round - 1), snap.failures.get(round - 1));
    if (why) {
      snap.packets.delete(round);
      snap.problems.push({ file: `packet-${round}.md`, reason: why, mtimeMs: listedStats.get(`packet-${round}.md`)?.st.mtimeMs ?? 0 });
    }
  }
  // a file of round n the broker acted on (a later round, or the outcome) is the gate's history, whatever it holds
  // that is refused now: older commands wrote longer notes and rebuttals
  const latest = openRound(snap);
  const actedOn = (round: number) => snap.outcome !== null || latest > round;
  for (const [round, decision] of snap.decisions) {
    const answered = snap.escalations.has(round) ? files.sha(`escalation-${round}.json`, round) : null;
    const why = decisionProblem(decision, snap.escalations.get(round), answered, actedOn(round));
    if (why) {
      snap.decisions.delete(round);
      snap.problems.push({ file: `decision-${round}.json`, reason: why, mtimeMs: 0 });
    }
  }
  bindVerdicts(snap, files, snap, null);
  for (const [member, slots] of snap.members) bindVerdicts(snap, files, slots, member);
  // a rebuttal the round's own files say it can never take (medium, quorum, a ruling, nothing to contest), or that
  // `rebut` refuses (empty, over 64 KiB) unless the broker acted on it
  for (const round of snap.rebuttals) {
    const why = (actedOn(round) ? null : rebuttalTexts.get(round)) ?? rebuttalRefusal(snap, round);
    if (!why) continue;
    snap.rebuttals.delete(round);
    const file = `rebuttal-${round}.md`;
    snap.problems.push({ file, reason: why, mtimeMs: listedStats.get(file)?.st.mtimeMs ?? 0 });
  }
  const R = openRound(snap);
  settleResultOverFailure(snap, snap, null, R);
  for (const [member, slots] of snap.members) settleResultOverFailure(snap, slots, member, R);
  snap.fingerprint = prints.join("|");
  stats.remember(snap.outcome !== null, R);
  return snap;
}

/**
 * readGate for a worker about to act on the gate: a read the system failed (EIO, EMFILE…) throws ReadFault, so the
 * step is tried again later instead of deciding on a partial view (a packet that seemed absent, a result that seemed
 * removed after verification, an attempt that seemed never made).
 */
export function readGateToAct(layout: Layout, runId: string, gate: string): GateSnapshot {
  return wholeOrFault(readGate(layout, runId, gate, true));
}

/** The snapshot, if the system failed none of its reads; else ReadFault. */
export function wholeOrFault(s: GateSnapshot): GateSnapshot {
  const fault = s.problems.find((p) => p.fault);
  if (fault) throw new ReadFault(`${s.runId}/${s.gate}: ${fault.file}: ${fault.reason}`);
  return s;
}

function slotsOf(snap: GateSnapshot, member: string): ReviewSlots {
  let slots = snap.members.get(member);
  if (!slots) snap.members.set(member, (slots = emptySlots()));
  return slots;
}

/**
 * The gate directory being read, and its files' hashes, each file hashed (or found in the cache) once per read. Files
 * are named relative to the gate directory, with the round they belong to.
 */
interface GateFiles {
  dir: string;
  sha: (name: string, round: number) => string | null;
  /** How many names a file not in the listing (a seal) had when its sha was read: 0 when it could not be stat-ed. */
  names: (name: string, round: number) => number;
  /** A file not in the listing (a seal) is there but is not a regular file, or its directory is not a directory: the
   * name that is not what it must be (null when it is). */
  irregular: (name: string, round: number) => string | null;
}

/** `onFault`: the system failed a read, so a null sha here does not mean the file is gone (the snapshot says so). */
function shaOncePerRead(
  dir: string,
  listed: Map<string, Stat>,
  stats: GateStats,
  closed: (round: number) => boolean,
  onFault: (name: string, reason: string) => void,
): GateFiles {
  const seen = new Map<string, { sha: string | null; names: number; irregular: string | null }>();
  const read = (name: string, round: number) => {
    if (!seen.has(name)) {
      const { sha, fault, names = 0, irregular } = fileSha(dir, name, listed.get(name) ?? (() => stats.stat(name, closed(round))));
      if (fault) onFault(name, fault);
      seen.set(name, { sha, names, irregular: irregular ?? null });
    }
    return seen.get(name)!;
  };
  return {
    dir,
    sha: (name, round) => read(name, round).sha,
    names: (name, round) => read(name, round).names,
    irregular: (name, round) => read(name, round).irregular,
  };
}

const seenFile = ({ st, version }: Stat): SeenFile => ({ mtimeMs: st.mtimeMs, size: st.size, version });

/** Keep only the verdicts bound to the packet and sealed result bytes of their slot; record broken seals. */
function bindVerdicts(snap: GateSnapshot, files: GateFiles, slots: ReviewSlots, member: string | null): void {
  const { dir } = files;
  const names = (round: number) => roundNames(round, member);
  for (const [round, verdict] of slots.verdicts) {
    const why = verdictProblem(slots, files, names(round), verdict, member);
    if (!why) continue;
    slots.verdicts.delete(round);
    if (why.broken) slots.brokenSeals.set(round, why.reason);
    else snap.problems.push({ file: slotFile("verdict", round, member), reason: why.reason, mtimeMs: verdictMtime(dir, round, member) });
  }
  for (const round of slots.results.keys()) {
    const n = names(round);
    // a directory or symlink where the seal goes (or a link or file where .verified/ goes): no verdict can ever be
    // sealed, and the paid result must stay
    const irregular = sealSha(files, n) === null ? files.irregular(n.seal, round) : null;
    if (irregular)
      snap.problems.push({
        file: irregular,
        reason: `not a ${irregular === n.seal ? "regular file" : "directory"}: no verdict can be sealed there; remove it`,
        mtimeMs: 0,
        blocks: true,
      });
    checkSeal(slots, files, n);
  }
  for (const round of slots.verdicts.keys()) if (!slots.results.has(round)) checkSeal(slots, files, names(round));
  // a result sealed before any verdict (its packet was not the broker's: workers/verifier.ts) and moved aside since
  const last = largest(slots.packets.keys(), 0);
  if (last > 0 && !slots.results.has(last) && !slots.verdicts.has(last)) checkSeal(slots, files, names(last));
}

/**
 * A failure says its round ended without a result, so a result in the same round proves it wrong: a worker that took
 * over a claim gone stale wrote it while the stalled holder still delivered (SPEC §15). Whichever landed first, the
 * result counts while the round is open and the broker has not acted on the failure: the failure is left out of the
 * view, and once a verdict binds the result it is a problem the broker moves aside at once (its writer linked it
 * whole). A result the verifier refuses is moved aside, and the failure counts again.
 */
function settleResultOverFailure(snap: GateSnapshot, slots: ReviewSlots, member: string | null, open: number): void {
  if (snap.outcome || snap.escalations.has(open) || !slots.failures.has(open) || !slots.results.has(open)) return;
  slots.failures.delete(open);
  if (slots.verdicts.has(open))
    snap.problems.push({
      file: slotFile("failure", open, member),
      reason: `superseded: ${slotFile("result", open, member)} arrived and was verified, so the round did not end without a result`,
      mtimeMs: 0,
    });
}

function verdictMtime(dir: string, round: number, member: string | null): number {
  try {
    return lstatSync(path.join(dir, slotFile("verdict", round, member))).mtimeMs;
  } catch {
    return Date.now();
  }
}

const NOT_A_BUS_NAME = "not a bus file name (bus-spec/SPEC.md lists the names a gate directory holds)";
/** How many names that are no bus file's a snapshot names one by one; the rest are counted. */
const NAMED_JUNK = 20;

/** A decision may be dated at most this far ahead of this machine's clock (skew between machines sharing the bus). */
const DECISION_SKEW_MS = 5 * 60 * 1000;

/**
 * A decision answers only the escalation it names by sha256 (`guild-bus decide`, the MCP server and the console
 * record it: a file dropped ahead of its escalation cannot know it), or, naming none (an older or foreign writer),
 * one that came before it, compared as times at the decision's own precision (a time written to the second is not
 * earlier than an escalation of that same second), with no allowance for clock skew (a decision dated ahead of this
 * clock would answer an escalation still to come).
 */
function decisionProblem(
  decision: Decision,
  escalation: Escalation | undefined,
  escalationSha: string | null,
  actedOn: boolean,
): string | null {
  // as `decide` refuses one: a continue note goes whole into the next packet. One the broker acted on is not judged by
  // it: `decide` wrote longer notes before, and a force-pass or extension that counted must not be undone on upgrade
  const long = actedOn ? null : decisionNoteProblem(decision.note);
  if (long) return long;
  // a choice the escalation does not offer answers nothing: moved aside, so the slot is free for one it offers
  if (escalation && !offers(escalation, decision.choice))
    return `decision chooses ${decision.choice}, which the escalation does not offer (${escalation.options.join(", ")})`;
  const t = parseIsoTime(decision.at);
  if (decision.escalation_sha256 !== undefined) {
    // hex in either case, as the schema allows (a tool may print its digests upper-case)
    if (escalationSha !== null && decision.escalation_sha256.toLowerCase() !== escalationSha)
      return `decision answers escalation bytes ${decision.escalation_sha256}, not this round's (${escalationSha})`;
    // the bytes it names order it: its time need not (a writer's local time without a zone, say), unless it is ahead
    if (!("problem" in t) && t.ms > Date.now() + DECISION_SKEW_MS) {
      const minutes = Math.round((t.ms - Date.now()) / 60_000);
      const ahead = minutes < 1440 ? `${minutes} min` : `${Math.round(minutes / 1440)} days`;
      return (
        `decision dated ${decision.at}, in the future: ${ahead} ahead of the clock of the worker that read it, more than ` +
        `the ${DECISION_SKEW_MS / 60_000} min allowed between machines — set the clock of the machine that decided right, ` +
        `then decide again`
      );
    }
    return null;
  }
  const naming = `name the escalation instead: add escalation_sha256, the sha256 of the escalation-${decision.round}.json bytes`;
  if ("problem" in t) return `decision dated ${JSON.stringify(decision.at)}, which is ${t.problem} (${naming})`;
  if (t.ms > Date.now()) return `decision dated ${decision.at}, in the future, and naming no escalation (${naming})`;
  if (escalation === undefined) return null;
  const e = parseIsoTime(escalation.at);
  // fail closed: an escalation of no readable time cannot be shown to come first
  if ("problem" in e)
    return `decision names no escalation, and the escalation's time ${JSON.stringify(escalation.at)} is ${e.problem} (${naming})`;
  if (before(t, e)) return `decision dated ${decision.at} predates the escalation it would answer (dated ${escalation.at}; ${naming})`;
  return null;
}

/**
 * sha256 of a gate file's bytes, or null when it cannot be read; cached while the file is unchanged. `stat`: as this
 * read's listing saw it, or, for a seal in .verified/ (not listed), as asked for now.
 */
function fileSha(
  dir: string,
  name: string,
  stat: Stat | (() => Stat | undefined),
): { sha: string | null; fault?: string; names?: number; irregular?: string } {
  let names: number | undefined;
  if (typeof stat === "function") {
    let asked: Stat | undefined;
    try {
      asked = stat();
    } catch (error) {
      return { sha: null, ...(isSystemFault(error) ? { fault: (error as Error).message } : {}) };
    }
    if (!asked) return { sha: null };
    // a directory or a symlink where the seal goes (or where .verified/ goes): nothing can be sealed there, and it
    // vouches for nothing
    if (!asked.st.isFile()) return { sha: null, irregular: asked.notADirectory ?? name };
    stat = asked;
    names = asked.st.nlink;
  }
  if (stat.sha !== undefined) return { sha: stat.sha, ...(names === undefined ? {} : { names }) };
  const file = inGate(dir, name);
  const { sha, fault } = cachedParse(
    `${file}#sha`,
    stat.version,
    (): { sha: string | null; fault?: string } => {
      try {
        return { sha: sha256Hex(readBounded(file, { max: MAX_FILE_BYTES })) };
      } catch (error) {
        return { sha: null, fault: isSystemFault(error) ? (error as Error).message : undefined };
      }
    },
    (r) => r.sha !== null,
    false,
  );
  if (sha !== null) stat.sha = sha;
  return { sha, ...(fault ? { fault } : {}), ...(names === undefined ? {} : { names }) };
}

/**
 * Why a gate text file cannot be read as bounded UTF-8 (null: it can), whether the system failed the read, and what
 * `judge` finds wrong with the text.
 */
function textReadProblem(
  file: string,
  judge?: (text: string) => string | null,
): { reason: string | null; judged?: string | null; fault?: true } {
  try {
    const text = readTextBounded(file, { max: MAX_FILE_BYTES });
    return { reason: null, judged: judge?.(text) ?? null };
  } catch (error) {
    return { reason: readRefusal(error, file), ...faultFlag(error) };
  }
}

/** cachedParse, kept on the stat as well when it is to be kept (a failed read is tried again next time). */
function parseOnce<T>(stat: Stat, file: string, parse: () => T, keep: (value: T) => boolean): T {
  if (stat.parsed !== undefined) return stat.parsed as T;
  const value = cachedParse(file, stat.version, parse, keep);
  if (keep(value)) stat.parsed = value;
  return value;
}

/** A round's result and seal names, made once for all the questions asked of them. */
interface RoundNames {
  round: number;
  packet: string;
  result: string;
  /** The bytes the verifier read for a round, linked into `.verified/` before its verdict was written (SPEC §15). */
  seal: string;
}
/** Made once per round and member for every gate: the same names are asked for at every read. */
const namesByMember = new Map<string | null, Map<number, RoundNames>>();
function roundNames(round: number, member: string | null): RoundNames {
  let byRound = namesByMember.get(member);
  if (!byRound) {
    if (namesByMember.size >= 1024) namesByMember.clear(); // nor junk member names
    namesByMember.set(member, (byRound = new Map()));
  }
  let n = byRound.get(round);
  if (!n) {
    if (byRound.size >= 65_536) byRound.clear(); // junk round numbers cannot grow it without bound
    byRound.set(
      round,
      (n = { round, packet: slotFile("packet", round, member), result: slotFile("result", round, member), seal: sealFile(round, member) }),
    );
  }
  return n;
}
const resultSha = ({ sha }: GateFiles, n: RoundNames) => sha(n.result, n.round);
const sealSha = ({ sha }: GateFiles, n: RoundNames) => sha(n.seal, n.round);
/** How many names the seal has: the verifier's own has one (deliver() drops its staging name before the verdict lands). */
const sealNames = ({ names }: GateFiles, n: RoundNames) => names(n.seal, n.round);

/**
 * Whether a valid verdict counts (SPEC §5, §15): only for the bytes the verifier sealed before writing it, and only
 * while the result is still those bytes. A verdict that verified nothing here (another packet, no seal, or a seal
 * of other bytes) is junk; one whose result is gone or changed, with no seal to tell, ends its round (broken).
 */
function verdictProblem(
  slots: ReviewSlots,
  files: GateFiles,
  n: RoundNames,
  v: VerdictFile,
  member: string | null,
): { reason: string; broken: boolean } | null {
  const packet = slots.packets.get(n.round);
  if (!packet || packet.packet_id !== v.packet_id)
    return { broken: false, reason: `verdict names packet ${v.packet_id}, not the packet issued for round ${n.round}` };
  const sealed = sealSha(files, n);
  const now = resultSha(files, n);
  const names = sealNames(files, n);
  if (sealed !== null && names > 1) {
    return {
      broken: true,
      reason:
        `${n.seal} has ${names} names (a hard link, perhaps to the result itself): the bytes it vouches for ` +
        "can change through another name, so it tells nothing; the round fails closed",
    };
  }
  if (sealed !== null) {
    if (sealed !== v.result_sha256)
      return { broken: false, reason: `verdict names result bytes ${v.result_sha256}, not the bytes the verifier sealed: a stray verdict` };
    // the packet's fields (stop, author family, quorum) judge the result: bytes edited since are not what was verified
    const packetNow = v.packet_sha256 === undefined ? null : files.sha(n.packet, n.round);
    if (v.packet_sha256 !== undefined && packetNow !== v.packet_sha256)
      return {
        broken: true,
        reason:
          `${n.packet} is not the bytes ${slotFile("verdict", n.round, member)} judged against ` +
          `(${v.packet_sha256}, now ${packetNow ?? "unreadable"}): the round fails closed`,
      };
    return null; // bound, or a broken seal that checkSeal records
  }
  if (now === null) return { broken: false, reason: "verdict without a result: forged or stale" };
  if (now === v.result_sha256)
    return { broken: false, reason: `verdict the verifier did not seal: its seal ${n.seal} is missing (removed, or never written)` };
  return {
    broken: true,
    reason:
      `${n.result} is not the bytes ${slotFile("verdict", n.round, member)} verified ` +
      `(${v.result_sha256}, now ${now}), ` +
      "and no seal tells which it was: the round fails closed",
  };
}

/** A round whose verdict is kept but whose result is not the sealed bytes: changed or removed after verification. */
function checkSeal(slots: ReviewSlots, files: GateFiles, n: RoundNames): void {
  if (slots.brokenSeals.has(n.round)) return;
  const sealed = sealSha(files, n);
  if (sealed === null) return;
  const now = resultSha(files, n);
  if (now === sealed) return;
  const name = n.result;
  slots.verdicts.delete(n.round);
  slots.brokenSeals.set(
    n.round,
    now === null
      ? `${name} was removed after verification (the verified bytes have sha256 ${sealed})`
      : `${name} changed after verification (verified sha256 ${sealed}, now ${now})`,
  );
}

/** Whether the gate has a valid outcome.json of its own: a file that merely has the name does not end a gate (SPEC §5). */
export function hasValidOutcome(layout: Layout, runId: string, gate: string): boolean {
  const file = path.join(layout.gateDir(runId, gate), GATE_FILES.outcome);
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch (error) {
    if (isSystemFault(error)) throw new ReadFault(`cannot tell whether ${GATE_FILES.outcome} exists: ${(error as Error).message}`);
    return false;
  }
  if (!st.isFile() || st.size > MAX_FILE_BYTES) return false;
  const { value, reason, fault } = cachedParse(
    file,
    st,
    () => readJson(file, Outcome),
    (r) => !r.unread,
  );
  if (fault) throw new ReadFault(`cannot read ${GATE_FILES.outcome}: ${reason}`);
  return value !== null && value.run_id === runId && value.gate === gate;
}

/** Round n's result bytes and text as read now (bounded, strict UTF-8), or why they cannot be read. */
export function resultBytes(s: Pick<GateSnapshot, "dir" | "member">, round: number): ReturnType<typeof readBytesAndText> {
  return readBytesAndText(path.join(s.dir, slotFile("result", round, s.member)), { max: MAX_FILE_BYTES });
}
