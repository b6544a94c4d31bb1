// The shared shell of every worker: a level-triggered reconciler. It scans the active gates at start and every
// ~2 s and derives what to do from the directory alone; watcher events only make it sooner (or, for a file that
// gives the worker no work, spare it a look).
import { type Dirent, existsSync, type FSWatcher, lstatSync, readdirSync, statfsSync, statSync, watch as fsWatch } from "node:fs";
import path from "node:path";
import { EVENTS_FILE, GATE_FILES, type Layout } from "../bus/layout.js";
import { hasValidOutcome } from "../bus/gate-reader.js";
import { isGate, isRunId } from "../spec/ids.js";
import { sweepScratch, sweepStaging } from "../bus/janitor.js";
import { sweepOrphanGroups } from "../bus/reviewer-groups.js";
import { FinishedRuns, finishedRunsFile, gateStamp, holdsOutcome } from "../bus/finished-runs.js";
import { HistoryWalk } from "./history-walk.js";
import { PEER_BEAT_MS, Peers, peersDir } from "./peers.js";
import { textOf } from "../core/text-of.js";
import { withStuckGates } from "../core/stuck.js";
import { withLooked } from "../core/presence-body.js";
import { ReadFault } from "../core/read-fault.js";
import { isRefusedWrite, refusedWriteFix } from "../bus/refused-write.js";
import { forgetParsedUnder } from "../bus/parse-cache.js";
import { DirectoryGone, projectDir } from "../bus/make-dirs.js";

export interface GateRef {
  runId: string;
  gate: string;
  key: string;
}

export type GateStatus = "active" | "finished";

export interface WorkerSpec {
  kind: string;
  layout: Layout;
  /** true forces polling; "auto" polls on network and FUSE filesystems. */
  poll: boolean | "auto";
  reconcileMs?: number;
  fullScanMs?: number;
  concurrency?: number;
  handleGate(ref: GateRef, signal: AbortSignal): Promise<GateStatus>;
  /** false: never sweep staging orphans or scratch directories (a reader that must not write, like `guild-bus ui`). */
  janitor?: boolean;
  /**
   * true: a history walk (history-walk.ts) replaces the full scan: runs .guild/finished-runs/<kind>.log lists as
   * finished are only named, then verified by a paced sweep; the worker writes that log as runs finish and reopen.
   */
  skipFinishedRuns?: boolean;
  /**
   * Whether a file of this name landing in (or leaving) an active gate should wake this worker at once; `gone` says
   * whether it has left. When false the event only marks the directory's change as seen (`quietChange`). Default:
   * every name.
   */
  wakesOn?(name: string, gone: () => boolean): boolean;
  /**
   * true: workers of this kind on the tree split the work events bring, each gate to one live peer (peers.ts); every
   * worker still looks at every active gate once per full-scan interval. For kinds whose every worker can do every
   * gate's work (the broker, the verifier); not for reviewers, which may serve different providers.
   */
  shareWork?: boolean;
  /**
   * The body of this worker's presence file, asked at each beat (null: an empty file). A reviewer worker advertises
   * there the providers it can run on its machine (SPEC §18), which brokers and its peers read.
   */
  presence?: () => string | null;
  /** Called once per reconcile pass before gates are handled (e.g. reload settings). */
  beforePass?(): void;
  log(message: string): void;
}

/** Filesystems where inotify does not see other machines' writes (statfs f_type → name); FUSE covers sshfs. */
const REMOTE_FS = new Map([
  [0x6969, "NFS"],
  [0xfe534d42, "SMB2"],
  [0xff534d42, "CIFS"],
  [0x01021997, "9p"],
  [0x65735546, "FUSE"],
]);

function shouldPoll(dir: string, setting: boolean | "auto"): { poll: boolean; why: string } {
  if (setting === true) return { poll: true, why: "--poll" };
  if (process.env.CHOKIDAR_USEPOLLING && /^(1|true)$/i.test(process.env.CHOKIDAR_USEPOLLING))
    return { poll: true, why: "CHOKIDAR_USEPOLLING" };
  if (setting === false) return { poll: false, why: "watch" };
  if (/^\/mnt\/[a-z]\//.test(dir) && process.env.WSL_DISTRO_NAME) return { poll: true, why: "WSL drive mount" };
  try {
    const type = Number(statfsSync(dir).type);
    if (REMOTE_FS.has(type)) return { poll: true, why: `filesystem type 0x${type.toString(16)} (${REMOTE_FS.get(type)})` };
  } catch {
    // statfs unsupported: native watching is the default
  }
  return { poll: false, why: "local filesystem" };
}

function gateKey(runId: string, gate: string): string {
  return `${runId}\u0000${gate}`;
}

function dirMtime(dir: string): number {
  try {
    return statSync(dir).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * Whether this process's stat reports birth times. On Linux without statx (a kernel before 4.11, a seccomp filter that
 * refuses it) Node reports the ctime as the birthtime, which moves with every entry made in a directory; statx reports
 * /proc/self's, which it has none of, as 0. Unsure (no /proc): none.
 */
let birthTimes: boolean | undefined;
function statHasBirthTimes(): boolean {
  if (birthTimes !== undefined) return birthTimes;
  if (process.platform !== "linux") return (birthTimes = true);
  try {
    const proc = statSync("/proc/self");
    return (birthTimes = proc.birthtimeMs !== proc.ctimeMs);
  } catch {
    return (birthTimes = false);
  }
}

/**
 * Which directory is at `dir` now (through links; a directory removed and made again is another), or null: none.
 * Without birth times, one made again on the same inode between two looks is taken for the same.
 */
function dirId(dir: string): string | null {
  try {
    const st = statSync(dir);
    return st.isDirectory() ? `${st.dev}:${st.ino}${statHasBirthTimes() ? `:${st.birthtimeMs}` : ""}` : null;
  } catch {
    return null;
  }
}

/** After a new directory is seen (and watched), when it is looked at again. */
export const NEW_DIR_LOOKS_MS = [50, 500];

/**
 * A directory's mtime as a look saw it: `at` is this machine's wall clock, compared with the mtime only; `tick` the
 * monotonic clock, for every interval (a wall clock stepped back an hour would hold the full-scan look, and with it the
 * grace periods and stale claims only time moves, for an hour).
 */
interface Look {
  mtime: number;
  at: number;
  tick: number;
}

const lookedAt = (mtime: number): Look => ({ mtime, at: Date.now(), tick: performance.now() });

/**
 * Ended runs whose run and review/ watches stay (the most recently ended): the next gate of such a run is seen at once.
 * An older one's next gate is found by the reconcile pass and the history sweep, as after a restart; one watch pair per
 * run ever ended would grow with history until the user's inotify limit (shared with every other program) ran out.
 */
export const ENDED_RUNS_WATCHED = 32;

/**
 * Whole-second mtimes (sshfs and every SFTP v3 mount) cannot show a second change within the same second: a gate
 * handled less than that second (plus a second of clock skew) after its directory's mtime is handled once more.
 */
function mayHideAChange(last: Look): boolean {
  return last.mtime > 0 && last.mtime % 1000 === 0 && last.at - last.mtime < 2000;
}

function listDirents(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The longest a gate whose handler keeps throwing waits between tries. */
const MAX_BACKOFF_MS = 5 * 60_000;

/** A gate whose handler threw, how often in a row, when it may run again, since when, and the last error. */
interface Failing {
  ref: GateRef;
  count: number;
  until: number;
  since: string;
  error: string;
}

/** The presence body with the gates this worker keeps failing to move (SPEC §18): status names them and the error. */
function withStuck(base: string | null, failing: ReadonlyMap<string, Failing>): string | null {
  if (!failing.size) return base;
  const stuck = [...failing.values()].map((f) => ({
    run_id: f.ref.runId,
    gate: f.ref.gate,
    tries: f.count,
    since: f.since,
    error: f.error,
  }));
  return withStuckGates(base, stuck);
}
/** A handler running this long is no round in flight (a broker's or verifier's step takes milliseconds). */
const QUICK_HANDLER_MS = 1000;

export class WorkerRuntime {
  private readonly active = new Map<string, GateRef>();
  /** Finished gates and their directory mtime when they finished: a later drop there is looked at once. */
  private readonly finished = new Map<string, number>();
  /** Runs seen on disk; those in openRuns (an active gate, or no gate yet) are rescanned on every quick pass. */
  private readonly knownRuns = new Set<string>();
  private readonly openRuns = new Set<string>();
  /** Runs the finished-runs log lists, and the walk that covers them (null: every run is scanned, as the console needs);
   * made anew each time .guild/runs is found (a .guild removed and made again holds another log). */
  private finishedLog: FinishedRuns | null = null;
  private walk: HistoryWalk | null = null;
  /** Which .guild/runs this worker follows (dirId); null while there is none, undefined before start. */
  private runsId: string | null | undefined = undefined;
  /** The log this kind keeps of its finished runs (null: none, every run is scanned). */
  private readonly logFile: string | null;
  /** The runs directory's mtime when it was last listed, and when. */
  private runsListed: Look = { mtime: -1, at: 0, tick: 0 };
  private readonly queue = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  private readonly abort = new AbortController();
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;
  private stopPromise: Promise<void> | null = null;
  readonly pollMode: { poll: boolean; why: string };

  constructor(private readonly spec: WorkerSpec) {
    const { layout } = spec;
    // looked at, never made: a worker never starts a project (SPEC §4); until a command makes .guild/runs it waits
    // (followProject). A worker asked for a project whose directory is gone refuses to start.
    if (!existsSync(projectDir(layout.guild))) throw new DirectoryGone(projectDir(layout.guild));
    try {
      if (statSync(layout.runs, { throwIfNoEntry: false })?.isDirectory() === false)
        throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") throw error;
      throw new Error(`${layout.rel(layout.runs)} (or a directory above it) is not a directory: move it aside, then start again`, {
        cause: error,
      });
    }
    // the filesystem .guild/runs is on; while there is none, the nearest directory above it (a linked .guild: its link)
    this.pollMode = shouldPoll([layout.runs, layout.guild].find((dir) => existsSync(dir)) ?? layout.root, spec.poll);
    this.logFile = spec.skipFinishedRuns ? finishedRunsFile(layout, spec.kind) : null;
    // every worker that writes says it is alive (status names a role nobody runs); a reader (the console) does not
    this.peers =
      spec.shareWork || spec.janitor !== false
        ? new Peers(spec.layout, peersDir(spec.layout, spec.kind), undefined, () =>
            withLooked(withStuck(spec.presence?.() ?? null, this.failing), this.looked()),
          )
        : null;
  }

  private readonly peers: Peers | null;
  /** Why other processes cannot see this worker, as last said (null: they can). */
  private unseenSaid: string | null = null;

  /** Whether an event in this gate is this worker's to act on at once (its share, or all when it works alone). */
  private owns(key: string): boolean {
    return !this.spec.shareWork || (this.peers?.owns(key) ?? true);
  }

  /** Say this worker is alive; when the peers sharing the work changed, the gates now its share are looked at at once. */
  private beat(): void {
    if (!this.peers) return;
    const changed = this.peers.beat();
    // said when it starts and when it ends: `status`, `review --wait` and the other workers find a worker by that file;
    // while .guild is gone, followProject's line says why (there is nobody to see it)
    const unseen = this.runsId === null ? this.unseenSaid : this.peers.unseen;
    if (unseen !== this.unseenSaid)
      this.spec.log(
        (this.unseenSaid = unseen) === null
          ? "this worker's presence file is written again: other processes see it"
          : `status, review --wait and other workers cannot see this worker (it still works): ${unseen}`,
      );
    if (!changed || !this.spec.shareWork) return;
    this.spec.log(`${this.peers.count()} ${this.spec.kind} worker(s) share this tree's gates`);
    for (const key of this.active.keys()) if (this.peers.owns(key)) this.enqueue(key);
  }

  private historyWalk(finishedLog: FinishedRuns): HistoryWalk {
    return new HistoryWalk({
      runsDir: this.spec.layout.runs,
      finishedLog,
      fullScanMs: this.spec.fullScanMs ?? 10_000,
      stopped: () => this.stopped,
      busy: () => this.handlingQuickly(),
      isKnown: (runId) => this.knownRuns.has(runId),
      skip: (runId) => void this.knownRuns.add(runId),
      scan: (runId, isDir) => this.scanRun(runId, isDir),
      verify: (runId) => {
        if (!this.openRuns.has(runId) && !finishedLog.unchanged(runId)) this.scanRun(runId);
      },
      finishedRuns: () => this.finishedRuns(),
      finishedCount: () => Math.max(0, this.knownRuns.size - this.openRuns.size),
      afterBatch: () => {
        this.finishedLog?.flush();
        this.pump();
      },
      log: (message) => this.spec.log(message),
    });
  }

  /**
   * A gate's handler started less than QUICK_HANDLER_MS ago is still running: a round in flight, whose next steps the
   * history walk must not queue behind. A handler running longer (a review waiting on its CLI) holds nothing back.
   */
  private handlingQuickly(): boolean {
    const now = performance.now();
    for (const key of this.running.keys()) if (now - (this.handled.get(key)?.tick ?? -Infinity) < QUICK_HANDLER_MS) return true;
    return false;
  }

  /** Known runs with no active gate, read live from the set (a run scanned meanwhile is skipped or visited once more). */
  private *finishedRuns(): Generator<string> {
    for (const runId of this.knownRuns) if (!this.openRuns.has(runId)) yield runId;
  }

  async start(): Promise<void> {
    const { layout } = this.spec;
    this.janitor();
    if (this.pollMode.poll) this.chokidarWatch = (await import("chokidar")).watch;
    this.followProject();
    this.beat();
    this.pump();
    const reconcile = this.spec.reconcileMs ?? 2000;
    this.timers.push(setInterval(() => this.reconcile(), reconcile));
    if (!this.logFile) this.timers.push(setInterval(() => this.fullScan(), this.spec.fullScanMs ?? 10_000));
    this.timers.push(setInterval(() => this.janitor(), 10 * 60_000));
    if (this.peers) this.timers.push(setInterval(() => this.beat(), PEER_BEAT_MS));
    this.spec.log(
      `${this.spec.kind} worker watching ${layout.rel(layout.runs)} (${this.pollMode.poll ? "polling" : "native"}: ${this.pollMode.why})`,
    );
  }

  /** Stop taking work, abort in-flight handlers, close the watcher. */
  stop(): Promise<void> {
    if (this.stopPromise) return this.stopPromise;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.walk?.stop();
    this.abort.abort(new Error("worker stopping"));
    this.stopPromise = (async () => {
      await Promise.allSettled([...this.running.values()]);
      this.runsWatcher?.close();
      await Promise.all([...this.watchers.values()].map((w) => w.close()));
      this.peers?.leave();
    })();
    return this.stopPromise;
  }

  /**
   * Stop taking new work but let the handlers in flight finish (a paid review is not thrown away), then stop.
   * `stop()` meanwhile aborts them.
   */
  async drain(): Promise<void> {
    if (this.stopPromise) return this.stopPromise;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    // still alive while the work in flight (a paid review) finishes: status must not say no such worker runs
    this.timers = this.peers ? [setInterval(() => this.peers?.beat(), PEER_BEAT_MS)] : [];
    const inFlight = [...this.running.keys()].map((key) => key.replace("\u0000", "/"));
    if (inFlight.length) this.spec.log(`finishing what is in flight before exiting: ${inFlight.join(", ")} (no new work is taken)`);
    await Promise.allSettled([...this.running.values()]);
    return this.stop();
  }

  /** Gates this worker still considers active (for tests and status). */
  activeCount(): number {
    return this.active.size;
  }

  private janitor(): void {
    if (this.spec.janitor === false) return;
    try {
      const r = sweepStaging(this.spec.layout.guild);
      if (r.removed.length) this.spec.log(`janitor removed ${r.removed.length} staging orphan(s)`);
      const scratch = sweepScratch();
      if (scratch.length)
        this.spec.log(`janitor removed ${scratch.length} scratch director${scratch.length === 1 ? "y" : "ies"} of dead workers`);
      const groups = sweepOrphanGroups();
      if (groups.length)
        this.spec.log(
          `janitor killed what dead workers' reviewers left running (groups, or processes that left them): ${groups.join(", ")}`,
        );
    } catch (error) {
      this.spec.log(`janitor failed: ${(error as Error).message}`);
    }
  }

  /**
   * Follow .guild/runs as it is now. When it went (a person removed .guild: a reset) or was made anew, what this worker
   * held of it is dropped, said once; when it is there (again: a later `review` made it), it is watched and
   * scanned as at a start. False while there is none: nothing is looked at, and nothing made (SPEC §4).
   */
  private followProject(): boolean {
    const id = dirId(this.spec.layout.runs);
    if (id === this.runsId) return id !== null;
    const [before, runs] = [this.runsId, this.spec.layout.rel(this.spec.layout.runs)];
    if (before) this.forgetProject();
    this.runsId = id;
    if (id === null)
      this.spec.log(
        existsSync(this.spec.layout.runs) // a file put there: no review makes it, a person moves it aside
          ? `${runs} is not a directory: move it aside; this worker follows no runs until then`
          : `${runs} is not there (no review yet, or .guild was removed): this worker makes nothing, and waits for the ` +
              "next `guild-bus review` to make it",
      );
    else {
      if (before !== undefined) this.spec.log(`${runs} is ${before === null ? "there now" : "a new one (made again)"}: following it`);
      this.followRuns();
    }
    return id !== null;
  }

  /** Drop all this worker holds of a .guild/runs that went: its runs and gates, their watches, its finished-runs log. */
  private forgetProject(): void {
    this.walk?.stop();
    [this.walk, this.finishedLog] = [null, null];
    for (const runId of [...this.knownRuns]) this.forgetRun(runId);
    this.forgetGates(() => true);
    for (const dir of [...this.watchers.keys()]) this.unwatch(dir);
    this.runsWatcher?.close();
    this.runsWatcher = null;
  }

  /**
   * Hints come from native fs.watch watchers: one on .guild/runs itself (one inotify watch however much history it
   * holds: it only says "a run appeared") and one, non-recursive, on each directory that can still carry work (open
   * runs, their review/ dir, active gates), a gate's closed when it finishes. In polling mode chokidar polls those
   * directories instead and the runs directory is read on every reconcile pass. Each directory has a watcher of its
   * own: a shared chokidar watcher's unwatch() grows an ignore list that every later event is matched against. Then
   * every run is listed: through the finished-runs log, read anew, or all scanned.
   */
  private followRuns(): void {
    const { runs } = this.spec.layout;
    if (!this.pollMode.poll) {
      try {
        this.runsWatcher = fsWatch(runs, (_event, name) => {
          if (name && isRunId(String(name))) this.newDir(path.join(runs, String(name)));
        });
        this.runsWatcher.on("error", (error) => this.spec.log(`runs watcher error (${error.message}); reconcile continues`));
      } catch (error) {
        this.spec.log(`cannot watch ${runs} (${(error as Error).message}); new runs are found by the reconcile pass`);
      }
    }
    if (this.logFile) {
      this.finishedLog = new FinishedRuns(this.spec.layout, this.logFile);
      this.walk = this.historyWalk(this.finishedLog);
      this.noteRunsListed();
      void this.walk.start().catch((error: Error) => this.spec.log(`history walk failed: ${error.stack ?? error}`));
    } else this.scanAll();
  }

  private chokidarWatch: typeof import("chokidar").watch | null = null;

  private runsWatcher: FSWatcher | null = null;

  private newDir(p: string): void {
    this.followDir(p);
    this.hint(p);
    // a directory can fill before its watch is in place: look again shortly
    for (const delay of NEW_DIR_LOOKS_MS) {
      const t = setTimeout(() => this.lookAgain(p), delay);
      t.unref();
    }
  }

  /**
   * A new directory's later look: a gate's handler runs again only if a name came or went since it last read it. Not
   * when polling: a file that landed before the poller's first listing gives no event, and a quiet change after it would
   * hide it from the mtime.
   */
  private lookAgain(p: string): void {
    const [runId, , gate] = path.relative(this.spec.layout.runs, p).split(path.sep);
    const ref = gate !== undefined && isRunId(runId) ? this.active.get(gateKey(runId, gate)) : undefined;
    if (ref && !this.pollMode.poll && !this.changedSinceHandled(ref)) return;
    this.rescanDir(p);
  }

  /** Extend the watch one level down a new run (its review/ dir) or into a new gate directory. */
  private followDir(p: string): void {
    const rel = path.relative(this.spec.layout.runs, p).split(path.sep);
    const gate = rel.length === 3 && rel[1] === "review" && isGate(rel[2]) && !this.finished.has(gateKey(rel[0]!, rel[2]));
    const wanted = (rel.length === 1 && isRunId(rel[0])) || (rel.length === 2 && rel[1] === "review") || gate;
    if (wanted) this.watch(p);
  }

  private readonly watchers = new Map<string, { close(): unknown }>();

  private watch(dir: string): void {
    if (this.stopped || this.watchers.has(dir)) return;
    const watcher = this.pollMode.poll ? this.pollingWatcher(dir) : this.nativeWatcher(dir);
    if (watcher) this.watchers.set(dir, watcher);
  }

  /**
   * Dot-files (claims, editor temp files) and rejected/ never carry work; nor do the views and logs the workers write
   * from the other files (trail.md, events.jsonl), rewritten or appended at every step of every gate.
   */
  private static carriesWork(name: string): boolean {
    return !name.startsWith(".") && name !== "rejected" && name !== GATE_FILES.trail && name !== EVENTS_FILE;
  }

  /**
   * A native, non-recursive fs.watch: one inotify watch for the directory and a name per event, so an event costs a
   * path join (chokidar would list and lstat the directory and watch every file in it as well).
   */
  private nativeWatcher(dir: string): FSWatcher | null {
    const level = path.relative(this.spec.layout.runs, dir).split(path.sep).length; // 1 run, 2 review/, 3 gate
    try {
      const watcher = fsWatch(dir, (event, name) => {
        if (name === null) return void this.rescanDir(dir);
        // Linux reports the watched directory's own removal as a rename of its name: drop the dead watch, so the
        // directory is watched again if it comes back.
        if (event === "rename" && name === path.basename(dir) && !existsSync(dir)) return void this.unwatch(dir);
        const p = path.join(dir, String(name));
        if (!WorkerRuntime.carriesWork(String(name))) return void (level === 3 && this.quietChange(p));
        if ((level === 1 && name === "review") || (level === 2 && isGate(String(name)))) this.newDir(p);
        else this.hint(p);
      });
      watcher.on("error", (error) => {
        this.spec.log(`watch of ${this.spec.layout.rel(dir)} failed (${error.message}); the reconcile pass keeps things moving`);
        this.unwatch(dir);
      });
      return watcher;
    } catch (error) {
      // Gone already (the reconcile pass has the rest), or out of inotify watches (said once).
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && !this.watchFailureLogged) {
        this.watchFailureLogged = true;
        this.spec.log(
          `cannot watch ${this.spec.layout.rel(dir)} (${(error as Error).message}); ` +
            `the ${this.spec.reconcileMs ?? 2000} ms reconcile pass finds its work`,
        );
      }
      return null;
    }
  }

  private watchFailureLogged = false;

  /** Polling (network and FUSE filesystems, or --poll): chokidar stats the directory's entries every second. */
  private pollingWatcher(dir: string): import("chokidar").FSWatcher | null {
    if (!this.chokidarWatch) return null;
    const watcher = this.chokidarWatch(dir, {
      ignoreInitial: true,
      depth: 0,
      usePolling: true,
      interval: 1000,
      binaryInterval: 1000,
      ignored: (p: string) => p !== dir && !WorkerRuntime.carriesWork(path.basename(p)),
    });
    const onPath = (p: string) => this.hint(p);
    watcher.on("add", onPath).on("change", onPath).on("unlink", onPath);
    watcher.on("addDir", (p: string) => this.newDir(p));
    watcher.on("error", (error: unknown) => {
      this.spec.log(`watcher error (${(error as Error).message}); the ${this.spec.reconcileMs ?? 2000} ms reconcile keeps things moving`);
    });
    return watcher;
  }

  private unwatch(dir: string): void {
    const watcher = this.watchers.get(dir);
    if (!watcher) return;
    this.watchers.delete(dir);
    void watcher.close();
  }

  private refFromPath(p: string): GateRef | null {
    const rel = path.relative(this.spec.layout.runs, p).split(path.sep);
    const [runId, review, gate] = rel;
    if (!isRunId(runId)) return null;
    if (review === undefined) {
      this.scanRun(runId);
      return null;
    }
    if (review !== "review") return null;
    if (gate === undefined) {
      this.scanRun(runId);
      return null;
    }
    if (!isGate(gate)) return null;
    return { runId, gate, key: gateKey(runId, gate) };
  }

  private hint(p: string): void {
    const ref = this.refFromPath(p);
    if (!ref) return;
    if (!this.active.has(ref.key)) {
      if (this.finished.has(ref.key) && !endedNow(this.spec.layout, ref)) {
        this.finished.delete(ref.key);
      }
      if (this.finished.has(ref.key)) return; // the full scan or the sweep notices late drops by the directory's mtime
      this.activate(ref);
      return;
    }
    const name = path.relative(this.spec.layout.gateDir(ref.runId, ref.gate), p);
    const gone = () => lstatSync(p, { throwIfNoEntry: false }) === undefined;
    if (this.spec.wakesOn && name && !name.includes(path.sep) && !this.spec.wakesOn(name, gone)) return this.quietChange(p, ref);
    // a peer's share is left to that peer, unless this worker is looking at it now (then it looks again after)
    if (this.owns(ref.key) || this.running.has(ref.key)) this.enqueue(ref.key);
  }

  /**
   * A file that gives this worker no work landed in an active gate (a trail rewrite, a kind it does not wake on, its
   * own deliveries): the directory's new mtime counts as seen, so the reconcile pass does not read the gate again for
   * it. A file it wakes on has an event of its own; one whose event is lost meanwhile waits for the full-scan
   * interval's look instead of the next pass.
   */
  private quietChange(p: string, ref = this.refFromPath(p)): void {
    const last = ref && this.handled.get(ref.key);
    if (!ref || !last) return;
    this.handled.set(ref.key, { ...last, mtime: dirMtime(this.spec.layout.gateDir(ref.runId, ref.gate)) });
  }

  private rescanDir(p: string): void {
    const rel = path.relative(this.spec.layout.runs, p).split(path.sep);
    if (rel.length <= 2 && isRunId(rel[0])) this.scanRun(rel[0]!);
    else this.hint(p);
    this.pump();
  }

  private scanRun(runId: string, runIsDir?: boolean): void {
    const { layout } = this.spec;
    const runDir = layout.runDir(runId);
    if (runIsDir === undefined) {
      try {
        runIsDir = lstatSync(runDir).isDirectory();
      } catch {
        return this.forgetRun(runId); // gone: if it comes back, the next listing scans it as new
      }
    }
    if (!runIsDir) return this.forgetRun(runId); // a symlink or a file is not a run (status lists it as ignored)
    this.knownRuns.add(runId);
    const reviewMtime = dirMtime(path.join(runDir, "review")); // before listing: a gate added later moves it
    const gates = listDirents(path.join(runDir, "review"));
    const logged = this.finishedLog?.loggedGates(runId); // read first: activating a gate below drops the run's line
    let open = gates.length === 0;
    const finishedAt: Record<string, number> = {};
    for (const entry of gates) {
      const gate = entry.name;
      if (!isGate(gate) || !entry.isDirectory()) continue; // symlinked gates are refused
      const key = gateKey(runId, gate);
      if (this.active.has(key)) {
        open = true;
        continue;
      }
      const dir = layout.gateDir(runId, gate);
      const doneAt = this.finished.get(key) ?? (logged?.[gate] !== undefined && holdsOutcome(dir) ? logged[gate] : undefined);
      if (doneAt !== undefined) {
        if (gateStamp(dir) === doneAt) {
          this.finished.set(key, doneAt);
          finishedAt[gate] = doneAt;
          continue;
        }
        this.finished.delete(key); // something arrived after the outcome: handle it once more
        this.activate({ runId, gate, key });
        open = true;
        continue;
      }
      const mtime = gateStamp(dir); // before reading: a drop after the outcome was read moves it
      if (endedNow(layout, { runId, gate })) {
        this.finished.set(key, (finishedAt[gate] = mtime));
        continue;
      }
      this.activate({ runId, gate, key });
      open = true;
    }
    if (open) {
      this.openRuns.add(runId);
      this.endedWatched.delete(runId);
    } else {
      // a worker reads an ended run again only when something arrives (then parsed anew): it keeps none of its files
      if (this.openRuns.delete(runId) && this.spec.skipFinishedRuns) forgetParsedUnder(runDir);
      this.keepWatchesOfEnded(runId);
      this.finishedLog?.seal(runId, reviewMtime, finishedAt);
    }
  }

  /** Ended runs still watched, oldest first (ENDED_RUNS_WATCHED at most). */
  private readonly endedWatched = new Set<string>();

  private keepWatchesOfEnded(runId: string): void {
    const runDir = this.spec.layout.runDir(runId);
    if (!this.watchers.has(runDir) && !this.watchers.has(path.join(runDir, "review"))) return;
    this.endedWatched.delete(runId);
    this.endedWatched.add(runId);
    for (const oldest of this.endedWatched) {
      if (this.endedWatched.size <= ENDED_RUNS_WATCHED) break;
      this.endedWatched.delete(oldest);
      this.unwatchRun(oldest);
    }
  }

  private unwatchRun(runId: string): void {
    const runDir = this.spec.layout.runDir(runId);
    this.unwatch(path.join(runDir, "review"));
    this.unwatch(runDir);
  }

  private forgetRun(runId: string): void {
    // its gates too: a removed run's open gates would be handled (and fail, retried with backoff) for ever
    const ofRun = gateKey(runId, "");
    this.forgetGates((key) => key.startsWith(ofRun));
    this.knownRuns.delete(runId);
    this.openRuns.delete(runId);
    this.endedWatched.delete(runId);
    this.unwatchRun(runId);
    this.finishedLog?.unseal(runId);
  }

  /** Drop what this worker holds on the gates `of` picks (a later listing that finds one again starts it anew). */
  private forgetGates(of: (key: string) => boolean): void {
    for (const state of [this.active, this.handled, this.handlerEnded, this.failing, this.finished])
      for (const key of [...state.keys()]) if (of(key)) state.delete(key);
    for (const key of [...this.queue]) if (of(key)) this.queue.delete(key);
  }

  /**
   * A write of the handler found its gate removed meanwhile (the gate, its run or .guild: a person resetting the project),
   * and made nothing again (DirectoryGone): said once, and the gate, or the run when it went too, is forgotten rather
   * than retried. Not when the gate is there (or cannot be told): that failure is retried like any other.
   */
  private forgetRemoved(ref: GateRef, error: DirectoryGone): boolean {
    const { layout } = this.spec;
    const there = (dir: string) => {
      try {
        return lstatSync(dir, { throwIfNoEntry: false }) !== undefined;
      } catch {
        return true;
      }
    };
    if (there(layout.gateDir(ref.runId, ref.gate))) return false;
    this.spec.log(`${ref.runId}/${ref.gate}: removed while this worker wrote to it (${error.message}); forgotten, not retried`);
    if (there(layout.runDir(ref.runId))) {
      this.forgetGates((key) => key === ref.key);
      this.unwatch(layout.gateDir(ref.runId, ref.gate));
    } else this.forgetRun(ref.runId);
    return true;
  }

  private activate(ref: GateRef): void {
    this.active.set(ref.key, ref);
    this.finishedLog?.unseal(ref.runId);
    this.endedWatched.delete(ref.runId); // open again: its watches stay while it is
    const { layout } = this.spec;
    this.watch(layout.runDir(ref.runId));
    this.watch(path.join(layout.runDir(ref.runId), "review"));
    this.watch(layout.gateDir(ref.runId, ref.gate));
    if (this.owns(ref.key)) this.enqueue(ref.key);
    // a peer's share: looked at by this worker too, once per full-scan interval (in case that peer is gone)
    else if (!this.handled.has(ref.key)) this.handled.set(ref.key, lookedAt(dirMtime(layout.gateDir(ref.runId, ref.gate))));
  }

  /** Every run and gate on disk, without a history walk (the console): at start and every fullScanMs. */
  private fullScan(): void {
    if (!this.stopped && this.followProject()) this.scanAll();
  }

  /** Scan every run .guild/runs lists. */
  private scanAll(): void {
    this.noteRunsListed();
    for (const entry of listDirents(this.spec.layout.runs)) if (isRunId(entry.name)) this.scanRun(entry.name, entry.isDirectory());
    this.pump();
  }

  private noteRunsListed(): void {
    this.runsListed = lookedAt(dirMtime(this.spec.layout.runs));
  }

  /**
   * A run was added or removed since .guild/runs was last listed (or a whole-second mtime may hide that). Polling
   * (network filesystems, whose attribute caches can serve a stale mtime) lists it at least once per full-scan interval.
   */
  private runsMayHaveChanged(): boolean {
    const overdue = this.pollMode.poll && performance.now() - this.runsListed.tick >= (this.spec.fullScanMs ?? 10_000);
    return overdue || dirMtime(this.spec.layout.runs) !== this.runsListed.mtime || mayHideAChange(this.runsListed);
  }

  /** Quick pass: new runs, new gates of open runs, runs another writer reopened, and every active gate again. */
  private reconcile(): void {
    if (this.stopped || !this.followProject()) return;
    const at = Date.now();
    this.spec.beforePass?.();
    for (const runId of this.finishedLog?.refresh() ?? []) this.scanRun(runId); // another writer reopened it
    // .guild/runs (every run's name) is listed only when its mtime says a run was added or removed
    let listed = this.walk?.listed(); // a listing under way (the first, at start) ends before this pass saw every run
    if (this.runsMayHaveChanged()) {
      this.noteRunsListed();
      if (this.walk) listed = this.walk.list();
      else for (const runId of listDir(this.spec.layout.runs)) if (isRunId(runId) && !this.knownRuns.has(runId)) this.scanRun(runId);
    }
    for (const runId of this.openRuns) {
      this.scanRun(runId);
      if (!this.openRuns.has(runId)) continue;
      // a peer of this kind logged it finished, and nothing moved since: look at its gates now rather than reopen it
      // in the log (the two would take turns until this worker's own look); else a `+` line read back after it reopened
      if (this.finishedLog?.isSealed(runId) && this.finishedLog.unchanged(runId)) this.lookAtRun(runId);
      else this.finishedLog?.unseal(runId);
    }
    const seen = () => void (this.runsSeenAt = Math.max(this.runsSeenAt, at));
    if (listed) void listed.then(seen, () => {});
    else seen();
    this.finishedLog?.flush();
    // An active gate is handled again when its directory changed since it was handled or a quiet event was seen
    // (every delivery adds a name) and it is this worker's share, or, for what only time changes (grace periods,
    // stale claims, a peer that is gone), once per full-scan interval.
    const now = performance.now();
    for (const [key, ref] of this.active) {
      const last = this.handled.get(key);
      const retry = this.failing.get(key);
      if (
        !last ||
        (retry !== undefined && retry.until <= now) ||
        now - last.tick > (this.spec.fullScanMs ?? 10_000) ||
        (this.owns(key) && this.changedSinceHandled(ref))
      )
        this.queue.add(key);
    }
    this.pump();
  }

  private lookAtRun(runId: string): void {
    for (const [key, ref] of this.active) if (ref.runId === runId) this.queue.add(key);
  }

  /** When each active gate was last handled, and its directory mtime just before. */
  private readonly handled = new Map<string, Look>();
  /** When (wall clock) the last handler of each active gate that has ended began. */
  private readonly handlerEnded = new Map<string, number>();
  /** When the last pass began that has seen every run and every open run's gates (its listing of the runs ended). */
  private runsSeenAt = 0;

  /**
   * When this worker last looked at everything it watches (SPEC §18): the latest time from which it has seen every run
   * and gate, and handled every active gate from a read that began then or later (a handler still running holds it
   * back); finished runs are the history sweep's, and not counted. Null before its first such look.
   */
  private looked(): number | null {
    let at = this.runsSeenAt;
    for (const key of this.active.keys()) at = Math.min(at, this.handlerEnded.get(key) ?? 0);
    return at > 0 ? at : null;
  }

  /** A name came to or left the gate's directory since its handler last began reading it (or it never ran). */
  private changedSinceHandled(ref: GateRef): boolean {
    const last = this.handled.get(ref.key);
    return !last || dirMtime(this.spec.layout.gateDir(ref.runId, ref.gate)) !== last.mtime || mayHideAChange(last);
  }

  private enqueue(key: string): void {
    if (this.running.has(key)) this.dirty.add(key);
    else this.queue.add(key);
    this.pump();
  }

  /** Gates whose handler threw, with how often in a row and when they may run again (doubling, capped). */
  private readonly failing = new Map<string, Failing>();

  private pump(): void {
    const limit = this.spec.concurrency ?? 1;
    for (const key of [...this.queue]) {
      if (this.stopped || this.running.size >= limit) return;
      // a gate in backoff leaves the queue; the reconcile pass puts it back once it is due
      if ((this.failing.get(key)?.until ?? -Infinity) > performance.now()) {
        this.queue.delete(key);
        continue;
      }
      this.queue.delete(key);
      const ref = this.active.get(key);
      if (!ref || this.running.has(key)) continue;
      const job = this.runOne(ref).finally(() => {
        this.running.delete(key);
        if (this.dirty.delete(key) && this.active.has(key)) this.queue.add(key);
        this.pump();
      });
      this.running.set(key, job);
    }
  }

  private async runOne(ref: GateRef): Promise<void> {
    // before the handler reads: anything that arrives while it runs moves the mtime, and is looked at again
    const mtime = dirMtime(this.spec.layout.gateDir(ref.runId, ref.gate));
    const stamp = gateStamp(this.spec.layout.gateDir(ref.runId, ref.gate)); // what a finished gate is known by
    const look = lookedAt(mtime);
    this.handled.set(ref.key, look);
    try {
      const status = await this.spec.handleGate(ref, this.abort.signal);
      this.failing.delete(ref.key);
      // a file that woke this worker while it handled the gate (another worker moving a late drop aside) is handled
      // first: a gate is recorded finished only from a look that saw everything
      if (status === "finished" && !this.dirty.has(ref.key)) {
        this.active.delete(ref.key);
        this.handled.delete(ref.key);
        this.handlerEnded.delete(ref.key);
        // its own last writes move the mtime too: the next scan looks once more, finds nothing to do (an unchanged
        // trail is not rewritten), and the gate settles
        this.finished.set(ref.key, stamp);
        this.unwatch(this.spec.layout.gateDir(ref.runId, ref.gate));
      }
    } catch (error) {
      if (error instanceof DirectoryGone && this.forgetRemoved(ref, error)) return;
      // A handler that throws is a bug (its stack once), a read the system failed (ReadFault: its message) or a file
      // operation the tree refused (an errno: a planted file or a permission, which status names; its message); then
      // a line per retry, each retry twice as late (capped).
      const before = this.failing.get(ref.key);
      const count = (before?.count ?? 0) + 1;
      const delay = Math.min((this.spec.reconcileMs ?? 2000) * 2 ** (count - 1), MAX_BACKOFF_MS);
      const error_ = (error as Error | undefined)?.message ?? textOf(error);
      this.failing.set(ref.key, {
        ref,
        count,
        until: performance.now() + delay,
        since: before?.since ?? new Date().toISOString(),
        error: error_,
      });
      const first =
        error instanceof ReadFault
          ? `a read failed, nothing decided: ${error.message}`
          : isRefusedWrite(error)
            ? `a write the system refused (what it would write is kept and tried again): ${(error as Error).message} — ` +
              refusedWriteFix((error as NodeJS.ErrnoException).code!)
            : /^E[A-Z0-9]+$/.test(String((error as NodeJS.ErrnoException).code)) && (error as NodeJS.ErrnoException).syscall
              ? `a file operation failed: ${(error as Error).message}`
              : ((error as Error).stack ?? textOf(error));
      const what = count === 1 ? first : `still failing (${count} times in a row): ${(error as Error).message}`;
      this.spec.log(`${ref.runId}/${ref.gate}: ${what}; next try in ${delay} ms`);
    } finally {
      // one that failed was looked at too: the presence file names it as stuck
      if (this.active.has(ref.key)) this.handlerEnded.set(ref.key, look.at);
    }
  }
}

/** Whether the gate has ended, for scheduling: one the system failed to read (ReadFault) counts as active, and
 * its handler, which reads it again, is retried with backoff. Thrown here, it would end the process (timers, watch
 * callbacks). */
function endedNow(layout: Layout, ref: Pick<GateRef, "runId" | "gate">): boolean {
  try {
    return hasValidOutcome(layout, ref.runId, ref.gate);
  } catch (error) {
    if (error instanceof ReadFault) return false;
    throw error;
  }
}

/**
 * Run a worker until SIGINT/SIGTERM; resolves after a clean shutdown. Under `guild-bus up` (an IPC channel to the
 * supervisor) the supervisor decides instead: Ctrl-C and a closed terminal reach the whole process group, so SIGINT
 * and SIGHUP are left to it; "drain" finishes the work in flight and exits; a supervisor that dies (kill -9
 * included) closes the channel, which drains too, so no worker outlives it.
 */
export async function runUntilSignal(runtime: WorkerRuntime, log: (m: string) => void): Promise<void> {
  // asked before the runtime started (a Ctrl-C at once): acted on as soon as it has
  let early: "stop" | "drain" | null = null;
  let act = (how: "stop" | "drain") => void (early ??= how);
  const onSignal = (sig: NodeJS.Signals) => {
    log(`received ${sig}; shutting down`);
    act("stop");
  };
  process.on("SIGTERM", onSignal);
  if (process.channel) {
    const leaveToSupervisor = () => {};
    process.on("SIGINT", leaveToSupervisor);
    process.on("SIGHUP", leaveToSupervisor);
    process.stderr.on("error", leaveToSupervisor); // a closed log pipe: the supervisor notices it too
    process.on("message", (message) => message === "drain" && act("drain"));
    process.once("disconnect", () => {
      log("supervisor gone; finishing what is in flight, then exiting");
      act("drain");
    });
  } else process.on("SIGINT", onSignal);
  try {
    await runtime.start();
    await new Promise<void>((resolve) => {
      act = (how) => void (how === "stop" ? runtime.stop() : runtime.drain()).then(resolve);
      if (early) act(early);
    });
  } finally {
    if (process.connected) process.disconnect(); // an open channel would keep the stopped (or failed) worker alive
  }
}
