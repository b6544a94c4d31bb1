// Invalid or unusable drops are moved aside, never deleted: rejected/<name>.<stamp> plus a reason file.
import { mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { deliver } from "./deliver.js";
import { refuseSymlinks } from "./no-symlinks.js";

/** The longest reason recorded beside a rejected file. */
const MAX_REASON_CHARS = 4096;

export async function rejectFile(gateDir: string, name: string, reason: string, guildDir: string): Promise<string | null> {
  const dir = path.join(gateDir, "rejected");
  refuseSymlinks(guildDir, dir);
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const target = `${name}.${stamp}.${process.pid}`;
  // The reason goes first: whoever sees the moved file can read why.
  const reasonFile = path.join(dir, `${target}.reason.json`);
  // a reason can quote the file (a packet id of megabytes): cut, so the reason file is always deliverable
  const said = reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}… (cut)` : reason;
  const mine =
    (await deliver(reasonFile, JSON.stringify({ file: name, reason: said, at: new Date().toISOString() }, null, 2) + "\n", { guildDir }))
      .status === "delivered";
  try {
    renameSync(path.join(gateDir, name), path.join(dir, target));
  } catch {
    if (mine) rmSync(reasonFile, { force: true });
    return null; // already moved by another worker
  }
  return target;
}
