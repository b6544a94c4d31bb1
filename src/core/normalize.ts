// Turns a reviewer's raw output into a review_result.v1 envelope, the same way for every adapter:
// a fenced review_result.v1/json block, or a whole-output JSON object, or a valid `## SATISFIED` sentinel.
// The score and readiness (ARIS's stop condition) are taken here too, from the reviewer's own output only.
import { type FenceScan, scanFences, unfencedLines } from "./fences.js";
import { type JsonAnswer, parseJsonAnswer } from "./json-answer.js";
import { lenientProblems } from "./result-wire.js";
import { RESULT_WIRE } from "../spec/constants.js";
import { toReadiness } from "./score-gate.js";
import { describeIssues } from "../spec/issues.js";
import { type Finding, type PacketFrontMatter, type Readiness, ReviewResultStrict } from "../spec/schemas.js";
import { findingView, severityWord } from "./findings.js";
import { scrubLine } from "./scrub.js";
import { cutText, shown } from "./text-of.js";
import { AUTHOR_HEADINGS } from "./packet-body.js";

export interface EnvelopeContext {
  packetId: string;
  /** sha256 of the scrubbed artifact bytes the reviewer was given (from the packet). */
  artifactSha256: string;
  round: number;
  reviewerHost: string;
  reviewerModel: string;
  reviewerModelSource: "reported" | "requested" | "declared";
  /** The text the reviewer was given (the packet): a verdict copied from it is the artifact's words, not a review. */
  given?: string;
}

export type Normalized =
  { ok: true; result: ReviewResultStrict; from: ReviewResultStrict["normalized_from"] } | { ok: false; reasons: string[] };

/** Languages of a fenced block that may hold the answer's JSON: the info string's first word (CommonMark). */
const JSON_LANGUAGES = new Set(["", "json", "jsonc", "json5"]);
const MENTIONS_VERDICT_RE = /"verdict"\s*:/;
/** A \u escape of four hex digits, which may spell the key (`"verdic\u0074"`). */
const JSON_ESCAPE_RE = /\\u([0-9a-fA-F]{4})/g;

/**
 * The fenced blocks that may be the answer: every block tagged review_result.v1 and every JSON block that carries a
 * verdict compete, so a verdict block quoted from the artifact and the reviewer's own are two candidates (malformed),
 * never one chosen by precedence. Only without any of them are plain JSON blocks candidates (their problem is named).
 */
function fencedCandidates(raw: string): string[] {
  const verdicts: string[] = [];
  const json: string[] = [];
  for (const block of scanFences(raw).blocks) {
    if (!block.closed) continue; // a cut-off block is not an answer
    const language = block.info.trim().split(/\s+/)[0]!.toLowerCase();
    const body = block.body.trim();
    if (language === RESULT_WIRE) verdicts.push(body);
    else if (JSON_LANGUAGES.has(language) && body.startsWith("{")) (MENTIONS_VERDICT_RE.test(body) ? verdicts : json).push(body);
  }
  return verdicts.length ? verdicts : json;
}

const SENTINEL = "## SATISFIED";
const OPEN_ITEM_RE = /^\s*(?:[-*+]|\d+[.)])\s|\?\s*$|\b(?:TODO|FIXME|TBD|blocking|blocker|must fix|open question)\b/i;
// A Markdown heading has at most 3 spaces of indentation; more is an indented code block, i.e. quoted.
const HEADING_INDENT_RE = /^ {0,3}\S/;

/**
 * `## SATISFIED` counts only as the reviewer's own heading: alone on its trimmed line, not quoted (in a fence or
 * indented as code), exactly once, with nothing open after it. Quoted mentions are ignored.
 */
export function sentinelVerdict(raw: string): { valid: true; before: string } | { valid: false; reason: string } | null {
  const scan = scanFences(raw);
  const { lines, fenced } = scan;
  const own = (i: number) => !fenced[i] && HEADING_INDENT_RE.test(lines[i]!);
  const mentions = lines.flatMap((l, i) => (own(i) && l.includes(SENTINEL) ? [i] : []));
  const standalone = mentions.filter((i) => lines[i]!.trim() === SENTINEL);
  if (mentions.length === 0) return null;
  if (standalone.length === 0) return { valid: false, reason: "sentinel inline (not alone on its line)" };
  if (mentions.length > 1) return { valid: false, reason: "sentinel repeated" };
  const at = standalone[0]!;
  // everything after it counts, quoted or not: an open item inside a fence is still open
  const after = lines.slice(at + 1).filter((l) => l.trim() !== "");
  const open = after.find((l) => OPEN_ITEM_RE.test(l));
  if (open) return { valid: false, reason: `open findings after the sentinel: ${JSON.stringify(cutText(open.trim(), 80))}` };
  const json = strayVerdict(scan);
  if (json) return { valid: false, reason: `a "verdict" key outside a fence beside the sentinel: ${json}` };
  return { valid: true, before: lines.slice(0, at).join("\n").trim() };
}

/**
 * The first line, quoted for a reason, that names a `"verdict"` key (its letters also written as `\u` escapes) outside every
 * closed fence: unfenced, or in a fence never closed. Beside the sentinel or a fenced answer it is a second verdict
 * (`{"verdict":"issues",…}` printed bare, or a correction left unclosed): two verdicts are malformed, never the more
 * lenient one chosen. null when there is none.
 */
function strayVerdict({ lines, fenced, unclosedFrom }: FenceScan): string | null {
  const line = lines.find(
    (l, i) =>
      (!fenced[i] || i >= unclosedFrom) &&
      MENTIONS_VERDICT_RE.test(l.replace(JSON_ESCAPE_RE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))),
  );
  return line === undefined ? null : JSON.stringify(cutText(line.trim(), 80));
}

// ARIS's rule: exactly one line-anchored `Score: X/10` and one `Verdict: ready|almost|not ready`, case-insensitive,
// an optional leading "- " or "* ", nothing else on the line. Anything that merely mentions one is refused.
const SCORE_LINE_RE = /^[ \t]*(?:[-*][ \t]+)?score:[ \t]*([^\s/]+)[ \t]*\/[ \t]*10[ \t]*$/i;
const VERDICT_LINE_RE = /^[ \t]*(?:[-*][ \t]+)?verdict:[ \t]*(\S(?:.*\S)?)[ \t]*$/i;
const SCORE_START_RE = /score:/gi;
const SCORE_TAIL_RE = /[ \t]*[^\s/]+[ \t]*\/[ \t]*10/y;
const RUN_RE = /[^\s/]*/y;

/**
 * Whether a line mentions `score: X/10` anywhere. Scanned rather than searched with one regex: from each start of
 * "score:score:score:…" the value would run to the end of the line (quadratic). Every start inside one run of
 * [^\s/] ends its value where the run ends, so only a run's first start and a "score:" ending a run are tried.
 */
export function mentionsScore(line: string): boolean {
  SCORE_START_RE.lastIndex = 0;
  for (let m = SCORE_START_RE.exec(line); m; m = SCORE_START_RE.exec(line)) {
    const valueAt = m.index + m[0].length;
    SCORE_TAIL_RE.lastIndex = valueAt;
    if (SCORE_TAIL_RE.test(line)) return true;
    RUN_RE.lastIndex = valueAt;
    RUN_RE.exec(line);
    SCORE_START_RE.lastIndex = Math.max(m.index + 1, RUN_RE.lastIndex - m[0].length);
  }
  return false;
}
const VERDICT_MENTION_RE = /verdict:[ \t]*(?:ready|almost|not ready)\b/i;
const NUMBER_RE = /^[+-]?\d+(?:\.\d+)?$/;

export interface ScoreReading {
  score?: number;
  readiness?: Readiness;
  /** Why a score or readiness could not be taken; any problem makes the score gate unavailable. */
  problems: string[];
}

type Parsed<T> = { value: T } | { problem: string };

/** How one field is read: its line and inline-mention patterns, its two parsers, and when two readings agree. */
interface FieldSpec<T> {
  name: string;
  lineRe: RegExp;
  mentions: (line: string) => boolean;
  fromLine: (v: string) => Parsed<T>;
  fromStructured: (v: unknown) => Parsed<T>;
  same: (a: T, b: T) => boolean;
}

/**
 * One field from the prose lines and the structured value: at most one source each, and they must agree. A line the
 * packet itself holds (`given`: the artifact's pre-filled `Score: 9/10`) may be that line quoted, so it is no reading:
 * a problem when it would be the only one, and passed over when the structured field gives the reviewer's own value.
 */
function readField<T>(
  spec: FieldSpec<T>,
  lines: string[],
  structured: unknown,
  given: ReadonlySet<string>,
  problems: string[],
): T | undefined {
  const { name, lineRe, mentions, fromLine, fromStructured, same } = spec;
  const anchored = lines.flatMap((l) => {
    const m = lineRe.exec(l);
    if (m && given.has(quotedLineKey(l))) {
      if (structured !== undefined) return [];
      const quoted = JSON.stringify(cutText(l.trim(), 80));
      problems.push(`the ${name} line ${quoted} is also a line of the packet (the artifact's words, which a review may only quote)`);
      return [];
    }
    return m ? [m[1]!] : [];
  });
  const inline = lines.filter((l) => !lineRe.test(l) && mentions(l));
  const take = (p: Parsed<T>): T | undefined => ("value" in p ? p.value : void problems.push(p.problem));
  if (inline.length)
    problems.push(`${name} mentioned inline (${JSON.stringify(cutText(inline[0]!.trim(), 80))}): put it alone on its own line`);
  if (anchored.length > 1) problems.push(`${anchored.length} ${name} lines; give exactly one`);
  const prose = anchored.length === 1 && !inline.length ? take(fromLine(anchored[0]!)) : undefined;
  const field = structured !== undefined ? take(fromStructured(structured)) : undefined;
  if (prose !== undefined && field !== undefined && !same(prose, field)) {
    problems.push(`the ${name} line says ${JSON.stringify(prose)} but the ${name.toLowerCase()} field says ${JSON.stringify(field)}`);
    return undefined;
  }
  return prose ?? field;
}

/**
 * The score and readiness a reviewer gave: its `Score: X/10` and `Verdict: …` lines, or its structured `score` and
 * `readiness` fields. Nothing is recorded when the output names neither. A score is kept as given (the verifier
 * judges its range); a value that is not a number is a problem.
 */
export function readScore(raw: string, structured: { score?: unknown; readiness?: unknown }, given?: string): ScoreReading {
  const lines = unfencedLines(raw); // a quoted Score line is not the reviewer's score
  const problems: string[] = [];
  const packetLines = new Set(given === undefined ? [] : authorLines(given).map(quotedLineKey));
  const readiness = (v: unknown, problem: string): Parsed<Readiness> => {
    const r = toReadiness(v);
    return r ? { value: r } : { problem };
  };
  const score = readField<number>(
    {
      name: "Score",
      lineRe: SCORE_LINE_RE,
      mentions: mentionsScore,
      fromLine: (v) => (NUMBER_RE.test(v) ? { value: Number(v) } : { problem: `the Score line has ${JSON.stringify(v)}, not a number` }),
      fromStructured: (v) =>
        typeof v === "number" && Number.isFinite(v) ? { value: v } : { problem: `score must be a number (got ${shown(v)})` },
      same: (a, b) => Math.abs(a - b) <= 1e-9,
    },
    lines,
    structured.score,
    packetLines,
    problems,
  );
  const ready = readField<Readiness>(
    {
      name: "Verdict",
      lineRe: VERDICT_LINE_RE,
      mentions: (l) => VERDICT_MENTION_RE.test(l),
      fromLine: (v) => readiness(v, `the Verdict line has ${JSON.stringify(v)}, not ready | almost | not ready`),
      fromStructured: (v) => readiness(v, `readiness must be ready, almost or not ready (got ${shown(v)})`),
      same: (a, b) => a === b,
    },
    lines,
    structured.readiness,
    packetLines,
    problems,
  );
  return { ...(score !== undefined ? { score } : {}), ...(ready !== undefined ? { readiness: ready } : {}), problems };
}

function toFinding(value: unknown, fallbackSeverity: Finding["severity"]): Finding {
  const { title, severity: given, fields } = findingView(value);
  // read as the gate reads it (§11): "Blocking" or "ＢＬＯＣＫＩＮＧ" is a blocker, never coerced to the default
  const spelled = severityWord(given);
  const severity = spelled !== null && SEVERITIES.has(spelled) ? (spelled as Finding["severity"]) : fallbackSeverity;
  // The strict schema types these as strings; `evidence: ["§2"]` or `id: 7` must not make a whole review malformed.
  const texts: Record<string, string> = {};
  for (const k of ["id", "detail", "evidence"])
    if (fields[k] !== undefined && typeof fields[k] !== "string") texts[k] = JSON.stringify(fields[k]);
  return { ...fields, ...texts, severity, title };
}

const SEVERITIES = new Set(["blocking", "high", "medium", "low", "info"]);

/** A result's largest size as written: room is left in a gate file (4 MiB, §5) for the dispatch record and scrub labels. */
const MAX_ANSWER_BYTES = 3 * 1024 * 1024;

const MODE_FIELDS = new Set(["score", "readiness", "memory_update", "rulings"]);

/** Fill what the reviewer may leave out (identity, round) and coerce findings; never change its verdict or bindings. */
function envelope(
  obj: Record<string, unknown>,
  ctx: EnvelopeContext,
  from: ReviewResultStrict["normalized_from"],
  raw: string,
): Normalized {
  // the result reader's rule (a lone finding in place of the list would be dropped below, findings defaulting to the
  // blockers): what it refuses in a result file is refused in an answer
  const problems = lenientProblems({
    ...obj,
    packet_id: obj.packet_id ?? ctx.packetId,
    artifact_sha256_reviewed: obj.artifact_sha256_reviewed ?? ctx.artifactSha256,
  });
  if (problems.length) return { ok: false, reasons: problems };
  const blocking = (obj.blocking_findings as unknown[]).map((f) => toFinding(f, "blocking"));
  const findings = Array.isArray(obj.findings) ? obj.findings.map((f) => toFinding(f, "medium")) : blocking;
  // Strict structured outputs (OpenAI) send null for a field left out: the modes' optional fields read it as absent.
  const given = Object.fromEntries(Object.entries(obj).filter(([k, v]) => !(v === null && MODE_FIELDS.has(k))));
  // score, readiness and score_problems are the bus's own reading of the output, never a copied claim; the family
  // is derived from the model (§12), never taken as claimed
  const { score, readiness, score_problems: _claimed, reviewer_family: _family, ...rest } = given;
  const reading = readScore(raw, { score, readiness }, ctx.given);
  const candidate = {
    ...rest,
    ...(reading.score !== undefined ? { score: reading.score } : {}),
    ...(reading.readiness !== undefined ? { readiness: reading.readiness } : {}),
    ...(reading.problems.length ? { score_problems: reading.problems } : {}),
    schema_version: RESULT_WIRE,
    packet_id: obj.packet_id ?? ctx.packetId,
    artifact_sha256_reviewed: obj.artifact_sha256_reviewed ?? ctx.artifactSha256,
    findings,
    blocking_findings: blocking,
    round: ctx.round,
    reviewer_host: ctx.reviewerHost,
    ...reviewerIdentity(obj.reviewer_model, ctx),
    normalized_from: from,
  };
  const checked = ReviewResultStrict.safeParse(candidate);
  if (!checked.success) return { ok: false, reasons: describeIssues(checked.error) };
  const bytes = Buffer.byteLength(JSON.stringify(checked.data, null, 2));
  if (bytes > MAX_ANSWER_BYTES) {
    return {
      ok: false,
      reasons: [`the result would be ${bytes} bytes, more than the ${MAX_ANSWER_BYTES} a review result may have: shorten the findings`],
    };
  }
  return { ok: true, result: checked.data, from };
}

/**
 * The model the reviewer names in its answer beats the configured or declared one (§8.2). When the CLI or endpoint
 * reported a different model too, both are kept: the family is then known only if the two agree (§12).
 */
function reviewerIdentity(claimed: unknown, ctx: EnvelopeContext): Pick<ReviewResultStrict, "reviewer_model" | "reviewer_model_source"> {
  // each name one line of at most 96 characters, so that both fit the 200 a result's name may have: a disagreement
  // is never cut off (it is what makes the family unknown)
  const own = typeof claimed === "string" ? modelName(claimed) : "";
  const given = modelName(ctx.reviewerModel);
  if (!own) return { reviewer_model: given, reviewer_model_source: ctx.reviewerModelSource };
  const both = ctx.reviewerModelSource === "reported" && own !== given;
  return { reviewer_model: both ? `${given}, ${own}` : own, reviewer_model_source: "reported" };
}

const modelName = (name: string) => scrubLine(name, 96);

type ParsedObject =
  { ok: true; obj: Record<string, unknown> } | { ok: false; kind: Extract<JsonAnswer, { ok: false }>["kind"] | "shape"; reason: string };

/** An answer's JSON object, or why not; depth and repeated keys are refused before anything walks it. */
function parseObject(text: string): ParsedObject {
  const parsed = parseJsonAnswer(text);
  if (!parsed.ok) return parsed;
  const v = parsed.value;
  return v && typeof v === "object" && !Array.isArray(v)
    ? { ok: true, obj: v as Record<string, unknown> }
    : { ok: false, kind: "shape", reason: "not a JSON object" };
}

const COPIED = "the answer's JSON is copied word for word from the packet (the artifact's text, not a review); emit your own";

/**
 * A JSON value as one text whatever its layout and key order: two objects that say the same give the same text. With
 * `shortest`, every number is written "0": no text of the value is shorter than that (`1e9` is shorter than its
 * canonical `1000000000`; strings are escaped as any JSON text must escape them, keys and punctuation are as short).
 */
function canonicalJson(value: unknown, shortest = false): string {
  const walk = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(walk).join(",")}]`;
    if (v && typeof v === "object") {
      // own entries (a "__proto__" key is one of them), by key
      const entries = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${walk(x)}`).join(",")}}`;
    }
    return shortest && typeof v === "number" ? "0" : JSON.stringify(v);
  };
  return walk(value);
}

/**
 * Whether the answer's object is one the packet holds, in any layout: a verdict planted in the artifact (a fenced
 * block, a line, amid a line of prose or code, inside a larger object, the whole file) that the reviewer quoted
 * pretty-printed or on one line is the artifact's words, as one quoted byte for byte is. null when it is not; a reason
 * when it is, or when the packet holds too many objects naming a verdict to look through (fail closed: never a pass
 * taken for the reviewer's because the look stopped).
 */
function quotesPacket(obj: Record<string, unknown>, given: string | undefined): string | null {
  if (given === undefined) return null;
  const answer = canonicalJson(obj);
  // a text of the answer's object has at least `shortest` and at most `longest` characters besides white space (an
  // escape spells one in six)
  const shortest = canonicalJson(obj, true).length;
  const longest = MAX_RUN_GROWTH * answer.length + 64;
  for (const text of plantedObjects(authorLines(given).join("\n"), shortest, longest)) {
    if (text === null) return TOO_MANY_PLANTED;
    const p = parseObject(text);
    if (p.ok && canonicalJson(p.obj) === answer) return COPIED;
  }
  return null;
}

const MAX_RUN_GROWTH = 6;
/** How many characters the look for planted objects may step through in one answer: far more than any real packet
 * needs (each object is stepped through once per brace it opens), far less than a pathological one would take. */
const PLANTED_SCAN_STEPS = 1 << 24;
const TOO_MANY_PLANTED =
  "the packet holds too many JSON objects naming a verdict to tell whether the answer's JSON is one of them " +
  "(the artifact's text, not a review); the artifact must plant fewer";
/** A key that may spell "verdict": its letters, any of them written as a \u escape. */
const VERDICT_KEY_RE = /"(?:v|\\u0076)(?:e|\\u0065)(?:r|\\u0072)(?:d|\\u0064)(?:i|\\u0069)(?:c|\\u0063)(?:t|\\u0074)"/g;

/**
 * Every JSON object text of `text` that names a verdict key and could be a layout of the answer's (`shortest` to
 * `longest` characters besides white space), wherever it starts: a line, amid prose or code, inside a larger object,
 * in a fence at any depth. Read without the quote marks and indentation in front of each line (a block quote, an
 * indented code block), as a reviewer quoting it de-indented reads it. Each `{` is tried as an object's start with
 * its own reading of strings from there (an odd quote earlier on the line hides nothing), only near a verdict key;
 * null, and no more, once the steps run out.
 */
function* plantedObjects(text: string, shortest: number, longest: number): Generator<string | null> {
  const s = text
    .split(ANY_LINE_BREAK)
    .map((line) => line.replace(/^(?:[ \t]*>)*[ \t]*/, ""))
    .join("\n");
  const keys = [...s.matchAll(VERDICT_KEY_RE)].map((m) => m.index);
  if (!keys.length) return;
  // how many characters before each index are no layout: a brace is near a key when few are between them, however
  // much white space lays them apart (a planted object padded with a megabyte of it is still one)
  const solidBefore = new Int32Array(s.length + 1);
  for (let i = 0; i < s.length; i++) solidBefore[i + 1] = solidBefore[i]! + (isLayout(s[i]!) ? 0 : 1);
  let steps = PLANTED_SCAN_STEPS;
  let k = 0;
  for (let from = s.indexOf("{"); from >= 0; from = s.indexOf("{", from + 1)) {
    while (k < keys.length && keys[k]! < from) k++;
    if (k === keys.length) return;
    if (solidBefore[keys[k]!]! - solidBefore[from]! > longest) continue;
    const end = objectEnd(s, from, longest);
    steps -= end.steps;
    if (steps < 0) return yield null;
    if (end.at < 0 || keys[k]! > end.at || end.solid < shortest) continue;
    steps -= end.at - from;
    yield s.slice(from, end.at + 1);
  }
}

/** JSON's white space: outside a string, the layout of an object, not the object. */
const isLayout = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";

/** Where the object opened at `from` closes (-1: it does not, on this line of strings, within `longest` characters
 * besides white space), how many characters it holds besides white space, and the steps taken. */
function objectEnd(s: string, from: number, longest: number): { at: number; solid: number; steps: number } {
  let depth = 0;
  let solid = 0;
  let inString = false;
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\n" && inString) return { at: -1, solid, steps: i - from }; // a JSON string holds no line break
    if (!inString && isLayout(c)) continue; // layout, not the object's
    if (++solid > longest) return { at: -1, solid, steps: i - from };
    if (inString) {
      if (c === "\\") {
        i++; // the escaped character is the string's, whatever it is
        solid++;
      } else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return { at: i, solid, steps: i - from };
  }
  return { at: -1, solid, steps: s.length - from };
}

const SENTINEL_COPIED =
  "the answer's ## SATISFIED line is also a line of the packet (the artifact's words, which a review may only quote); " +
  "emit the review_result.v1 block";

/**
 * The lines of a packet the author wrote: the fenced text under its artifact and rebuttal headings. Only these can
 * plant a verdict; the reviewer's own notes (its memory, its earlier findings) and the bus's text are not looked at,
 * so a reviewer that repeats its own earlier `Score: 6/10` is not taken for quoting the author.
 */
function authorLines(given: string): string[] {
  const { lines, fenced } = scanFences(given.split(ANY_LINE_BREAK).join("\n"));
  let author = false;
  return lines.filter((line, i) => {
    if (!fenced[i] && line.startsWith("## ")) author = AUTHOR_HEADINGS.some((heading) => line.startsWith(heading));
    return author && fenced[i];
  });
}

/**
 * What a quote of a line may lose: white space, invisible characters (default-ignorable ones too: a variation
 * selector, a Hangul filler), Markdown's quote and emphasis marks.
 */
const LOST_IN_A_QUOTE = /[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}>*_`~]/gu;
/** A list marker in front of a line (once white space is dropped): a quote may add one or leave one out. */
const LIST_MARKERS = /^(?:[-+\u2022]|\d{1,9}[.)])+/u;

/**
 * A line as a quote of it may read (compatibility forms folded, what a quote may lose dropped, any list marker in
 * front dropped, in any case): a planted `## SATISFIED\u200b` or `> Score: 9/10` quoted clean, or `Score: 9/10`
 * quoted as the list item `- Score: 9/10` (a line the Score reading takes), is still the packet's line.
 */
function quotedLineKey(line: string): string {
  return line.normalize("NFKC").replace(LOST_IN_A_QUOTE, "").replace(LIST_MARKERS, "").toLowerCase();
}
const SENTINEL_KEY = quotedLineKey(SENTINEL);

/** Every break a reader of the packet (a model, a Markdown renderer) may take for a new line: CR alone too. */
const ANY_LINE_BREAK = /\r\n?|[\n\u0085\u2028\u2029]/;

/**
 * Whether the text the reviewer was given holds a `## SATISFIED` line of its own (the artifact's, a rebuttal's): an
 * answer's sentinel can then be that line quoted in prose, as a verdict block can be quoted, so it is no verdict.
 */
function givesSentinel(given: string | undefined): boolean {
  return given !== undefined && authorLines(given).some((line) => quotedLineKey(line) === SENTINEL_KEY);
}

export function normalizeOutput(raw: string, ctx: EnvelopeContext): Normalized {
  const blocks = fencedCandidates(raw);
  if (blocks.length > 1) return { ok: false, reasons: [`${blocks.length} candidate JSON blocks; emit exactly one`] };
  if (blocks.length === 1) {
    const stray = strayVerdict(scanFences(raw));
    if (stray) return { ok: false, reasons: [`a "verdict" key outside the fenced block beside it: ${stray}; emit exactly one verdict`] };
    if (ctx.given?.includes(blocks[0]!)) return { ok: false, reasons: [COPIED] };
    const p = parseObject(blocks[0]!);
    const quoted = p.ok ? quotesPacket(p.obj, ctx.given) : null;
    if (quoted) return { ok: false, reasons: [quoted] };
    return p.ok ? envelope(p.obj, ctx, "fenced", raw) : { ok: false, reasons: [`fenced block is ${p.reason}`] };
  }
  const trimmed = raw.trim();
  if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
    if (ctx.given?.includes(trimmed)) return { ok: false, reasons: [COPIED] };
    const p = parseObject(trimmed);
    const quoted = p.ok ? quotesPacket(p.obj, ctx.given) : null;
    if (quoted) return { ok: false, reasons: [quoted] };
    if (p.ok) return envelope(p.obj, ctx, "whole-json", raw);
    // JSON that parses but is refused is the answer, not prose that happens to start with a brace
    if (p.kind === "depth" || p.kind === "duplicate") return { ok: false, reasons: [`the whole output is ${p.reason}`] };
  }
  const sentinel = sentinelVerdict(raw);
  if (sentinel?.valid && givesSentinel(ctx.given)) return { ok: false, reasons: [SENTINEL_COPIED] };
  if (sentinel?.valid) {
    return envelope(
      { verdict: "satisfied", summary: sentinel.before.slice(0, 4000), findings: [], blocking_findings: [] },
      ctx,
      "sentinel",
      raw,
    );
  }
  if (sentinel && !sentinel.valid) return { ok: false, reasons: [`malformed termination: ${sentinel.reason}`] };
  return {
    ok: false,
    reasons: ["envelope missing: no review_result.v1 block, no whole-output JSON object, no valid ## SATISFIED sentinel"],
  };
}

/** The one schema-repair prompt sent after a malformed answer. */
export function repairPrompt(reasons: string[], ctx: EnvelopeContext): string {
  return [
    "Your previous answer could not be used as a review result:",
    ...reasons.map((r) => `- ${r}`),
    "",
    `Re-emit ONLY a single fenced \`\`\`${RESULT_WIRE} block containing one JSON object with:`,
    `"schema_version": "${RESULT_WIRE}", "packet_id": "${ctx.packetId}", "artifact_sha256_reviewed": "${ctx.artifactSha256}",`,
    `"verdict": "satisfied" or "issues", "summary", "findings" (each {severity, title, detail, evidence}), "blocking_findings",`,
    "and every other field the output contract above asks for (score, readiness, memory_update, rulings) as you gave it.",
    "Do not review again; restate your existing review in this format.",
  ].join("\n");
}

/**
 * The reviewer was given one packet and one sha: an answer naming others is malformed (and gets the repair
 * prompt), not a review of other bytes. A real artifact change is the verifier's to find, against the disk.
 */
export function normalizeBound(text: string, ctx: EnvelopeContext): Normalized {
  const n = normalizeOutput(text, ctx);
  if (!n.ok) return n;
  const reasons: string[] = [];
  if (n.result.packet_id !== ctx.packetId)
    reasons.push(`packet_id must be ${ctx.packetId} (got ${JSON.stringify(scrubLine(n.result.packet_id, 100))})`);
  if (n.result.artifact_sha256_reviewed.toLowerCase() !== ctx.artifactSha256) {
    reasons.push(
      `artifact_sha256_reviewed must be ${ctx.artifactSha256}, ` +
        `the sha of the bytes in the packet (got ${JSON.stringify(scrubLine(n.result.artifact_sha256_reviewed, 100))})`,
    );
  }
  return reasons.length ? { ok: false, reasons } : n;
}

/** Who the answer is from before it says: the model requested, or the one the adapter declared (copilot's profile). */
export function envelopeFor(
  P: PacketFrontMatter,
  provider: string,
  model: { requested: string | null; declared: boolean },
  given?: string,
): EnvelopeContext {
  return {
    ...(given !== undefined ? { given } : {}),
    packetId: P.packet_id,
    artifactSha256: P.artifact_sha256,
    round: P.round,
    reviewerHost: provider,
    reviewerModel: model.requested ?? provider,
    reviewerModelSource: model.requested && !model.declared ? "requested" : "declared",
  };
}

export function withReported(ctx: EnvelopeContext, reported: string | null | undefined): EnvelopeContext {
  return reported ? { ...ctx, reviewerModel: reported, reviewerModelSource: "reported" } : ctx;
}
