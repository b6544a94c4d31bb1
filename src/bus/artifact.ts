// The artifact as the bus sees it (SPEC §10): read with a bound, strict UTF-8, scrubbed, hashed. Every place that
// needs the artifact's text or sha (broker, verifier, outcome, status, review) asks here, so they cannot disagree.
import { lstatSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import type { Layout } from "./layout.js";
import type { ArtifactProblem, ArtifactState } from "../core/artifact-view.js";
import type { GateSnapshot } from "../core/snapshot.js";
import type { Settings } from "../spec/schemas.js";
import { ScrubConfigError, scrubOptions, type ScrubOptions, type ScrubReport, scrubWithReport } from "../core/scrub.js";
import { sha256Hex } from "../core/sha.js";
import { decodeUtf8, readBounded, ReadRefused } from "./read-bounded.js";
import { isSystemFault } from "./system-fault.js";
import { ReadFault } from "../core/read-fault.js";
import { MAX_ARTIFACT_BYTES } from "../spec/constants.js";
import { PathSafetyError } from "./no-symlinks.js";

const cache = new Map<string, { text: string; sha: string; redacted: number }>();
const CACHE_ENTRIES = 16;

/** Read, scrub and hash the artifact; never throws. Scrubbing is cached by the raw bytes' sha and the patterns. */
export function readArtifact(layout: Layout, relPath: string, options: ScrubOptions = {}): ArtifactState {
  let raw: Buffer;
  let changedAtMs: number;
  try {
    const real = layout.readableArtifact(relPath);
    raw = readBounded(real, { max: MAX_ARTIFACT_BYTES, followSymlink: true });
    // taken after the read: a change in between shows as later, never as earlier; every link's on the way too
    const given = layout.artifact(relPath);
    changedAtMs = Math.max(statSync(real).ctimeMs, given === real ? 0 : linksChangedAtMs(layout, given));
  } catch (error) {
    return settling(layout, relPath, refused(relPath, error), error);
  }
  if (absentSince.size) absentSince.delete(layout.artifact(relPath)); // the path resolved only while something was away
  const rawSha = sha256Hex(raw);
  const key = `${rawSha}\u0000${JSON.stringify(options.customPatterns ?? [])}`;
  const hit = cache.get(key);
  if (hit) return { ok: true, ...hit, rawSha, changedAtMs };
  let decoded: string;
  try {
    decoded = decodeUtf8(raw, relPath);
  } catch (error) {
    return refused(relPath, error);
  }
  let report: ScrubReport;
  try {
    report = scrubWithReport(decoded, options);
  } catch (error) {
    // an invalid custom pattern: the settings' fault, but no packet may go out unscrubbed, so a human fixes it
    if (!(error instanceof ScrubConfigError)) throw error;
    return {
      ok: false,
      problem: "scrub_failed",
      detail: `cannot scrub ${relPath}: ${error.message}; fix secrets_policy.redaction_patterns in .guild/settings.json, then retry`,
    };
  }
  const { text, redactions } = report;
  const redacted = Object.values(redactions).reduce((sum, n) => sum + n, 0);
  const entry = { text, sha: sha256Hex(Buffer.from(text, "utf8")), redacted };
  cache.set(key, entry);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return { ok: true, ...entry, rawSha, changedAtMs };
}

/** As many links as one path may follow (Linux's MAXSYMLINKS): more is a loop. */
const MAX_LINKS = 40;

/**
 * The latest ctime of the links `file`'s path follows below the project's root, in any component and down a chain (0
 * without one): a link swapped to other bytes and back changes the bytes a reviewer reading the file meanwhile saw, as
 * a write would. Links above the root are not the artifact's: a project is not moved under running workers (its real
 * root is read once), and a process given the root through a link must read the time one given the real root reads.
 */
function linksChangedAtMs(layout: Layout, file: string): number {
  let latest = 0;
  let at = layout.realRoot();
  const todo = path.relative(layout.root, file).split(path.sep).filter(Boolean);
  for (let links = 0; todo.length;) {
    const next = path.join(at, todo.shift()!);
    const st = lstatSync(next);
    if (!st.isSymbolicLink()) {
      at = next;
      continue;
    }
    if (++links > MAX_LINKS) throw Object.assign(new Error(`${file}: too many levels of symbolic links`), { code: "ELOOP" });
    latest = Math.max(latest, st.ctimeMs);
    const target = readlinkSync(next);
    if (path.isAbsolute(target)) at = path.parse(target).root;
    todo.unshift(...target.split(path.sep).filter(Boolean));
  }
  return latest;
}

/** How long an artifact gone from a directory that just changed is taken for one being replaced (a save, a checkout). */
export const ARTIFACT_SETTLE_MS = 5_000;
/** The longest this process takes an absence for a replacement however busy the directory is: then it is missing. */
const MAX_SETTLE_MS = 60_000;
/** When this process first found each artifact gone while its directory kept changing (bounded: a few gates each). */
const absentSince = new Map<string, number>();

/**
 * A file that is not there while its directory changed in the last ARTIFACT_SETTLE_MS is likely being replaced: emacs
 * renames the file to `file~` before writing it anew, and `git checkout` removes and recreates it. Workers take that
 * as a read to try again (transient: artifactOrFault), so no escalation asks a person to retry a round for a save;
 * gone longer, or from a directory at rest, it is missing.
 */
function settling(layout: Layout, relPath: string, state: ArtifactState, error: unknown): ArtifactState {
  const code = error instanceof ReadRefused ? undefined : (error as NodeJS.ErrnoException).code;
  if (state.ok || state.transient || code !== "ENOENT") return state;
  const file = layout.artifact(relPath);
  const dir = lstatSync(path.dirname(file), { throwIfNoEntry: false });
  const now = Date.now();
  if (!dir?.isDirectory() || now - dir.mtimeMs >= ARTIFACT_SETTLE_MS) return state;
  if (absentSince.size > 1_000) absentSince.clear();
  const first = absentSince.get(file) ?? now;
  absentSince.set(file, first);
  if (now - first >= MAX_SETTLE_MS) return state;
  return { ...state, transient: true };
}

function refused(relPath: string, error: unknown): ArtifactState {
  const code = error instanceof ReadRefused ? error.code : (error as NodeJS.ErrnoException).code;
  const transient = isSystemFault(error) ? { transient: true as const } : {};
  if (error instanceof ReadRefused) {
    const problem: ArtifactProblem =
      error.kind === "too-large" ? "artifact_too_large" : error.kind === "not-utf8" ? "artifact_not_text" : "artifact_missing";
    const detail =
      error.kind === "too-large"
        ? `${error.message}; split it, or review a smaller part`
        : error.message.replace(/^[^:]*: /, `${relPath}: `);
    return { ok: false, problem, detail, ...transient };
  }
  // realpath failures (ENOENT, ENOTDIR, ELOOP), and a path leading out of the project or into .guild (which names it)
  const detail =
    code === "ENOENT" || code === "ENOTDIR"
      ? `${relPath}: no such file`
      : error instanceof PathSafetyError
        ? error.message
        : `${relPath}: ${(error as Error).message}`;
  return { ok: false, problem: "artifact_missing", detail, ...transient };
}

/** For a worker about to act: an artifact the system failed to read (EIO, EMFILE…) is no reason to escalate, restart
 * or judge; ReadFault, and the step is tried again later. */
export function artifactOrFault(state: ArtifactState): ArtifactState {
  if (!state.ok && state.transient) throw new ReadFault(`the artifact cannot be read for now: ${state.detail}`);
  return state;
}

/** The artifact of the gate's request as it is now (SPEC §10); a gate without a request has none. */
export function gateArtifact(layout: Layout, settings: Settings, s: GateSnapshot): ArtifactState {
  if (!s.request) return { ok: false, problem: "artifact_missing", detail: "no request.json" };
  return readArtifact(layout, s.request.artifact_path, scrubOptions(settings));
}

/** The gate's artifact, read (bounded, scrubbed, hashed) at most once, and only if something asks for it. */
export function lazyArtifact(layout: Layout, settings: Settings, s: GateSnapshot): () => ArtifactState {
  let read: ArtifactState | undefined;
  return () => (read ??= gateArtifact(layout, settings, s));
}
