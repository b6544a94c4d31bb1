// Where everything lives under .guild/. Every path is built from validated ids and checked to stay inside .guild/.
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";
import { assertGate, assertRunId, PROVIDER_ID, PROVIDER_ID_RE } from "../spec/ids.js";
import { isSlotKind } from "../core/slot-file.js";
import { FAMILY_MAPS_RE } from "../core/family.js";
import { terminalSafe } from "../core/terminal-safe.js";
import { insideGuild, PathSafetyError, refuseSymlinks } from "./no-symlinks.js";

const GUILD_DIR = ".guild";

/** Immutable per-round artifacts of a gate directory, by kind. */
const ROUND_KINDS = [
  "packet",
  "attempt",
  "result",
  "response",
  "failure",
  "verdict",
  "resubmit",
  "escalation",
  "decision",
  "memory",
  "rebuttal",
] as const;
export type RoundKind = (typeof ROUND_KINDS)[number];

type Worker = "broker" | "verifier" | "manual";

/**
 * Every file of a gate directory (SPEC §1, §3, §6): its extension, who writes it, who reads it, and which worker moves
 * an invalid one aside — results the verifier, responses the manual worker, the rest the broker; a verdict that verified
 * nothing here the verifier at once (it needs the slot) and the broker after the grace period (no verifier running).
 */
export const GATE_FILE_KINDS: Readonly<
  Record<
    RoundKind | "request" | "outcome",
    {
      ext: "md" | "json";
      writer: string;
      readers: string;
      movers: readonly Worker[];
      wakes: readonly Worker[];
      /** Woken only when such a file is gone (another worker moved it aside): its arrival gives them no work. */
      wakesWhenGone?: readonly Worker[];
    }
  >
> = {
  request: { ext: "json", writer: "author (review)", readers: "broker, status", movers: ["broker"], wakes: ["broker"] },
  packet: { ext: "md", writer: "broker", readers: "reviewer workers, manual worker, verifier", movers: ["broker"], wakes: ["manual"] },
  attempt: { ext: "json", writer: "reviewer worker", readers: "broker, reviewer workers", movers: ["broker"], wakes: [] },
  result: {
    ext: "json",
    writer: "reviewer worker, manual worker, respond, foreign tool",
    readers: "verifier, broker",
    movers: ["verifier"],
    wakes: ["verifier"],
    wakesWhenGone: ["broker"],
  },
  response: { ext: "md", writer: "a human", readers: "manual worker", movers: ["manual"], wakes: ["manual"], wakesWhenGone: ["broker"] },
  failure: { ext: "json", writer: "reviewer worker", readers: "broker", movers: ["broker"], wakes: ["broker"] },
  verdict: { ext: "json", writer: "verifier", readers: "broker, status --verify", movers: ["verifier", "broker"], wakes: ["broker"] },
  resubmit: { ext: "json", writer: "author (resubmit)", readers: "broker", movers: ["broker"], wakes: ["broker"] },
  escalation: { ext: "json", writer: "broker", readers: "decide, status", movers: ["broker"], wakes: [] },
  decision: { ext: "json", writer: "a human (decide)", readers: "broker", movers: ["broker"], wakes: ["broker"] },
  memory: { ext: "md", writer: "reviewer worker, manual worker", readers: "broker (next packet)", movers: ["broker"], wakes: [] },
  rebuttal: { ext: "md", writer: "author (rebut)", readers: "broker (ruling packet)", movers: ["broker"], wakes: ["broker"] },
  // every worker ends its look at the gate on it (another broker's too): none waits for the full-scan look to let go
  outcome: { ext: "json", writer: "broker", readers: "everyone", movers: ["broker"], wakes: ["broker", "verifier", "manual"] },
};

const ROUND_FILE_RE = new RegExp(`^(${ROUND_KINDS.join("|")})-(0|[1-9][0-9]{0,8})\\.(md|json)$`);
/** A quorum member's file: the provider id (SPEC §2's grammar, which may hold dots) before the extension. */
const MEMBER_FILE_RE = new RegExp(`^(${ROUND_KINDS.join("|")})-([1-9][0-9]{0,8})\\.(${PROVIDER_ID})\\.(md|json)$`);

/**
 * Parse a gate-directory file name; null for anything that is not a round artifact of the right extension. `member`
 * is the quorum member a reviewer's file belongs to (SPEC §26), null for the gate's own.
 */
export function parseRoundFile(name: string): { kind: RoundKind; round: number; member: string | null } | null {
  const plain = ROUND_FILE_RE.exec(name);
  if (plain) {
    const kind = plain[1] as RoundKind;
    if (GATE_FILE_KINDS[kind].ext !== plain[3]) return null;
    const round = Number(plain[2]);
    if (round === 0 && kind !== "escalation" && kind !== "decision") return null;
    return { kind, round, member: null };
  }
  const m = MEMBER_FILE_RE.exec(name);
  if (!m || !isSlotKind(m[1]!)) return null;
  const kind = m[1] as RoundKind;
  if (GATE_FILE_KINDS[kind].ext !== m[4]) return null;
  return { kind, round: Number(m[2]), member: m[3]! };
}

export const GATE_FILES = { request: "request.json", outcome: "outcome.json", trail: "trail.md" } as const;
export const EVENTS_FILE = "events.jsonl";

const KIND_PREFIX_RE = new RegExp(`^(${ROUND_KINDS.join("|")})-[0-9]+(?:\\.[a-z0-9._-]+)?\\.(?:md|json)$`);

/** A name spelled as every bus name is (lower-case ASCII, nothing around it): most names, kept without a look. */
const PLAIN_NAME_RE = /^[a-z0-9_-](?:[a-z0-9._-]*[a-z0-9_-])?$/;
/** Characters no one sees (zero-width space, BOM, soft hyphen, …): a name holding them looks like the bus name. */
const INVISIBLE_RE = /\p{Default_Ignorable_Code_Point}/gu;
/** White space either side and dots after: an editor, a shell's quoting or a Windows share leaves them. */
const AROUND_RE = /^\s+|[\s.]+$/gu;

/**
 * The name as the bus spells names, case, white space or dots around it, invisible characters and Unicode's other
 * forms (fullwidth digits, ligatures) aside: `Result-1.json`, `response-1.md ` and `result-１.json` are meant as
 * the bus name it gives, which they never are (and on a case-insensitive filesystem the first holds that name).
 */
function busSpelling(name: string): string {
  if (PLAIN_NAME_RE.test(name)) return name;
  return name.normalize("NFKC").replace(INVISIBLE_RE, "").replace(AROUND_RE, "").toLowerCase();
}

/** Whether some worker moves an invalid file of this name aside: a name of a bus file's kind, however misnamed. */
export function anyMoverFor(name: string): boolean {
  const spelled = busSpelling(name);
  return spelled === GATE_FILES.request || spelled === GATE_FILES.outcome || KIND_PREFIX_RE.test(spelled);
}

const AS_WRITTEN = "the bus reads a name only as it writes it (lower case, plain ASCII, nothing around it)";
const MISNAMED_RE = new RegExp(`^(${ROUND_KINDS.join("|")})-([0-9]+)(?:\\.([a-z0-9._-]+))?\\.(md|json)$`);

/**
 * Why a name of a bus file's kind is no bus file's name (it is moved aside with this reason, SPEC §5): the name the
 * writer most likely meant, so a foreign writer learns the grammar (§2) from the refusal. Null: it is a round file.
 */
export function misnamedReason(name: string): string | null {
  const spelled = busSpelling(name);
  if (spelled !== name) {
    if (!anyMoverFor(spelled)) return null;
    // quoted, with any invisible character escaped: a space, a dot or a zero-width space after the name is seen
    const said = `${terminalSafe(JSON.stringify(name))} is not ${spelled}: ${AS_WRITTEN}`;
    const more = misnamedReason(spelled);
    return more ? `${said}; and ${more}` : said;
  }
  if (parseRoundFile(name)) return null;
  const m = MISNAMED_RE.exec(name);
  if (!m) return null;
  const [, kind, digits, member, ext] = m as unknown as [string, RoundKind, string, string | undefined, string];
  const round = Number(digits);
  const want = GATE_FILE_KINDS[kind].ext;
  const meant = (n: number | string, who = member) => `${kind}-${n}${who === undefined ? "" : `.${who}`}.${want}`;
  const roundZero = round === 0 && member === undefined && (kind === "escalation" || kind === "decision");
  if (digits.length > 1 && digits.startsWith("0") && (round > 0 || roundZero))
    return `round written with leading zeros: rounds are written without them (${meant(round)})`;
  if (round === 0 && !roundZero)
    return member === undefined
      ? `round 0 is only escalation-0.json's and decision-0.json's: rounds of ${kind} files start at 1`
      : "round 0 has no quorum members: a member's round starts at 1";
  if (digits.length > 9) return "a round has at most 9 digits";
  if (member !== undefined && !isSlotKind(kind)) return `${kind} files are the round's, not a quorum member's: ${kind}-${round}.${want}`;
  if (member !== undefined && !PROVIDER_ID_RE.test(member)) return `${member} is not a provider id (${PROVIDER_ID_RE.source})`;
  if (ext !== want) return `a ${kind} file is .${want}: ${meant(round)}`;
  return null;
}

/**
 * Whether `worker` moves an invalid file of this name aside (to rejected/ with its reason): by the file's kind, so a
 * misnamed drop of a kind (`result-0.json`, `packet-2.json`) is its movers' too.
 */
export function movesAside(worker: Worker, exact: string): boolean {
  // a family-maps file that is not the bytes its name binds is the broker's to move: it writes them, and until the
  // name is free again it cannot deliver a packet under those maps (a planted file would hold the gate for good)
  if (FAMILY_MAPS_RE.test(exact)) return worker === "broker";
  const name = busSpelling(exact); // a name misspelt as the bus name of a kind is that kind's movers'
  if (name === GATE_FILES.request) return GATE_FILE_KINDS.request.movers.includes(worker);
  if (name === GATE_FILES.outcome) return GATE_FILE_KINDS.outcome.movers.includes(worker);
  const kind = KIND_PREFIX_RE.exec(name)?.[1] as RoundKind | undefined;
  return kind !== undefined && GATE_FILE_KINDS[kind].movers.includes(worker);
}

/**
 * Whether a file of this name landing in (or leaving) an active gate may give `worker` work at once (`wakes` above):
 * its own deliveries and the files it only reads later do not wake it, and the reconcile pass still sees every
 * change of the directory. The broker wakes on a result or response only once it is gone (the verifier or the manual
 * worker moved it aside, and the trail must show that): one that arrives wakes the worker that reads it, whose
 * verdict or result then wakes the broker. `gone` is asked only then. Workers not in the table (the reviewers) wake
 * on every file.
 */
export function wakes(worker: string, name: string, gone: () => boolean = () => false): boolean {
  if (!WAKE_TABLE_WORKERS.has(worker)) return true;
  const kind = name === GATE_FILES.request ? "request" : name === GATE_FILES.outcome ? "outcome" : parseRoundFile(name)?.kind;
  if (kind === undefined) return true;
  const entry = GATE_FILE_KINDS[kind];
  return entry.wakes.includes(worker as Worker) || (entry.wakesWhenGone?.includes(worker as Worker) === true && gone());
}

const WAKE_TABLE_WORKERS = new Set<string>(["broker", "verifier", "manual"] satisfies Worker[]);

export { PathSafetyError };

export class Layout {
  readonly root: string;
  readonly guild: string;
  private realRootMemo: string | null = null;

  constructor(projectRoot: string) {
    this.root = path.resolve(projectRoot);
    this.guild = path.join(this.root, GUILD_DIR);
  }

  /** The root's real path, resolved once: a project is not moved under running workers, and each round reads its artifact. */
  realRoot(): string {
    return (this.realRootMemo ??= realpathSync.native(this.root));
  }

  get runs(): string {
    return path.join(this.guild, "runs");
  }
  get settings(): string {
    return path.join(this.guild, "settings.json");
  }
  get codexSkipStreak(): string {
    return path.join(this.guild, "codex-skip-streak.json");
  }
  get probeCache(): string {
    return path.join(this.guild, "probe-cache.json");
  }
  /** Logs of workers started on someone's behalf (`guild-bus mcp` starts `up`): nobody's terminal shows them. */
  get logs(): string {
    return path.join(this.guild, "logs");
  }
  /** How often the stop hook blocked each gate (a replaceable view; losing it only resets the counts). */
  get stopGateState(): string {
    return path.join(this.guild, "stop-gate.json");
  }
  /** Who supervises this tree's workers (`guild-bus up`): one at a time. */
  get supervisorLock(): string {
    return path.join(this.guild, "up.lock");
  }
  get hosts(): string {
    return path.join(this.guild, "hosts");
  }

  runDir(runId: string): string {
    return this.inside(path.join(this.runs, assertRunId(runId)));
  }
  runMeta(runId: string): string {
    return path.join(this.runDir(runId), "run.json");
  }
  events(runId: string): string {
    return path.join(this.runDir(runId), EVENTS_FILE);
  }

  gateDir(runId: string, gate: string): string {
    return this.inside(path.join(this.runDir(runId), "review", assertGate(gate)));
  }
  gateFile(runId: string, gate: string, name: string): string {
    return this.inside(path.join(this.gateDir(runId, gate), name));
  }
  claimsDir(runId: string, gate: string): string {
    return path.join(this.gateDir(runId, gate), ".claims");
  }

  /** Resolve an artifact path (or, as `what` says, another path) given relative to the project root; it must stay inside the project. */
  artifact(relPath: string, what = "artifact path"): string {
    const abs = this.spelledFromRoot(path.resolve(this.root, relPath));
    if (abs !== this.root && !abs.startsWith(this.root + path.sep)) {
      throw new PathSafetyError(`${what} escapes the project: ${relPath}`);
    }
    return abs;
  }

  /**
   * `abs` spelled under the root as given. A root given through a symlink (`--root "$PWD"` in a linked directory,
   * macOS's /tmp) and a path through the real directories (the current directory is always real) name one file:
   * the path is re-spelled from the root when its directory resolves inside it. The file's own name is kept (a link
   * there is the artifact's name, read through by `readableArtifact`).
   */
  private spelledFromRoot(abs: string): string {
    if (abs === this.root || abs.startsWith(this.root + path.sep)) return abs;
    try {
      const root = this.realRoot();
      const dir = realpathSync.native(path.dirname(abs));
      const rel = path.relative(root, dir);
      if (rel.startsWith("..") || path.isAbsolute(rel)) return abs;
      return path.join(this.root, rel, path.basename(abs));
    } catch {
      return abs; // a directory that does not exist leads nowhere inside
    }
  }

  /** The artifact's real path for reading: a symlink may not lead out of the project. */
  readableArtifact(relPath: string, what = "artifact path"): string {
    // one realpath(3) call each: the JS realpath lstats every component, on every round's read of the artifact
    const real = realpathSync.native(this.artifact(relPath, what));
    const root = this.realRoot();
    if (real !== root && !real.startsWith(root + path.sep)) throw new PathSafetyError(`${relPath} resolves outside the project`);
    // the bus's own files change as it works (a trail is rewritten every round): a pass of one could never hold, and
    // a link must not make one an artifact; nor may .guild's own link to a directory of the project (SPEC §2)
    // and a nested project's bus (a package with its own .guild/) is state all the same
    const guild = this.realGuild() ?? path.join(root, GUILD_DIR);
    if (real === guild || real.startsWith(guild + path.sep) || path.relative(root, real).split(path.sep).includes(GUILD_DIR)) {
      const via = path.relative(root, real) === relPath ? "" : ` (it resolves to ${path.relative(root, real)})`;
      throw new PathSafetyError(`${relPath} is the bus's own state${via}, not an artifact`);
    }
    return real;
  }

  /** The real path of .guild (a link there is the bus root the project chose), or null while there is none. */
  realGuild(): string | null {
    try {
      // one lstat when .guild is a plain directory (the usual case, asked at every artifact read); a link is resolved
      if (lstatSync(this.guild).isDirectory()) return path.join(this.realRoot(), GUILD_DIR);
      return realpathSync.native(this.guild);
    } catch {
      return null;
    }
  }

  /** Project-relative form of a path (for packets, trails and messages). */
  rel(abs: string): string {
    return path.relative(this.root, abs).split(path.sep).join("/");
  }

  /** The one spelling of a project path, as `review` records it: `./docs//a.md` and `docs/a.md` name one file. */
  projectPath(relPath: string): string {
    return this.rel(path.resolve(this.root, relPath));
  }

  private inside(p: string): string {
    const resolved = path.resolve(p);
    if (!resolved.startsWith(this.guild + path.sep)) throw new PathSafetyError(`path escapes .guild/: ${p}`);
    return resolved;
  }

  /** Refuse symlinks anywhere between .guild and the given path (inclusive). */
  assertNoSymlinks(p: string): void {
    if (!insideGuild(this.guild, p)) throw new PathSafetyError(`path escapes .guild/: ${p}`);
    refuseSymlinks(this.guild, p);
  }
}
