// Invalid or unusable drops are moved aside, never deleted: rejected/<name>.<stamp> plus a reason file.
import { existsSync, linkSync, lstatSync, readFileSync, renameSync, rmSync, unlinkSync } from "node:fs";
import path from "node:path";
import { sha256Hex } from "../core/sha.js";
import { deliver } from "./deliver.js";
import { refuseSymlinks } from "./no-symlinks.js";
import { makeDirsBelow } from "./make-dirs.js";
import { scrubLine, scrubOptions, type ScrubOptions } from "../core/scrub.js";
import type { Settings } from "../spec/schemas.js";

/** Where a gate's rejected files go, and how their reasons are scrubbed: a reason may quote the file it is about (a
 * planted packet id holding a key), and trail.md, status and the console show it. */
export interface RejectPlace {
  guildDir: string;
  scrub: ScrubOptions;
}

/** A worker's place to reject into: its bus's .guild and the project's redaction patterns. */
export const rejectPlace = (ctx: { layout: { guild: string }; settings: Settings }): RejectPlace => ({
  guildDir: ctx.layout.guild,
  scrub: scrubOptions(ctx.settings),
});

/** The longest reason recorded beside a rejected file. */
const MAX_REASON_CHARS = 4096;

/** Bytes of a planted name kept in its rejected name: with the stamp, pid and `.reason.json` it stays far below 255. */
const MAX_KEPT_NAME_BYTES = 120;

/**
 * The name to reject under: the name itself, or, when it is too long to take a suffix and still be a file name
 * (ENAMETOOLONG would hold the gate for ever), its first bytes and a hash of the whole (the reason file keeps it all).
 */
function boundedName(name: string): string {
  const bytes = Buffer.from(name, "utf8");
  if (bytes.length <= MAX_KEPT_NAME_BYTES) return name;
  // cut on a character boundary: a partial UTF-8 sequence would decode to U+FFFD, three bytes again
  const kept = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, MAX_KEPT_NAME_BYTES - 16)).replace(/\uFFFD$/, "");
  return `${kept}…${sha256Hex(name).slice(0, 12)}`;
}

/** rejected/ of the gate, made if need be (never through a link), and a fresh name there for `name`. */
function rejectedSlot(gateDir: string, name: string, guildDir: string): { dir: string; target: string } {
  const dir = path.join(gateDir, "rejected");
  refuseSymlinks(guildDir, dir);
  makeDirsBelow(gateDir, dir); // never the gate directory: one removed meanwhile is not made again
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return { dir, target: `${boundedName(name)}.${stamp}.${process.pid}` };
}

/** Deliver the reason file beside `target`; true when this process wrote it. */
async function deliverReason(dir: string, target: string, name: string, reason: string, place: RejectPlace): Promise<boolean> {
  // a reason can quote the file (a packet id of megabytes, a key): scrubbed, then cut, so the reason file is always
  // deliverable and carries no secret the file held
  const said = scrubLine(reason, MAX_REASON_CHARS, "start", place.scrub);
  const text = JSON.stringify({ file: name, reason: said, at: new Date().toISOString() }, null, 2) + "\n";
  return (await deliver(path.join(dir, `${target}.reason.json`), text, { guildDir: place.guildDir })).status === "delivered";
}

/**
 * The version of a file a worker judged unusable: its mtime (0 when the look did not stat it) and size, or its very
 * bytes. Another file may take the name between the look and the move (the judged one moved aside by another worker,
 * then a valid file delivered in its place, as a reviewer worker delivers its paid answer once a planted one is gone).
 */
export interface JudgedVersion {
  mtimeMs?: number;
  size?: number;
  bytes?: Uint8Array;
}

function isJudged(file: string, judged: JudgedVersion): boolean {
  const st = lstatSync(file);
  if (judged.bytes !== undefined) return st.isFile() && st.size === judged.bytes.length && readFileSync(file).equals(judged.bytes);
  if (judged.size !== undefined && st.size !== judged.size) return false;
  return !judged.mtimeMs || st.mtimeMs === judged.mtimeMs;
}

/**
 * Move `name` aside to rejected/ with `reason`; null when it was gone already (moved by another worker), or when the
 * file at the name was not the version judged (`judged`): that one is put back where it was, never over a newer file
 * (a link, first writer wins), for the next look to judge.
 */
export async function rejectFile(
  gateDir: string,
  name: string,
  reason: string,
  place: RejectPlace,
  judged?: JudgedVersion,
): Promise<string | null> {
  // a file that took the name since the look is not moved at all (checked again after the move, for one that takes it
  // in between): a reader seldom finds the name empty for a moment
  if (judged && !isJudgedOrGone(path.join(gateDir, name), judged)) return null;
  const { dir, target } = rejectedSlot(gateDir, name, place.guildDir);
  // The reason goes first: whoever sees the moved file can read why.
  const mine = await deliverReason(dir, target, name, reason, place);
  const from = path.join(gateDir, name);
  const to = path.join(dir, target);
  try {
    renameSync(from, to);
  } catch {
    if (mine) rmSync(path.join(dir, `${target}.reason.json`), { force: true });
    return null; // already moved by another worker
  }
  if (judged && !isJudgedOrGone(to, judged) && putBack(to, from)) {
    if (mine) rmSync(path.join(dir, `${target}.reason.json`), { force: true });
    return null;
  }
  return target;
}

function isJudgedOrGone(file: string, judged: JudgedVersion): boolean {
  try {
    return isJudged(file, judged);
  } catch {
    return true; // cannot be told: moved as before
  }
}

/** Put a file moved aside by mistake back at its name unless another file took it meanwhile; true when it is back. */
function putBack(moved: string, original: string): boolean {
  try {
    linkSync(moved, original);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false; // a newer file holds the name: the moved one stays aside with the reason
    // a filesystem without hard links: a rename, only while the name is free
    if (existsSync(original)) return false;
    try {
      renameSync(moved, original);
      return true;
    } catch {
      return false;
    }
  }
  unlinkSync(moved);
  return true;
}

/** Keep bytes that never entered the gate (a paid answer whose round had closed) in rejected/, with why; returns the
 * name they are kept under. */
export async function keepRejected(gateDir: string, name: string, text: string, reason: string, place: RejectPlace): Promise<string> {
  const { dir, target } = rejectedSlot(gateDir, name, place.guildDir);
  await deliverReason(dir, target, name, reason, place);
  await deliver(path.join(dir, target), text, { guildDir: place.guildDir });
  return target;
}
