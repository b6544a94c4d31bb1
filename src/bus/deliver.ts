// Maildir-style delivery of immutable artifacts: stage under .guild/tmp, fsync, link() to the final name.
// The final name is complete on arrival, the first writer wins, and a different second write is a conflict.
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { customAlphabet } from "nanoid";
import { sha256Hex } from "../core/sha.js";
import { type FsOps, realFs } from "./fsops.js";
import { MAX_FILE_BYTES } from "../spec/constants.js";
import { TooLarge } from "./too-large.js";
import { refuseSymlinks } from "./no-symlinks.js";
import { setAside } from "./set-aside.js";
import { THIS_MACHINE } from "./this-machine.js";
import { projectDir, workerFloor } from "./make-dirs.js";

const stagingId = customAlphabet("0123456789abcdefghijklmnopqrstuvwxyz", 12);
const HOST = hostname().replace(/[^A-Za-z0-9-]/g, "_") || "host";
/** This machine in a staging name: host and pid namespace (a pid means something only there), no dot. */
const MACHINE = THIS_MACHINE.replace(/[^A-Za-z0-9-]/g, "_");
const LINK_UNSUPPORTED = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

export type DeliverStatus = "delivered" | "identical" | "conflict";

export interface DeliverResult {
  status: DeliverStatus;
  path: string;
  sha256: string;
  /** sha256 of the bytes already at the final name, on a conflict with a regular file (of a bounded size). */
  existingSha256?: string;
  /** true when link() was unsupported and the exclusive-create fallback was used. */
  fallback?: boolean;
}

export interface DeliverOptions {
  /** The .guild directory: staging goes to <guildDir>/tmp on the same filesystem. */
  guildDir: string;
  /**
   * true for a command that may start a project or a run (`review`, `init`, a settings edit, `up` taking its lock): the
   * directories the write lacks are made, .guild included. Default false, a worker's: it writes only into a gate, run or
   * .guild that is there (directories are made only inside it: workerFloor), and one a person removed meanwhile (a
   * project reset) fails the write (DirectoryGone) rather than come back half-filled.
   */
  makeDirs?: boolean;
  fs?: FsOps;
  /** fsync the file and the directory (default true; tests of logic may turn it off). */
  durable?: boolean;
  log?: (message: string) => void;
}

/**
 * The staging file name carries the machine (host and pid namespace) and pid so the janitor can tell orphans of dead
 * processes: a container sharing the tree under the same host name has pids of its own, which mean nothing here.
 */
export function stagingName(finalPath: string, pid = process.pid): string {
  const base = path
    .basename(finalPath)
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .slice(0, 80);
  return `${base}.${MACHINE}.${pid}.${stagingId()}`;
}

export function parseStagingName(name: string): { host: string; pid: number } | null {
  const parts = name.split(".");
  if (parts.length < 4) return null;
  const pid = Number(parts[parts.length - 2]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  return { host: parts[parts.length - 3]!, pid };
}

/** This host's name, as an `up` lock shows it. */
export const THIS_HOST = HOST;
/** This machine as staging names carry it (`parseStagingName(…).host`): only its pids can be asked here. */
export const STAGING_MACHINE = MACHINE;

function errCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * fsync a directory, as a group commit: a caller joins an fsync of the same directory that has not started yet (it
 * covers every link made before it starts), or queues one behind the fsync already running (which may have started
 * before the caller's link). Many deliveries into one directory in one tick cost one directory fsync, never fewer
 * than their links need.
 */
export function fsyncDir(fs: FsOps, dir: string): Promise<void> {
  if (process.platform === "win32") return Promise.resolve();
  const state = dirSyncs.get(dir) ?? { queued: null, tail: Promise.resolve() };
  if (state.queued) return state.queued;
  const queued = state.tail
    .catch(() => undefined)
    .then(() => {
      state.queued = null; // from here on a new link needs a later fsync
      return syncOnce(fs, dir);
    });
  state.queued = queued;
  state.tail = queued;
  dirSyncs.set(dir, state);
  void queued.then(forget, forget);
  function forget() {
    if (state.tail === queued) dirSyncs.delete(dir);
  }
  return queued;
}

const dirSyncs = new Map<string, { queued: Promise<void> | null; tail: Promise<void> }>();

async function syncOnce(fs: FsOps, dir: string): Promise<void> {
  const fd = await fs.open(dir, "r");
  try {
    await fs.fsync(fd);
  } finally {
    await fs.close(fd);
  }
}

export async function writeAndClose(fs: FsOps, fd: number, bytes: Uint8Array, durable: boolean): Promise<void> {
  try {
    await fs.write(fd, bytes);
    if (durable) await fs.fsync(fd);
  } finally {
    await fs.close(fd);
  }
}

/** What holds the name already: our bytes (identical), or anything else (a conflict; a non-file is never read). */
async function compareExisting(fs: FsOps, finalPath: string, sha: string, size: number): Promise<DeliverResult> {
  let bytes: Buffer | null;
  try {
    bytes = await fs.readRegular(finalPath, Math.max(size, MAX_FILE_BYTES)); // bounded: the sha is only for the log
  } catch (error) {
    if (errCode(error) !== "ELOOP") throw error;
    bytes = null; // a symlink holds the name
  }
  if (!bytes) return { status: "conflict", path: finalPath, sha256: sha };
  const existing = sha256Hex(bytes);
  return existing === sha
    ? { status: "identical", path: finalPath, sha256: sha }
    : { status: "conflict", path: finalPath, sha256: sha, existingSha256: existing };
}

/** Where a write may make the directories `dir` lacks (make-dirs.ts): see DeliverOptions.makeDirs. */
function floorOf(o: Pick<DeliverOptions, "guildDir" | "makeDirs">, dir: string): string {
  return o.makeDirs ? projectDir(o.guildDir) : workerFloor(o.guildDir, dir); // never the project's own directory
}

/**
 * Run op; when it fails because a directory is missing, make that directory once, as far as the write may (floorOf),
 * and run op again. One it may not make drops the write (DirectoryGone), never remakes the tree.
 */
export async function withDir<T>(
  fs: FsOps,
  o: Pick<DeliverOptions, "guildDir" | "makeDirs">,
  dir: string,
  op: () => Promise<T>,
): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if (errCode(error) !== "ENOENT") throw error;
    await fs.mkdir(dir, floorOf(o, dir));
    return op();
  }
}

/**
 * `.guild/tmp`, where every delivery and view is staged. Anything but a directory someone put at that name (a file, a
 * FIFO, a symlink, never followed) would stop every write of the bus while the gates wait in silence: it is moved aside
 * whole, under a name that says why (`tmp.not-a-directory.<ms>.<pid>.<n>`), and the directory is made anew when first written.
 */
export function usableStagingDir(guildDir: string): string {
  const dir = path.join(guildDir, "tmp");
  const notADirectory = (file: string) => {
    const st = lstatSync(file, { throwIfNoEntry: false });
    return st !== undefined && !st.isDirectory();
  };
  if (notADirectory(dir)) setAside(dir, "not-a-directory", notADirectory);
  refuseSymlinks(guildDir, dir);
  return dir;
}

/**
 * Deliver bytes to finalPath, never overwriting. Throws only on I/O failure, and then no final file exists
 * unless it was complete (a link either happened or did not). Resolves once the file and its name are durable.
 */
export async function deliver(finalPath: string, bytes: Uint8Array | string, options: DeliverOptions): Promise<DeliverResult> {
  return (await deliverInOrder([{ finalPath, bytes }], options))[0]!;
}

/**
 * Deliver several files, in order: all are staged (written and fsynced) at once, then each is linked only once the
 * one before it is delivered and durable, so a later file never exists without the earlier ones (the verifier's seal,
 * then its verdict: SPEC §15). Stops after the first that is not delivered anew (a conflict: another writer's bytes
 * are there); the results say how far it got. Throws as deliver() does, and then links nothing more.
 */
export async function deliverInOrder(
  files: ReadonlyArray<{ finalPath: string; bytes: Uint8Array | string }>,
  options: DeliverOptions,
): Promise<DeliverResult[]> {
  const fs = options.fs ?? realFs;
  const durable = options.durable ?? true;
  // No bus file is read past MAX_FILE_BYTES: one delivered larger would be refused as invalid, its name taken for good
  // (a decision, the one rebuttal, a request). Refused here, before anything lands, with a reason the caller reports.
  for (const { finalPath, bytes } of files) {
    const size = typeof bytes === "string" ? Buffer.byteLength(bytes, "utf8") : bytes.length;
    if (size > MAX_FILE_BYTES)
      throw new TooLarge(`${path.basename(finalPath)} would be ${size} bytes, more than the ${MAX_FILE_BYTES} a bus file may hold`);
  }
  const stagingDir = usableStagingDir(options.guildDir); // each final directory is checked just before its link
  const staged: Array<{ staging: string; finalPath: string; data: Uint8Array; sha: string } | undefined> = [];
  try {
    const staging = await Promise.allSettled(
      files.map(async ({ finalPath, bytes }, i) => {
        const data = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
        const file = path.join(stagingDir, stagingName(finalPath));
        // the directories usually exist: made only when open() or link() says they are missing
        const fd = await withDir(fs, options, stagingDir, () => fs.open(file, "wx", 0o644));
        staged[i] = { staging: file, finalPath, data, sha: sha256Hex(data) };
        await writeAndClose(fs, fd, data, durable);
      }),
    );
    const failed = staging.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    const results: DeliverResult[] = [];
    for (const [i, f] of staged.entries()) {
      const result = await publishStaged(f!, { fs, durable, log: options.log }, options, stagingDir);
      // before the next file lands: a delivered file has one name when the one after it appears (a seal with a
      // second name could change through it, and readers refuse such a seal: SPEC §15). When the staging name cannot
      // be removed, nothing more is linked: the caller's retry finds this file delivered ("identical").
      await fs.unlink(f!.staging).catch((error: unknown) => {
        if (i < staged.length - 1 && errCode(error) !== "ENOENT") throw error;
      });
      staged[i] = undefined;
      results.push(result);
      if (result.status === "conflict") break;
      // the same bytes were there: an earlier writer of them may have died between its link and that removal
      if (result.status === "identical" && i < staged.length - 1) dropStagingNames(f!.finalPath, stagingDir, options.log);
    }
    return results;
  } finally {
    // else left for the janitor: the name says whose it is
    await Promise.all(staged.map((f) => f && fs.unlink(f.staging).catch(() => undefined)));
  }
}

/**
 * Remove the names under the staging directory that a delivered file still has. A staging name linked to a final
 * file has done its work (its writer only removes it, and a missing one is no error there), so it goes whoever's it
 * is. Names elsewhere are not the bus's: readers judge them (a seal with two names fails closed, SPEC §15), as they
 * do a name this cannot remove.
 */
function dropStagingNames(finalPath: string, stagingDir: string, log?: (message: string) => void): void {
  try {
    // bigint: a file id past 2^53 (NTFS) must not make two files look like one
    const final = lstatSync(finalPath, { bigint: true });
    if (final.nlink < 2n) return;
    for (const name of readdirSync(stagingDir)) {
      const file = path.join(stagingDir, name);
      const st = lstatSync(file, { bigint: true, throwIfNoEntry: false });
      if (st?.ino === final.ino && st.dev === final.dev) rmSync(file, { force: true });
    }
  } catch (error) {
    log?.(`deliver: a staging name of ${finalPath} not removed (${(error as Error).message}); readers judge the file as it is`);
  }
}

/**
 * publish(), staging the bytes again when their staging name went before its link (`.guild/tmp` cleaned by hand, or by
 * `git clean -fdx`): the bytes are still in hand, so no delivery (a reviewer's paid answer) is lost to that.
 */
async function publishStaged(
  f: { staging: string; finalPath: string; data: Uint8Array; sha: string },
  o: { fs: FsOps; durable: boolean; log?: (m: string) => void },
  place: Pick<DeliverOptions, "guildDir" | "makeDirs">,
  stagingDir: string,
): Promise<DeliverResult> {
  for (let again = 0; ; again++) {
    try {
      return await publish({ ...f, ...o }, place);
    } catch (error) {
      if (errCode(error) !== "ENOENT" || again === 2 || lstatSync(f.staging, { throwIfNoEntry: false })) throw error;
      const file = path.join(stagingDir, stagingName(f.finalPath));
      const fd = await withDir(o.fs, place, stagingDir, () => o.fs.open(file, "wx", 0o644));
      f.staging = file; // removed by the caller, whatever happens next
      await writeAndClose(o.fs, fd, f.data, o.durable);
    }
  }
}

/** Link one staged file to its final name and make the name durable. */
async function publish(
  f: { staging: string; finalPath: string; data: Uint8Array; sha: string; fs: FsOps; durable: boolean; log?: (m: string) => void },
  place: Pick<DeliverOptions, "guildDir" | "makeDirs">,
): Promise<DeliverResult> {
  const { fs, finalPath, staging, sha, durable } = f;
  const finalDir = path.dirname(finalPath);
  try {
    await withDir(fs, place, finalDir, async () => {
      refuseSymlinks(place.guildDir, finalDir);
      await fs.link(staging, finalPath);
    });
  } catch (error) {
    if (errCode(error) === "EEXIST") return compareExisting(fs, finalPath, sha, f.data.length);
    if (!LINK_UNSUPPORTED.has(errCode(error) ?? "")) throw error;
    f.log?.(`deliver: link() unsupported here (${errCode(error)}); exclusive-create fallback for ${finalPath}`);
    return deliverWithoutLink({ fs, place, finalPath, data: f.data, sha, durable });
  }
  if (durable) await fsyncDir(fs, finalDir);
  return { status: "delivered", path: finalPath, sha256: sha };
}

/** Fallback for filesystems without hard links: exclusive create, so still first-writer-wins (not atomic for readers). */
async function deliverWithoutLink(d: {
  fs: FsOps;
  place: Pick<DeliverOptions, "guildDir" | "makeDirs">;
  finalPath: string;
  data: Uint8Array;
  sha: string;
  durable: boolean;
}): Promise<DeliverResult> {
  const { fs, place, finalPath, data, sha, durable } = d;
  let fd: number;
  try {
    fd = await withDir(fs, place, path.dirname(finalPath), () => fs.open(finalPath, "wx", 0o644));
  } catch (error) {
    if (errCode(error) === "EEXIST") return { ...(await compareExisting(fs, finalPath, sha, data.length)), fallback: true };
    throw error; // not created by us: whatever is at finalPath belongs to someone else
  }
  try {
    await writeAndClose(fs, fd, data, durable);
  } catch (error) {
    // we created it: a partial final must not stay (if it cannot be removed either, the first error is the one to report)
    await fs.unlink(finalPath).catch(() => undefined);
    throw error;
  }
  if (durable) await fsyncDir(fs, path.dirname(finalPath));
  return { status: "delivered", path: finalPath, sha256: sha, fallback: true };
}
