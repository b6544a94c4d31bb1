// Maildir-style delivery of immutable artifacts: stage under .guild/tmp, fsync, link() to the final name.
// The final name is complete on arrival, the first writer wins, and a different second write is a conflict.
import { hostname } from "node:os";
import path from "node:path";
import { customAlphabet } from "nanoid";
import { sha256Hex } from "../core/sha.js";
import { type FsOps, realFs } from "./fsops.js";
import { refuseSymlinks } from "./no-symlinks.js";

const stagingId = customAlphabet("0123456789abcdefghijklmnopqrstuvwxyz", 12);
const HOST = hostname().replace(/[^A-Za-z0-9-]/g, "_") || "host";
const LINK_UNSUPPORTED = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

export type DeliverStatus = "delivered" | "identical" | "conflict";

export interface DeliverResult {
  status: DeliverStatus;
  path: string;
  sha256: string;
  /** sha256 of the bytes already at the final name, on a conflict. */
  existingSha256?: string;
  /** true when link() was unsupported and the exclusive-create fallback was used. */
  fallback?: boolean;
}

export interface DeliverOptions {
  /** The .guild directory: staging goes to <guildDir>/tmp on the same filesystem. */
  guildDir: string;
  fs?: FsOps;
  /** fsync the file and the directory (default true; tests of logic may turn it off). */
  durable?: boolean;
  log?: (message: string) => void;
}

/** The staging file name carries host and pid so the janitor can tell orphans of dead processes. */
export function stagingName(finalPath: string, pid = process.pid): string {
  const base = path
    .basename(finalPath)
    .replace(/[^A-Za-z0-9_-]/g, "_")
    .slice(0, 80);
  return `${base}.${HOST}.${pid}.${stagingId()}`;
}

export function parseStagingName(name: string): { host: string; pid: number } | null {
  const parts = name.split(".");
  if (parts.length < 4) return null;
  const pid = Number(parts[parts.length - 2]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  return { host: parts[parts.length - 3]!, pid };
}

export const THIS_HOST = HOST;

function errCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

export function fsyncDir(fs: FsOps, dir: string): void {
  if (process.platform === "win32") return;
  const fd = fs.open(dir, "r");
  try {
    fs.fsync(fd);
  } finally {
    fs.close(fd);
  }
}

function writeAndClose(fs: FsOps, fd: number, bytes: Uint8Array, durable: boolean): void {
  try {
    fs.write(fd, bytes);
    if (durable) fs.fsync(fd);
  } finally {
    fs.close(fd);
  }
}

function compareExisting(fs: FsOps, finalPath: string, sha: string): DeliverResult {
  const existing = sha256Hex(fs.readFile(finalPath));
  return existing === sha
    ? { status: "identical", path: finalPath, sha256: sha }
    : { status: "conflict", path: finalPath, sha256: sha, existingSha256: existing };
}

/**
 * Deliver bytes to finalPath, never overwriting. Throws only on I/O failure, and then no final file exists
 * unless it was complete (a link either happened or did not).
 */
export function deliver(finalPath: string, bytes: Uint8Array | string, options: DeliverOptions): DeliverResult {
  const fs = options.fs ?? realFs;
  const durable = options.durable ?? true;
  const data = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  const sha = sha256Hex(data);
  const stagingDir = path.join(options.guildDir, "tmp");
  const staging = path.join(stagingDir, stagingName(finalPath));
  refuseSymlinks(options.guildDir, stagingDir); // a linked .guild/tmp would stage our bytes elsewhere
  fs.mkdir(stagingDir);
  refuseSymlinks(options.guildDir, path.dirname(finalPath));
  fs.mkdir(path.dirname(finalPath));
  try {
    writeAndClose(fs, fs.open(staging, "wx", 0o644), data, durable);
    try {
      fs.link(staging, finalPath);
    } catch (error) {
      if (errCode(error) === "EEXIST") return compareExisting(fs, finalPath, sha);
      if (!LINK_UNSUPPORTED.has(errCode(error) ?? "")) throw error;
      options.log?.(`deliver: link() unsupported here (${errCode(error)}); exclusive-create fallback for ${finalPath}`);
      return deliverWithoutLink({ fs, finalPath, data, sha, durable });
    }
    if (durable) fsyncDir(fs, path.dirname(finalPath));
    return { status: "delivered", path: finalPath, sha256: sha };
  } finally {
    try {
      fs.unlink(staging);
    } catch {
      // Left for the janitor: the name says whose it is.
    }
  }
}

/** Fallback for filesystems without hard links: exclusive create, so still first-writer-wins (not atomic for readers). */
function deliverWithoutLink(d: { fs: FsOps; finalPath: string; data: Uint8Array; sha: string; durable: boolean }): DeliverResult {
  const { fs, finalPath, data, sha, durable } = d;
  let fd: number;
  try {
    fd = fs.open(finalPath, "wx", 0o644);
  } catch (error) {
    if (errCode(error) === "EEXIST") return { ...compareExisting(fs, finalPath, sha), fallback: true };
    throw error; // not created by us: whatever is at finalPath belongs to someone else
  }
  try {
    writeAndClose(fs, fd, data, durable);
  } catch (error) {
    try {
      fs.unlink(finalPath); // we created it: a partial final must not stay
    } catch {
      // could not remove it either: the first error is the one to report
    }
    throw error;
  }
  if (durable) fsyncDir(fs, path.dirname(finalPath));
  return { status: "delivered", path: finalPath, sha256: sha, fallback: true };
}
