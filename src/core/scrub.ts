// The one scrubber. Applied before an artifact is hashed or put in a packet, and to everything the bus writes
// that carries free text. Deterministic and idempotent: labels never re-match, and custom patterns run to a fixpoint.
import vm from "node:vm";
import type { ReviewResultStrict, Settings } from "../spec/schemas.js";

const KINDS = ["token", "private-key", "password", "secret", "home-path", "high-entropy", "custom"] as const;
export type RedactionKind = (typeof KINDS)[number];

export const label = (kind: RedactionKind) => `[REDACTED:${kind}]`;
/** Any label this scrubber writes. */
const LABEL = new RegExp(`\\[REDACTED:(?:${KINDS.join("|")})\\]`, "g");

interface Rule {
  kind: RedactionKind;
  re: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

const NOT_LABEL = "(?!\\[REDACTED:)";
/** What may follow a quote or backtick that ends a bare value (the string or code span it is written in ends there). */
const QUOTE_END = `(?:[\\s"'\`,;)\\]}>]|$)`;
/**
 * A quote or backtick inside a word (`ab"cd`): the value's own, where one after a space or a bracket opens a string,
 * escaped too (`{\"key\": …` in a JSON string). Not after a secret's label: the value it replaced ended before that
 * quote (`Options["x"]`), and still does.
 */
const INNER_QUOTE = (quotes: string) => `(?<=[^\\s{[(,:=])(?<![\\s{[(,:=]\\\\)(?<!\\[REDACTED:secret\\])[${quotes}](?!${QUOTE_END})`;
/**
 * A bare value's first word: up to whitespace, or a quote, backtick, "," or ";" that could end the string, code span or
 * list it is written in (`"--token=x"`, `token=a, b`). Inside the word they are the value's own (`ab"cd`, `a,b`).
 */
const VALUE_STOP = `(?:(?!\\\\["'])[^\\s"'\`,;]|${INNER_QUOTE("\"'`,;")})+`;

/** Secret-looking keys in key=value / key: value / "key": "value" forms: a run of key characters with a keyword in
 *  it, found by a lookahead (a keyword between two greedy runs backtracks quadratically on "pwdpwdpwd…"). */
const SECRET_KEY =
  // max_tokens, input_tokens, tokenizer, tokenCount, token_type: counts, tools and kinds, not credentials.
  "(?=[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|token(?!s|iz|[_-]?(?:count|limit|budget|usage|type))|" +
  "api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?))[A-Za-z0-9_.-]+";

/** Values that are obviously not secrets (type annotations, placeholders, env lookups, CI/template expressions
 *  like ${{ secrets.X }} and {{ .Values.x }}, fetch's credentials modes, the bracket opening "credentials": { ... }). */
const HARMLESS_VALUE =
  /^(?:string|number|boolean|null|undefined|true|false|none|nil|any|unknown|object|str|int|bool|optional|required|include|omit|same-origin|[[{\]}]+|\$?\{\{.*|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\{[A-Za-z_][\w.]*\}|process\.env\.[A-Za-z0-9_]+|os\.environ.*|<[^>]*>|‹[^›]*›|…|\.\.\.|\*+|x+)$/i;

/** A subscript as code writes one (`[i]`, `["password"]`, `[n - 1]`): closed, and none of a password's other signs. */
const SUBSCRIPT = String.raw`\[[\w$.'" :+*/-]*\]`;
/**
 * Unquoted values that are code, not literals: calls (getToken(), await fetchToken(), new Key(...)), subscripts
 * (tokens[i], request.form["password"]) that end the value (but for closing brackets and punctuation: a literal goes
 * on after its "]", `Kx9[q]Lm2`) and this./self. members.
 */
const CODE_VALUE = new RegExp(
  String.raw`^(?:(?:await|new|yield)[ \t]+)?(?:[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*` +
    String.raw`(?:\(.*|${SUBSCRIPT}(?:\??\.[A-Za-z_$][\w$]*|${SUBSCRIPT})*(?:\(.*|[)\]};:,]*))|(?:this|self)\.[\w$.]+|await|new|yield)$`,
);
/** `this.token = token`: a member assignment whose unquoted right side is an expression. */
const MEMBER_KEY = /^["']?(?:this|self)\./;

const TOKEN_SHAPES: RegExp[] = [
  /\bsk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{36,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  // Not \b: "-" is a boundary inside the token's own alphabet, so every "eyJ" of "eyJ-eyJ-…" would start a scan.
  /(?:(?<![A-Za-z0-9_-])|(?<=\\[nrt]))eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bnpm_[A-Za-z0-9]{36}/g,
  /\bhf_[A-Za-z0-9]{30,}/g,
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g,
  /\bhttps:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]+/g,
  /\bxai-[A-Za-z0-9]{20,}/g,
  /\bAC[0-9a-f]{32}\b/g,
  /\bdop_v1_[a-f0-9]{64}\b/g,
  /\bshpat_[a-fA-F0-9]{32}\b/g,
  /\bpypi-[A-Za-z0-9_-]{50,}/g,
  // Shapes whose "-"/"_" would split them into pieces too short for the high-entropy rule.
  /\bwhsec_[A-Za-z0-9]{24,}/g,
  /\bgsk_[A-Za-z0-9]{40,}/g,
  /\bya29\.[A-Za-z0-9_-]{20,}/g,
  /(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g, // Telegram; no \b: the API path is /bot<token>
  /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/g,
];

/** A quote inside a URL's password: not one that can end the string the URL is written in. */
const URL_QUOTE = `["'\`](?!${QUOTE_END})`;

/** A word of a URL's password that holds a "/" (no "@": the first one ends it). */
const URL_WORD = `(?:[^\\s@"'\`]|${URL_QUOTE}){1,256}`;

/** A command's name where a word starts (an escaped line break glues a line's first word to it in JSON text). */
const COMMAND_START = String.raw`(?:\b|(?<=\\[nrt]))`;
/** sshpass and its own options before `-p` (what follows its first other word is the command it runs: `ssh -p 22`). */
const SSHPASS = String.raw`${COMMAND_START}sshpass(?:[ \t]+-[dfP][ \t]*[^\s|;&-][^\s|;&]*|[ \t]+-[ev]+)*`;
/** The rest of one command, up to an option: no line break, pipe or command separator. */
const SAME_COMMAND = String.raw`[^\n|;&]{0,200}`;

/**
 * Where a token shape may start: a word boundary; an escape, as JSON-escaped text glues a line's first word to it
 * ("\nghp_…"); or glued to a word character (then judged by randomBody).
 */
const GLUED_START = String.raw`(?:\b|(?<=\\[nrt])|(?<=\w))`;

/** Shapes whose prefix no word ends with and whose body is hex (which randomBody takes for a hash, not a secret). */
const NAMED_BY_PREFIX = /^(?:dop_v1_|shpat_)/;

/** Whether a token shape's match holds a run of 16+ letters and digits that the high-entropy rule takes for a secret. */
function randomBody(match: string): boolean {
  return (match.match(/[A-Za-z0-9]{16,}/g) ?? []).some((run) => looksLikeSecret(run, ""));
}

const SENSITIVE_HOME_DIRS = "\\.claude|\\.codex|\\.gemini|\\.ssh|\\.aws|\\.gnupg|\\.kube|\\.docker|\\.azure|\\.config/gcloud";

/** What follows a sensitive directory in a home: labels already in it among the rest (their "]" does not end it). */
const HOME_PATH = new RegExp(
  `((?:~|\\$HOME|/home/[^/\\s]+|/Users/[^/\\s]+|/root)/(?:${SENSITIVE_HOME_DIRS})/)((?:${LABEL.source}|${NOT_LABEL}[^\\s"'\`)\\]>])+)`,
  "g",
);

/** The rest of a path in a sensitive home directory; labels in it stay whole, each run of text between them is one label. */
function redactHomePaths(text: string, counts: Partial<Record<RedactionKind, number>>): string {
  const labelled = new RegExp(`(${LABEL.source})`);
  return text.replace(HOME_PATH, (_m, head: string, rest: string) => {
    const parts = rest.split(labelled); // runs of text at even indexes, labels at odd ones
    for (let i = 0; i < parts.length; i += 2) {
      if (!parts[i]) continue;
      parts[i] = label("home-path");
      counts["home-path"] = (counts["home-path"] ?? 0) + 1;
    }
    return head + parts.join("");
  });
}

/** What separates .netrc words: whitespace, or a line break escaped in a JSON string; a line's gutter (see GUTTER). */
const NETRC_SEP = String.raw`(?:\s|\\[nrt])+(?:(?<=\n)[+-]?[ \t>]*(?:(?:#+|\/\/+|;+|\*+)[ \t]+)*)?`;
/** A .netrc value: quoted ("a b", \" inside, as curl and Python read it), or a run of non-space characters. */
const NETRC_VALUE = `(?:"(?:\\\\.|[^"\\\\\\r\\n])*"|(?:[^\\s\\\\"]|\\\\(?![nrt])|"(?!${QUOTE_END}))+)`;
const NETRC_PAIR = `(?:(?:machine|login|password|passwd|account|port)${NETRC_SEP}${NETRC_VALUE}|default)`;
/** A run of .netrc words: its pairs come in any order, on one line or several. */
const NETRC_RUN = new RegExp(`(?:(?<![\\w-])|(?<=\\\\[nrt])|(?<=(?:^|\\n)[+-]))${NETRC_PAIR}(?:${NETRC_SEP}${NETRC_PAIR})+`, "g");
const NETRC_WORD = new RegExp(`(${NETRC_SEP})?([a-z]+)`, "y");
const NETRC_ARG = new RegExp(`(${NETRC_SEP})(${NETRC_VALUE})`, "y");

/** A host name (with a dot), an IP address or localhost: what a .netrc `machine` names, where prose has a word. */
const HOST = /^(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|\[[0-9A-Fa-f:.]+\])(?::[0-9]+)?$/;

/**
 * .netrc `password` and `account` values, in an entry that names a `machine` (or is the `default`) and a `login` (or
 * a machine that is a host), its words in any order and over any number of lines. A run without them is prose
 * ("machine learning password reset").
 */
function redactNetrc(text: string, counts: Partial<Record<RedactionKind, number>>): string {
  return text.replace(NETRC_RUN, (run) => {
    const pairs: { head: string; word: string; gap: string; value: string }[] = [];
    for (let at = 0; at < run.length;) {
      const word = matchAt(NETRC_WORD, run, at)!;
      const arg = word[2] === "default" ? undefined : matchAt(NETRC_ARG, run, NETRC_WORD.lastIndex)!;
      pairs.push({ head: word[0], word: word[2]!, gap: arg?.[1] ?? "", value: arg?.[2] ?? "" });
      at = arg ? NETRC_ARG.lastIndex : NETRC_WORD.lastIndex;
    }
    const has = (...words: string[]) => pairs.some((p) => words.includes(p.word));
    // without a login (a token as the password, curl's and git's credential files) the machine must name a host
    const host = pairs.some((p) => p.word === "machine" && HOST.test(p.value));
    if (!has("machine", "default") || !(has("login") || host)) return run;
    return pairs
      .map(({ head, word, gap, value }) => {
        if (!/^(?:password|passwd|account)$/.test(word) || /^"?\[REDACTED:/.test(value)) return head + gap + value;
        counts.password = (counts.password ?? 0) + 1;
        const quote = value.startsWith('"') ? '"' : "";
        return `${head}${gap}${quote}${label("password")}${quote}`;
      })
      .join("");
  });
}

/** A rule that needs more than one regular expression match: it finds a value's extent itself. */
type Scan = (text: string, counts: Partial<Record<RedactionKind, number>>) => string;

const RULES: readonly (Rule | Scan)[] = Object.freeze([
  {
    kind: "token",
    // the header's name may be quoted: "Authorization": "Basic …" in JSON, a dict, a fetch call
    // a placeholder of several words (<YOUR API KEY>) is one value, kept like any placeholder (see harmless)
    re: new RegExp(
      `\\b(authorization\\\\?["']?\\s*[:=]\\s*\\\\?["']?(?:bearer|basic|token|bot)\\s+)${NOT_LABEL}` +
        `(?:<[^<>\\r\\n]*>(?=[\\s"'\`,;]|$)|${VALUE_STOP})`,
      "gi",
    ),
    replace: (m: string, head: string) => (harmless(m.slice(head.length), false) ? m : `${head}${label("token")}`),
  },
  {
    kind: "token",
    re: new RegExp(`\\b(bearer\\s+)${NOT_LABEL}[A-Za-z0-9._~+/=-]{16,}`, "gi"),
    replace: (m: string, head: string) => (harmless(m.slice(head.length), false) ? m : `${head}${label("token")}`),
  },
  ...TOKEN_SHAPES.map((re) => ({
    kind: "token" as const,
    // also glued to a word character (`0sk_live_…`, `xghp_…`), where its body must look random: `task_test_…` or
    // `disk-2024-…` is a word that ends as a prefix does, not a token
    re: new RegExp(re.source.replace(/^\\b/, GLUED_START), re.flags),
    replace: (m: string, ...rest: unknown[]) => {
      const offset = rest[rest.length - 2] as number;
      const input = rest[rest.length - 1] as string;
      const glued = /\w/.test(input[offset - 1] ?? "") && !/\\[nrt]$/.test(input.slice(Math.max(0, offset - 2), offset));
      return glued && !randomBody(m) && !NAMED_BY_PREFIX.test(m) ? m : label("token");
    },
  })),
  {
    kind: "password",
    // The user may be empty (redis://:pass@host) but never holds "[": https://[REDACTED:token]@host is done.
    // The password runs to the last "@" before the host (as URL parsers split it): it may hold an "@" of its own.
    // (?<!…) not \b: a scheme starts where its run starts, else long a-b-c-… runs backtrack quadratically.
    // A quote inside it is its own (`pa"ss`); a "/" or a space too (not encoded, as some clients take it), where its
    // "@" is followed by a host and it does not start as a port does (`host:8080/@scope`, `host:8080 or me@x`).
    re: new RegExp(
      `(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*://[^\\s:/@"'\`[]*:)(?!\\[REDACTED:)` +
        `(?:(?:[^\\s/"'\`]|${URL_QUOTE})+|(?![0-9]*(?:[/\\s]|$))${URL_WORD}(?: ${URL_WORD}){0,3}(?=@[A-Za-z0-9[]))(@)`,
      "gi",
    ),
    replace: (_m: string, head: string, at: string) => `${head}${label("password")}${at}`,
  },
  {
    kind: "password",
    // curl's and wget's `-u user:password`: the password after the first ":" (a value with no ":" is the user alone)
    // (on a curl or wget command line: `docker run -u 1000:1000` is a user and a group); quoted, to its closing quote
    re: /([ \t](?:-u|--user|--proxy-user)(?<=(?:\b|(?<=\\[nrt]))(?:curl|wget)\b[^\n|;&]{0,200})[ \t=]+(["']?)[^\s:"'`]+:)(?!\[REDACTED:)((?<=["'][^\s:"'`]+:)[^"'\r\n]+|[^\s"'`]+)/g,
    replace: (m: string, head: string, _quote: string, value: string) => (harmless(value, false) ? m : `${head}${label("password")}`),
  },
  {
    kind: "password",
    // a password given on a command line: mysql's and mariadb's `-p<password>` (glued: `-p db` prompts, and db is the
    // database), sshpass's `-p<password>` or `-p <password>`, and a registry login's `-p`/`--password <password>`
    // (`docker login`, podman, helm …: `docker run -p` is a port, `--password-stdin` a flag); quoted, to its closing
    // quote. `--password=…` is the secret rule's.
    re: new RegExp(
      String.raw`(?:([ \t]-p)(?<=(?:${COMMAND_START}` +
        String.raw`(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb(?:-dump|-admin)?)\b${SAME_COMMAND}` +
        String.raw`|${SSHPASS})[ \t]-p)` +
        String.raw`|([ \t](?:-p|--password)[ \t]+)` +
        String.raw`(?<=${COMMAND_START}(?:docker|podman|nerdctl|buildah|skopeo|oras|helm)\b${SAME_COMMAND}` +
        String.raw`\b(?:login|repo[ \t]+add)\b${SAME_COMMAND}|${SSHPASS}[ \t]-p[ \t]+))` +
        String.raw`(?!\[REDACTED:|-)("[^"\r\n]*"|'[^'\r\n]*'|[^\s"'\`]+)`,
      "g",
    ),
    replace: (m: string, glued: string | undefined, spaced: string | undefined, value: string) =>
      harmless(value.replace(/^(["'])(.*)\1$/, "$2"), false) ? m : `${glued ?? spaced}${label("password")}`,
  },
  redactHomePaths,
  redactNetrc,
  redactSecretAssignments,
  {
    kind: "secret",
    // XML elements named like a secret key (Maven's settings.xml, .NET configs): `<password>value</password>`
    re: new RegExp(`(<(${SECRET_KEY})(?:\\s[^<>]*)?>)${NOT_LABEL}([^<]+)(?=</\\2>)`, "gi"),
    replace: (m: string, head: string, _key: string, value: string) => {
      const body = value.trim();
      if (!body || harmless(body, false)) return m;
      const lead = value.length - value.trimStart().length;
      return `${head}${value.slice(0, lead)}${label("secret")}${value.slice(lead + body.length)}`;
    },
  },
  {
    kind: "secret",
    // Java properties and their kin separate a dotted key from its value by spaces (`db.password hunter2`): a line of
    // just the two, the key dotted (a plain word pair is prose)
    // (a line of a JSON string too, between its quote or escaped line breaks)
    re: new RegExp(
      `(?:^|(?<=\\\\[nrt]|"))([+-]?[ \\t>]*(?:(?:#+|\\/\\/+|\\/?\\*+|;+|%+)[ \\t]+)*(?=[\\w-]+\\.)${SECRET_KEY}[ \\t]+)` +
        `${NOT_LABEL}([^\\s=:"\\\\][^\\s"\\\\]*)(?=[ \\t]*(?:\\r?$|\\\\[nrt]|"))`,
      "gim",
    ),
    replace: (m: string, head: string, value: string) =>
      MEMBER_KEY.test(head.trimStart()) || harmless(value, true) ? m : `${head}${label("secret")}`,
  },
  {
    kind: "high-entropy",
    // "=" only as trailing padding, so sha256=<hex> leaves the digest standing alone.
    re: /[A-Za-z0-9+/]{20,}=*/g,
    replace: (match: string, ...rest: unknown[]) => {
      const offset = rest[rest.length - 2] as number;
      const input = rest[rest.length - 1] as string;
      return looksLikeSecret(match, input.slice(Math.max(0, offset - 16), offset)) ? label("high-entropy") : match;
    },
  },
] as (Rule | Scan)[]);

// Leading \b: "ahead:" or "overhead" must not excuse what follows.
const GIT_CONTEXT = /\b(?:commit|sha|tree|parent|head|merge|object|branch)\b[^\n]{0,16}$/i;

function shannonBits(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

function isDigest(s: string): boolean {
  return (s.length === 40 || s.length === 64) && /^[0-9a-fA-F]+$/.test(s);
}

/** camelCase pieces: "QRCode3DView" → QR Code 3 D View. */
const PIECES = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/g;
const WORD_PIECE = /^(?:[0-9]{1,4}|[A-Z]{1,5}|[A-Z]?[a-z]+)$/;

/** Single letters wedged against other letters (wJalr, aB3x): random case, where k8s and e2e have none. */
function caseFlips(pieces: readonly string[]): number {
  return pieces.filter((p, i) => /^[A-Za-z]$/.test(p) && [pieces[i - 1], pieces[i + 1]].some((q) => q && /[A-Za-z]/.test(q))).length;
}

function isPathLike(s: string): boolean {
  if (!s.includes("/") || /[+=]/.test(s)) return false;
  const segments = s.split("/").filter(Boolean);
  // A digest is a path segment like any other (commit/<sha>, runs/<sha256>/...) and must survive.
  const words = segments.filter((seg) => !isDigest(seg));
  if (segments.length < 2 && words.length > 0) return false;
  return (
    words.every((seg) => seg.length <= 24 && (seg.match(/[0-9]/g)?.length ?? 0) <= 4) &&
    // Base64 with a "/" in it (AWS secret keys) splits into segments of random case; paths read as words.
    words.reduce((n, seg) => n + caseFlips(seg.match(PIECES) ?? []), 0) <= 1
  );
}

/** camelCase identifiers with numbers in them (convertToBase64String, sha256HexDigest): words, not noise. */
function isIdentifierLike(s: string): boolean {
  if (!/[a-z][A-Z]/.test(s) || /[+/=]/.test(s)) return false;
  const pieces = s.match(PIECES) ?? [];
  const lower = s.replace(/[^a-z]/g, "");
  return (
    pieces.every((p) => WORD_PIECE.test(p)) &&
    s.length / pieces.length >= 3 &&
    // Random base62 has ~1 vowel in 5 lower-case letters; identifiers have more.
    (lower.match(/[aeiou]/g)?.length ?? 0) >= lower.length / 4
  );
}

function looksLikeSecret(token: string, before: string): boolean {
  if (isDigest(token) || isPathLike(token) || isIdentifierLike(token)) return false;
  if (/run-$/.test(before) || GIT_CONTEXT.test(before)) return false;
  const core = token.replace(/=+$/, "");
  if (!/[0-9]/.test(core) || !/[A-Za-z]/.test(core)) return false;
  return shannonBits(core) >= 3.5;
}

export class ScrubConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScrubConfigError";
  }
}

export interface ScrubOptions {
  /** Extra regular expressions (settings secrets_policy.redaction_patterns), each replaced with [REDACTED:custom]. */
  customPatterns?: readonly string[];
  /** Secrets known by value (a provider's API key, read from its api_key_env): each occurrence is [REDACTED:token]. */
  literals?: readonly string[];
}

/** A value shorter than this is no key: replacing it everywhere would garble text, not hide a secret. */
const MIN_LITERAL = 8;

/** The options of every scrub the bus does: the built-in patterns, plus the settings' own. */
/** What the scrubber redacts in this project: the settings' patterns. The same in every process (the artifact's sha). */
export function scrubOptions(settings: Pick<Settings, "secrets_policy">): ScrubOptions {
  return { customPatterns: settings.secrets_policy?.redaction_patterns };
}

/**
 * What text received from a reviewer or an endpoint (a result, a failure's reason) also loses before it is written:
 * each provider's API key by value (read from the variable its api_key_env names), which an endpoint or a child may
 * echo. Never applied to the artifact, whose scrubbed sha every process must compute alike, whatever its environment.
 */
export function receivedScrubOptions(
  settings: Pick<Settings, "secrets_policy" | "providers">,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ScrubOptions {
  const literals = Object.values(settings.providers ?? {}).flatMap((p) =>
    p.api_key_env && env[p.api_key_env] ? [env[p.api_key_env]!] : [],
  );
  return { ...scrubOptions(settings), ...(literals.length ? { literals } : {}) };
}

export interface ScrubReport {
  text: string;
  redactions: Partial<Record<RedactionKind, number>>;
}

/** A settings pattern: a JavaScript regular expression, as the project wrote it. */
interface CustomRule {
  source: string;
}

/** The settings patterns, compiled as every scrub compiles them; a ScrubConfigError names the first one no scrub can run
 * (the settings reader reports it at load, so `status` and `check` name it before a scrub refuses). */
export function compileCustom(patterns: readonly string[] | undefined): CustomRule[] {
  return (patterns ?? []).map((source) => {
    try {
      new RegExp(source, "g");
    } catch (error) {
      throw new ScrubConfigError(`invalid redaction pattern ${JSON.stringify(source)}: ${(error as Error).message}`);
    }
    // a pattern that matches nothing would insert a label between every two characters, pass after pass
    if (new RegExp(source).test(""))
      throw new ScrubConfigError(`invalid redaction pattern ${JSON.stringify(source)}: it matches the empty string`);
    return { source };
  });
}

/**
 * How long the settings patterns may run, in all, in one scrub: of one text, or of one whole result (every string and
 * key of it, so an answer of many short strings cannot take the budget many times over), plus 1 ms per 128 characters
 * of what is scrubbed (each string is one call into the pattern's sandbox, whose cost counts too: a 4 MiB answer of
 * short strings gets about 30 s, where one pattern per string could take hours). A pattern a backtracking engine
 * takes for ever on (`(a+)+b` against a run of `a`) would otherwise hang every worker and command that scrubs; the
 * legitimate ones take milliseconds on the largest artifact.
 */
export const CUSTOM_PATTERN_BUDGET_MS = 1000;

/** The time the patterns have left in one scrub: only their own running counts, not the built-in rules'. */
interface Budget {
  leftMs: number;
}
const budgetFor = (chars: number): Budget => ({ leftMs: CUSTOM_PATTERN_BUDGET_MS + chars / 128 });

/** How many times the CPU budget a single pattern call may take in wall time before its watchdog stops it. */
const WALL_GUARD = 10;

/** The process's CPU time: a budget in it holds on a loaded machine, where wall time runs on while others run. */
function cpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

let sandbox: { context: vm.Context; script: vm.Script } | undefined;
/**
 * Every non-empty match of a settings pattern replaced with its label, counted. It runs in a vm context only because
 * a vm script can be interrupted (its timeout stops even a regular expression mid-backtrack); the semantics are
 * JavaScript's, as the project wrote the pattern.
 */
function redactCustom(text: string, rule: CustomRule, counts: Partial<Record<RedactionKind, number>>, budget: Budget): string {
  sandbox ??= {
    context: vm.createContext({}),
    script: new vm.Script(
      "(() => { let n = 0; " +
        "const out = text.replace(new RegExp(source, 'g'), (m) => (m === '' || m === label ? m : (n++, label))); " +
        "return [out, n]; })()",
    ),
  };
  Object.assign(sandbox.context, { text, source: rule.source, label: label("custom") });
  let out: string;
  let n: number;
  const stopped = () =>
    new ScrubConfigError(
      `redaction pattern ${JSON.stringify(rule.source)} ran longer than ${CUSTOM_PATTERN_BUDGET_MS} ms (the patterns' time for one ` +
        `scrub) on a ${text.length}-character text and was stopped (it backtracks on some input: rewrite it without nested repetition)`,
    );
  if (budget.leftMs <= 0) throw stopped();
  const started = cpuMs();
  try {
    // the watchdog measures wall time: generous, so a loaded machine's slowness is judged by the CPU budget alone
    [out, n] = sandbox.script.runInContext(sandbox.context, { timeout: Math.ceil(budget.leftMs * WALL_GUARD) }) as [string, number];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw error;
    throw stopped();
  } finally {
    budget.leftMs -= cpuMs() - started;
    Object.assign(sandbox.context, { text: "", source: "", label: "" });
  }
  if (n) counts.custom = (counts.custom ?? 0) + n;
  return out;
}

const KEY_HEADER = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----/g;

/** A line of a key's base64 body, and an armour header line (PEM `Proc-Type:`, PGP `Version:`). */
const KEY_LINE = /^[A-Za-z0-9+/=]+$/;
const ARMOUR_LINE = /^[A-Za-z][A-Za-z-]*: /;

/**
 * A comment, quote or diff gutter, with indentation (`# `, `// `, ` * `, `> `, `+`, `    `): what a line of a config
 * file or a key written in a comment, a Markdown quote, a code block or a diff carries before its text.
 */
const GUTTER = /^[+-]?[ \t>]*(?:(?:#+|\/\/+|\/?\*+|;+|-{1,2}|%+)(?=[ \t]|$)[ \t]*)*$/;

/** What a line holds before `at`, when that is a gutter's length at most (a long line holds no gutter: not scanned). */
function lineBefore(text: string, at: number): string | undefined {
  const from = Math.max(0, at - 64);
  const near = text.slice(from, at); // not lastIndexOf on the text: a line of a MiB would be scanned once per key
  const nl = near.lastIndexOf("\n");
  return nl === -1 && from > 0 ? undefined : near.slice(nl + 1);
}

/**
 * How far a key's body runs from `start` (at most to `limit`): its base64, armour and blank lines, each behind the
 * header's `gutter` (a key in a comment, a quote, a diff, indented YAML); and whether it is a key at all (a base64
 * line of 32 characters or more). Text that is no key's body is no secret of this kind: a header must not hide what
 * follows it from the reviewer.
 */
function keyBody(text: string, start: number, limit: number, gutter = ""): { end: number; key: boolean } {
  let end = start;
  let key = false;
  const mark = gutter.trimEnd();
  for (let pos = start; pos <= limit;) {
    const nl = text.indexOf("\n", pos);
    const lineEnd = nl === -1 || nl > limit ? limit : nl;
    let line = text.slice(pos, lineEnd);
    if (mark && pos !== start) {
      if (!line.startsWith(mark)) break;
      line = line.slice(mark.length);
    }
    line = line.trim();
    if (line !== "" && !KEY_LINE.test(line) && !ARMOUR_LINE.test(line)) break;
    if (line.length >= 32 && KEY_LINE.test(line)) key = true;
    end = lineEnd;
    pos = lineEnd + 1;
  }
  return { end, key };
}

/**
 * Whether text[from, to) holds only blank lines, each behind `mark` past the first: stops at the first line with text,
 * so a header whose footer is far away (or absent) is not scanned to it once per header.
 */
function blankBehind(text: string, from: number, to: number, mark: string): boolean {
  for (let pos = from, first = true; pos < to; first = false) {
    const nl = text.indexOf("\n", pos);
    const lineEnd = nl === -1 || nl > to ? to : nl;
    let line = text.slice(pos, lineEnd);
    if (mark && !first && line.startsWith(mark)) line = line.slice(mark.length);
    if (line.trim() !== "") return false;
    pos = lineEnd + 1;
  }
  return true;
}

/** A key's body inside a JSON string, its line breaks escaped (\n, \r\n): its base64, armour and blank lines. */
const ESCAPED_KEY_BODY =
  /(?:(?:\\r)?\\n(?:[+-]?[ >]*(?:(?:#+|\/\/+|\*+|;+|%+) +)*)?(?:[A-Za-z0-9+/=]+(?=\\|"|$)|[A-Za-z][A-Za-z-]*: [^\\"\r\n]*)?)+/y;

/** keyBody for a key written in a JSON string: its line breaks between it and what follows it are kept. */
function escapedKeyBody(text: string, start: number, limit: number): { end: number; key: boolean } {
  ESCAPED_KEY_BODY.lastIndex = start;
  const body = (ESCAPED_KEY_BODY.exec(text)?.[0] ?? "").replace(/(?:(?:\\r)?\\n)+$/, "");
  return { end: Math.min(start + body.length, limit), key: /\\n[^A-Za-z0-9+/=\\]*[A-Za-z0-9+/=]{32,}(?![A-Za-z0-9+/=])/.test(body) };
}

/**
 * PEM/PGP private keys, in one left-to-right scan (a regex with a lazy body or a lookahead to the end rescans the
 * rest of the text for every header: quadratic on a file of headers). A key keeps its header and footer and loses
 * its body; a key cut short (no footer, or other text before it) loses its body lines only, and what follows them
 * stays for the reviewer to see.
 */
function redactPrivateKeys(text: string, counts: Partial<Record<RedactionKind, number>>): string {
  let out = "";
  let from = 0;
  // each footer's next place, so that a file of headers without footers is not searched to its end once per header
  const footers = new Map<string, number>();
  KEY_HEADER.lastIndex = 0;
  for (let m = KEY_HEADER.exec(text); m; m = KEY_HEADER.exec(text)) {
    const [begin, type = "", block = ""] = m;
    const bodyStart = m.index + begin.length;
    const end = `-----END ${type}PRIVATE KEY${block}-----`;
    let at = footers.get(end) ?? bodyStart;
    if (at !== -1 && at < bodyStart) at = bodyStart;
    if (at !== -1 && !text.startsWith(end, at)) at = text.indexOf(end, at);
    footers.set(end, at);
    // a key in a JSON string (a service account's, a secret manager's) has its line breaks escaped
    const escaped = /^(?:\\r)?\\n/.test(text.slice(bodyStart, bodyStart + 4));
    // what the header's line holds before it, when it is a gutter: every line of the key carries it, and keeps it
    const before = lineBefore(text, m.index);
    const limit = at === -1 ? text.length : at;
    let gutter = "";
    let run = escaped ? escapedKeyBody(text, bodyStart, limit) : { end: bodyStart, key: false };
    // the body's lines behind all of that gutter, or behind less of it, or none (a key under a `> ` or `# > ` header)
    for (let cut = before?.length ?? 0, tried: string | undefined; !escaped && !run.key && cut >= 0; cut--) {
      const g = before?.slice(0, cut) ?? "";
      if (!GUTTER.test(g) || g.trimEnd() === tried) continue;
      tried = g.trimEnd();
      run = keyBody(text, bodyStart, limit, (gutter = g));
    }
    if (!run.key) continue; // no key's body follows the header: nothing of it is hidden
    const between = text.slice(run.end, at);
    const whole = at !== -1 && (escaped ? /^(?:(?:\\r)?\\n)*$/.test(between) : blankBehind(text, run.end, at, gutter.trimEnd()));
    counts["private-key"] = (counts["private-key"] ?? 0) + 1;
    const newline = escaped ? "\\n" : "\n";
    // behind a gutter each line keeps it: the comment, quote or diff around the key stays whole
    const footer = gutter ? `\n${lineBefore(text, at) ?? gutter}${end}` : `${newline}${end}`;
    out += text.slice(from, m.index) + `${begin}${newline}${gutter}${label("private-key")}` + (whole ? footer : "");
    from = whole ? at + end.length : run.end;
    KEY_HEADER.lastIndex = from;
  }
  return out + text.slice(from);
}

/**
 * A secret key and its separator (`key=`, `key: `, `"key": `, `key := `); secretValue finds the value's extent. An
 * opening quote with no closing one before the separator puts the assignment inside a string ('--password=a b'),
 * which that quote ends. [:=](?![=>]): `token === x` and `token => …` compare and bind, they do not assign.
 */
const SECRET_HEAD = new RegExp(
  // (?<!…) not \b: a key starts where its run of key characters starts, else long runs backtrack quadratically.
  `(["']?)(?<![A-Za-z0-9_.-])${SECRET_KEY}((?:\\\\?["'])?)[ \\t]*(:=|=(?![=>])|:(?![=>]))[ \\t]*`,
  "gi",
);
/** YAML tags (!!str, !vault) and anchors (&a) before a value: the value is what follows them. */
const YAML_PROPERTIES = /(?:[!&]\S*[ \t]+)+(?=\S)/y;
/** A YAML block scalar's indicator (|, >-, |2+, a comment after it): its value is the lines below. */
const BLOCK_INDICATOR = /[|>](?:[1-9][-+]?|[-+][1-9]?)?(?:[ \t]+#[^\r\n]*)?[ \t]*(?=\r?\n|$)/y;
/** TOML and Python multi-line strings: \-escapes do not close a """ one, and a closing """ may take two quotes more. */
const TRIPLE_QUOTED = /(""")(?:\\[^]|[^\\])*?"""(?!")|(''')[^]*?'''(?!')/y;
/** A quoted value, closed on its line: \-escapes (JSON, shells) and '' (YAML, SQL) do not close it. */
const QUOTED = /(\\?["'])(?:\\.|''|(?!\1)[^\r\n\\])*\1(?!\1)/y;
/** A key after a "," or ";": the end of this assignment and the start of the next one. */
const NEXT_KEY = `["']?[A-Za-z_$][\\w.$-]*["']?[ \\t]*[:=]`;
/** A "," or ";" inside a value; one that ends its line or starts the next assignment ends the value instead. */
const INNER_SEPARATOR = `[,;](?![ \\t]*(?:[\\r\\n]|$|${NEXT_KEY}))`;
/**
 * An unquoted value of a key that starts an assignment (assignmentContext): the rest of its line (a passphrase
 * has spaces, a password any character), up to a " #" comment, a "," or ";" that ends the line or starts the next
 * assignment (`password: x, user: bob`), or a double quote or backtick that can end the string or code span it is
 * written in (QUOTE_END); one inside a word is the value's own (`ab"cd`).
 */
const bare = (quotes: string) => new RegExp(`(?:(?![ \\t]+#)[^\\r\\n,;\`"]|${INNER_SEPARATOR}|${INNER_QUOTE(quotes)})+`, "y");
const BARE = bare('"`');
/** BARE in a code span (an odd number of backticks before the key on its line): any backtick ends it (`` `login(token=t)`. ``). */
const BARE_IN_CODE = bare('"');
/** The same inside a string or a code span (the key follows a quote, a backtick or an escaped line break): any " or ` ends it. */
const BARE_IN_STRING = new RegExp(`(?:(?![ \\t]+#)[^\\r\\n,;\`"]|${INNER_SEPARATOR})+`, "y");
/** A value whose key is written inside a sentence, a table row or a command line: its first word (see VALUE_STOP). */
const firstWord = (quotes: string) => new RegExp(`(?:[^\\s"'\`,;]|${INNER_QUOTE(quotes)}|${INNER_SEPARATOR}(?![ \\t]))+`, "y");
const FIRST_WORD = firstWord("\"'`");
const FIRST_WORD_IN_CODE = firstWord("\"'");
/** A block's first line that is a `key:` entry: a YAML mapping, whose own keys are scanned one by one. */
const MAPPING_ENTRY = /^["']?[\w.$-]+["']?[ \t]*:(?:[ \t]|\r?$)/;

const matchAt = (re: RegExp, text: string, pos: number) => {
  re.lastIndex = pos;
  return re.exec(text);
};

/**
 * Whether the key at `at` starts an assignment whose value may run on (see BARE), and where: `line` when it begins its
 * line's text (after indentation and a diff or quote gutter, as in a config file), `open` after `{`, `(`, `[`, `,` or
 * `;`, `string` inside a string or a code span (after a quote, a backtick, an escaped line break in a JSON string; a
 * flag's dashes count only there: `"--password=a b"`). Undefined for a key inside a sentence, a table row or a command
 * line (`--token=x https://…`): it takes its first word. Scans back over a few characters only: a long line of keys
 * stays linear.
 */
function assignmentContext(text: string, at: number): "line" | "open" | "string" | undefined {
  let i = at - 1;
  while (i >= 0 && text[i] === "-") i--;
  const quote = (j: number) => text[j] === '"' || text[j] === "'" || text[j] === "`";
  if (i < at - 1) return text[i] === '"' || text[i] === "'" ? "string" : undefined; // a flag
  if (quote(i)) return "string";
  if (i >= 0 && "{([,;".includes(text[i]!)) return "open";
  const escaped = (j: number) => j >= 1 && text[j - 1] === "\\" && "ntr".includes(text[j]!);
  const lineBreak = (j: number) => j < 0 || text[j] === "\n" || escaped(j);
  while (i >= 0 && (text[i] === " " || text[i] === "\t" || text[i] === ">")) i--;
  if (i >= 0 && (text[i] === "+" || text[i] === "-") && lineBreak(i - 1)) i--;
  if (i >= 5 && text.slice(i - 5, i + 1) === "export" && lineBreak(i - 6)) return "line"; // export KEY=…
  if (i < 0 || text[i] === "\n") return "line";
  // a comment or list-item gutter (`# `, `// `, ` * `, `  - `): a key commented out, in a code comment, in a list
  let j = i;
  while (j >= 0 && at - j <= 32 && !lineBreak(j)) j--;
  const before = text.slice(j + 1, at);
  if (lineBreak(j) && GUTTER.test(before)) return escaped(j) ? "string" : "line";
  return escaped(i) || text[i] === '"' || text[i] === "'" ? "string" : undefined; // the start of a string's text, indented
}

/**
 * Where a line's text starts, after its indentation and a diff (+ -) or quote (>) gutter; -1 for a blank line. Below a
 * key written behind a comment (`mark`, see commentMark) the line's text starts after the same mark: a line without it
 * is no part of the value (it starts at column 0).
 */
function contentColumn(line: string, mark = ""): number {
  if (mark && !line.startsWith(mark)) return /^[ \t]*\r?$/.test(line) ? -1 : 0;
  const column = mark.length + /^[+-]?[ \t>]*/.exec(line.slice(mark.length))![0].length;
  return /^\r?$/.test(line.slice(column)) ? -1 : column;
}

/** The comment a key at `at` is written behind (`# `, `// `, `+ # `), up to its marker: its value's lines carry it too. */
function commentMark(text: string, at: number): string {
  const before = lineBefore(text, at) ?? "";
  // a list item's "- " is no comment: the value's lines are indented below it
  return GUTTER.test(before) && !/^[+-]?[ \t>]*(?:-[ \t]+)?$/.test(before) ? before.trimEnd() : "";
}

/**
 * The lines after the one holding `from` that are indented deeper than `column` (a YAML block: its content must be
 * indented deeper than its key), blank lines among them: from the first one's text to the end of the last one. None
 * when `notMapping` and the first line is a `key:` entry (checked first: a section is not scanned to its end).
 */
function blockBelow(
  text: string,
  from: number,
  column: number,
  notMapping: boolean,
  mark = "",
): { start: number; end: number } | undefined {
  let start = -1;
  let end = -1;
  for (let nl = text.indexOf("\n", from); nl !== -1;) {
    const pos = nl + 1;
    nl = text.indexOf("\n", pos);
    const line = text.slice(pos, nl === -1 ? text.length : nl);
    const at = contentColumn(line, mark);
    if (at === -1) continue;
    if (at <= column) break;
    if (start === -1) {
      if (notMapping && MAPPING_ENTRY.test(line.slice(at))) return undefined;
      start = pos + at;
    }
    end = pos + line.trimEnd().length;
  }
  return start === -1 ? undefined : { start, end };
}

interface SecretValue {
  start: number;
  end: number;
  /** Written bare, so it may be code (a call, a member) rather than a literal. */
  bare: boolean;
}

/** A line that starts an entry of its own (`key:`, `key=`, `- key:`, `export KEY=`): a quote still open there was never closed. */
const ENTRY_LINE = /^(?:-[ \t]+|export[ \t]+)?["']?[\w.$-]+["']?[ \t]*(?::(?:[ \t]|\r?$)|=)/;

/** The line that starts at `pos`: its end (before its line break) and where its text starts (-1 when blank). */
function lineAt(text: string, pos: number, mark = ""): { end: number; at: number } {
  const nl = text.indexOf("\n", pos);
  const end = nl === -1 ? text.length : nl;
  return { end, at: contentColumn(text.slice(pos, end), mark) };
}

/**
 * A quoted value not closed on its line (YAML flow scalars, dotenv and shell strings may span lines): to its closing
 * quote (\-escapes in "…", '' in '…'), unless a blank line, a line that starts an entry at or left of the key's
 * column, or the end of the text comes first; then the quote was never closed and the value is the lines up to there.
 */
function quotedOverLines(text: string, open: number, column: number, mark = ""): { end: number; closed: boolean } {
  const quote = text[open];
  let lastText = open + 1;
  for (let i = open + 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\" && quote === '"') lastText = ++i + 1;
    else if (ch === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return { end: i, closed: true };
    } else if (ch === "\n") {
      const next = lineAt(text, i + 1, mark);
      if (next.at === -1 || (next.at <= column && ENTRY_LINE.test(text.slice(i + 1 + next.at, next.end)))) break;
    } else if (ch !== " " && ch !== "\t" && ch !== "\r") lastText = i + 1;
  }
  return { end: lastText, closed: false };
}

/** A line that is no continuation of the value above it: a comment, a list item or an entry of its own. */
const OWN_LINE = /^(?:#|\/\/|- )/;
/** An operator between or after words (`a if b`, `a +`): code, which goes on as code, not as a plain scalar. */
const OPERATOR = /(?:^|[ \t])(?:[-+*/%^&|<>=!?:.]{1,3}|and|or|if|else)(?=[ \t]|$)/;
/** A line that starts with an operator or a closing bracket (`.then(…)`, `or x`, `else y)`): code going on. */
const OPERATOR_LINE = /^(?:[-+*/%^&|<>=!?:]{1,3}(?=[ \t])|[.)\]}]|(?:and|or|if|else)\b)/;
/** A bare value's line ends in a backslash glued to it (properties, `KEY=a\`): an odd number of them after a non-space. */
const GLUED_BACKSLASH = /[^\s\\](?:\\\\)*\\$/;

/** A line of a YAML plain scalar or an INI value, which lines indented below it go on: words, no open bracket, no operator. */
function plainLine(value: string): boolean {
  let depth = 0;
  for (const ch of value) depth += "([{".includes(ch) ? 1 : ")]}".includes(ch) ? -1 : 0;
  return depth <= 0 && !OPERATOR.test(value);
}

/**
 * Where a bare value that ran to the end of its line ends (its line's value from `start` to `end`): a line after one
 * that ends in a backslash glued to the value (properties; in a shell `a \` ends the value and the next line is a
 * command) continues it, and so do lines indented deeper than its key after a plain line (YAML plain scalars, INI),
 * blank lines among them, unless they are comments, list items, entries of their own or code going on (OWN_LINE,
 * ENTRY_LINE, OPERATOR_LINE). Not after code: `token = (`, `pwd = (a if b` over `else c)` go on as code.
 */
function continuedBare(text: string, start: number, end: number, column: number, mark = ""): number {
  for (let nl = text.indexOf("\n", end); nl !== -1; nl = text.indexOf("\n", end)) {
    const backslash = GLUED_BACKSLASH.test(text.slice(Math.max(start, end - 64), end));
    if (!backslash && !plainLine(text.slice(start, end))) return end;
    let next = lineAt(text, nl + 1, mark);
    let from = nl + 1;
    if (backslash) next.at = /^[ \t]*/.exec(text.slice(from, next.end))![0].length;
    // blank lines inside an indented value: it goes on where the next line with text is deeper than the key
    else while (next.at === -1 && next.end < text.length) next = lineAt(text, (from = next.end + 1), mark);
    start = from + next.at;
    const line = text.slice(start, next.end);
    if (!backslash && (next.at <= column || OWN_LINE.test(line) || ENTRY_LINE.test(line) || OPERATOR_LINE.test(line))) return end;
    const value = matchAt(BARE, text, start);
    if (!value) return end;
    const words = value[0].trimEnd();
    // `a \`: a shell's line break between words, not the value's
    if (/[ \t]\\$/.test(words)) return start + words.slice(0, -1).trimEnd().length;
    end = start + words.length;
    if (start + value[0].length < next.end && text[start + value[0].length] !== "\r") return end; // stopped inside the line
  }
  return end;
}

interface SecretKey {
  at: number;
  yaml: boolean;
  /** The quote of a string the key is written in, which ends the value. */
  enclosing: string;
  /** Whether the key is in a code span: an odd number of backticks before it on its line. */
  inCodeSpan: () => boolean;
}

/** Whether each position asked, rising, is in a code span (see SecretKey): a line of many keys is read once, not once per key. */
function codeSpans(text: string): (at: number) => boolean {
  let pos = 0;
  let odd = false;
  return (at) => {
    for (; pos < at; pos++) {
      const ch = text.charCodeAt(pos);
      if (ch === 10) odd = false;
      else if (ch === 96) odd = !odd;
    }
    return odd;
  };
}

/**
 * The extent of the value at `pos`: its whole text, not its first word. A quoted value runs to its closing quote (on
 * later lines too, see quotedOverLines), a YAML block (after `|`/`>`, or below a `key:` that ends its line) over the
 * lines indented deeper than its key, and a bare value to the end of its line (see BARE) and its continuation lines
 * (continuedBare). Undefined when there is no value.
 */
function secretValue(text: string, pos: number, key: SecretKey): SecretValue | undefined {
  if (key.yaml) pos = matchAt(YAML_PROPERTIES, text, pos) ? YAML_PROPERTIES.lastIndex : pos;
  if (key.enclosing && text.startsWith(key.enclosing, pos)) return undefined; // "password=" + x: the string ends
  const lineEnds = pos === text.length || text[pos] === "\n" || text[pos] === "\r";
  // the key's column, found only where needed: once per line, not once per key of a long line
  const column = () => key.at - (text.lastIndexOf("\n", key.at - 1) + 1);
  // a `key:` that ends its line starts it: `if token:` over an indented line is code
  if (key.yaml && ((lineEnds && assignmentContext(text, key.at) === "line") || matchAt(BLOCK_INDICATOR, text, pos))) {
    // a `key:` over a mapping is a section (credentials:\n  user: …): its entries are assignments of their own
    const block = blockBelow(text, pos, column(), lineEnds, commentMark(text, key.at));
    return block && { ...block, bare: false };
  }
  const quoted = matchAt(TRIPLE_QUOTED, text, pos) ?? matchAt(QUOTED, text, pos);
  if (quoted) {
    const quote = (quoted[1] ?? quoted[2])!.length;
    return { start: pos + quote, end: pos + quoted[0].length - quote, bare: false };
  }
  const context = key.enclosing ? "string" : assignmentContext(text, key.at);
  if ((context === "line" || context === "open") && (text[pos] === '"' || text[pos] === "'")) {
    // one line holds at most one quote of each kind that its line does not close: the column is found rarely
    const over = quotedOverLines(text, pos, column(), commentMark(text, key.at));
    if (over.end > pos + 1) return { start: pos + 1, end: over.end, bare: false };
  }
  const opening = /^\\?["']/.exec(text.slice(pos, pos + 2))?.[0] ?? ""; // a quote never closed
  // in a code span (`login(token=t)`.) a backtick ends the value, whatever follows it
  const code = context !== "string" && context !== "line" && key.inCodeSpan();
  const word = context ? (code ? BARE_IN_CODE : BARE) : code ? FIRST_WORD_IN_CODE : FIRST_WORD;
  const rest = context === "string" ? BARE_IN_STRING : word;
  const value = matchAt(rest, text, pos + opening.length);
  if (!value) return undefined;
  let stop = pos + value[0].length;
  // a value quotes words of its own (`password: my "quoted" pass`): a quote after a space that its line closes opens
  // no string around the key where the key starts the line, nor does an escaped one in a string; the value goes on
  const inner = context === "line" && !opening ? /^[ \t]["`]/ : context === "string" && !opening ? /^[ \t]\\"/ : undefined;
  // after a word only: after `{ ` or `+ ` the quote opens a string of the code or structure the value is written in
  // (read from the text backwards, not from the value so far: a line of many quoted words stays linear)
  const afterWord = () => {
    let k = stop;
    if (text[k - 1] === "\\") k--;
    while (k > pos && /\s/.test(text[k - 1]!)) k--;
    return k > pos && /[A-Za-z0-9]/.test(text[k - 1]!);
  };
  // where the next quote would open: in a string, the value's run ends on the backslash of `\"` (every time)
  const next = () => (context === "string" && text[stop - 1] === "\\" ? stop - 1 : stop);
  for (let at = next(); inner?.test(text.slice(at - 1, at + 2)) && afterWord(); at = next()) {
    const quote = text[at] === "\\" ? '\\"' : text[at]!;
    const close = closingQuote(text, at + quote.length, quote);
    if (close === -1) break;
    stop = close + quote.length + (matchAt(rest, text, close + quote.length)?.[0].length ?? 0);
  }
  let raw = text.slice(pos, stop);
  const start = pos + opening.length;
  const atLineEnd = start + raw.length === text.length || "\r\n".includes(text[start + raw.length]!);
  if (key.enclosing === "'" && raw.includes("'")) raw = raw.slice(0, raw.indexOf("'"));
  // a backslash before the closing quote escapes that quote, not the value's; at a line's end it is the value's
  if (!atLineEnd) raw = raw.replace(/\\$/, "");
  raw = raw.trimEnd();
  // `KEY=a \`: a shell's line break after the value, which ends there (the next line is the command)
  const shellBreak = atLineEnd && /[ \t]\\$/.test(raw);
  if (shellBreak) raw = raw.slice(0, -1).trimEnd();
  if (!raw.trim()) return undefined;
  let end = start + raw.length;
  // a harmless first line (a lookup, a call) is code: what follows it is the next statement, not the value; a secret's
  // label is a value a pass before this one took whole (`token = (` over code stays `token = [REDACTED:secret]`)
  if (context === "line" && atLineEnd && !shellBreak && !harmless(raw, !opening) && !raw.includes(label("secret")))
    end = continuedBare(text, start, end, column(), commentMark(text, key.at));
  return { start, end, bare: !opening };
}

/**
 * Where `quote` next closes on its line from `from`, or -1: a line break comes first, or (for an escaped quote, in a
 * JSON string) a bare `"` that ends the string. Scans only to there: a long line of keys stays linear.
 */
function closingQuote(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    if (text.startsWith(quote, i)) return i;
    if (text[i] === "\n" || (quote.length > 1 && text[i] === '"')) return -1;
    if (quote.length > 1 && text[i] === "\\") i++;
  }
  return -1;
}

/** Each run of text between labels already in the value becomes one label, so the count is the labels added. */
function redactRuns(value: string, counts: Partial<Record<RedactionKind, number>>): string {
  const run = (s: string) => {
    const body = s.trim();
    if (!body) return s;
    counts.secret = (counts.secret ?? 0) + 1;
    const lead = s.length - s.trimStart().length;
    return s.slice(0, lead) + label("secret") + s.slice(lead + body.length);
  };
  let out = "";
  let last = 0;
  for (const m of value.matchAll(LABEL)) {
    out += run(value.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + run(value.slice(last));
}

/**
 * A type union (string | undefined) is as harmless as its members; a trailing comment says nothing of the value. `next`
 * is the text's character after the value: a value that stopped at a quote inside a subscript (`form["password"]`
 * read as `form[`) is code, where one whose "[" is left open at the line's end (`hunter2[`) is not.
 */
function harmless(value: string, code: boolean, next = ""): boolean {
  const plain = value.replace(/[ \t]+(?:#|\/\/).*$/, "").trim();
  const closed = /^["'`]$/.test(next) && plain.endsWith("[") ? `${plain}0]` : plain;
  return plain.split(/[ \t]*\|[ \t]*/).every((part) => HARMLESS_VALUE.test(part)) || (code && CODE_VALUE.test(closed));
}

/** A bare value that names the variable its key names (`api_key=api_key`, `user.token = token`, `token: token)`). */
function sameName(head: string, value: string): boolean {
  const key = /([A-Za-z0-9_-]+)["'\\]*[ \t]*(?::=|[:=])[ \t]*$/.exec(head)?.[1];
  return key !== undefined && value.replace(/[ \t]*[)\]},;]*$/, "") === key;
}

/** The value of each `key = value` whose key names a secret, its whole extent (secretValue). */
function redactSecretAssignments(text: string, counts: Partial<Record<RedactionKind, number>>): string {
  const head = new RegExp(SECRET_HEAD.source, SECRET_HEAD.flags);
  const inCodeSpan = codeSpans(text);
  let out = "";
  let from = 0;
  for (let m = head.exec(text); m; m = head.exec(text)) {
    const [whole, open = "", close = "", separator] = m;
    const at = m.index;
    const value = secretValue(text, at + whole.length, {
      at,
      yaml: separator === ":",
      enclosing: open && !close ? open : "",
      inCodeSpan: () => inCodeSpan(at),
    });
    if (!value) continue;
    head.lastIndex = value.end;
    const raw = text.slice(value.start, value.end);
    // `this.token = token`: a member assignment whose bare right side is an expression; `api_key=api_key`: a variable
    if (harmless(raw, value.bare, text[value.end]) || (value.bare && (MEMBER_KEY.test(whole) || sameName(whole, raw)))) continue;
    out += text.slice(from, value.start) + redactRuns(raw, counts);
    from = value.end;
  }
  return out + text.slice(from);
}

function onePass(text: string, custom: readonly CustomRule[], counts: Partial<Record<RedactionKind, number>>, budget: Budget): string {
  let out = redactPrivateKeys(text, counts);
  for (const rule of RULES) {
    if (typeof rule === "function") {
      out = rule(out, counts);
      continue;
    }
    const re = new RegExp(rule.re.source, rule.re.flags); // fresh lastIndex for every use
    out = out.replace(re, (...args: unknown[]) => {
      const replaced = (rule.replace as (...a: unknown[]) => string)(...args);
      if (replaced !== args[0]) counts[rule.kind] = (counts[rule.kind] ?? 0) + 1;
      return replaced;
    });
  }
  for (const rule of custom) out = redactCustom(out, rule, counts, budget);
  return out;
}

const MAX_PASSES = 4;

/** Scrub text and report what was redacted. Runs to a fixpoint, so scrub(scrub(x)) === scrub(x). */
export function scrubWithReport(text: string, options: ScrubOptions = {}, budget = budgetFor(text.length)): ScrubReport {
  const custom = compileCustom(options.customPatterns);
  const redactions: Partial<Record<RedactionKind, number>> = {};
  let current = text;
  for (const secret of options.literals ?? []) {
    if (secret.length < MIN_LITERAL || !current.includes(secret)) continue;
    const parts = current.split(secret);
    redactions.token = (redactions.token ?? 0) + parts.length - 1;
    current = parts.join("[REDACTED:token]");
  }
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = onePass(current, custom, pass === 0 ? redactions : {}, budget);
    if (next === current) return { text: current, redactions };
    current = next;
  }
  throw new ScrubConfigError("redaction patterns do not settle (a custom pattern keeps rewriting its own output)");
}

export function scrub(text: string, options: ScrubOptions = {}): string {
  return scrubWithReport(text, options).text;
}

/** Whitespace, control and format characters (bidi controls among them) and line separators: folded to one space. */
const CONTROL_RUN = /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu;
/** Around what a line keeps, this much more is scrubbed: far enough that a secret the window cuts is not in the line. */
const SCRUB_MARGIN = 64 * 1024;

/**
 * Outside text (a reviewer's stderr, an API's error body, a name an answer gives) for one line of at most max
 * characters, keeping its start or its end: scrubbed, folded to one line, then cut. Scrubbed before the cut (a cut
 * through a secret can leave a piece no rule recognises), over a window around what is kept (a 16 MiB stdout is
 * not scrubbed whole to keep 500 characters of it).
 */
export function scrubLine(text: string, max: number, keep: "start" | "end" = "start", options: ScrubOptions = {}): string {
  const window =
    text.length <= max + SCRUB_MARGIN ? text : keep === "start" ? text.slice(0, max + SCRUB_MARGIN) : text.slice(-(max + SCRUB_MARGIN));
  const line = scrub(window, options).replace(CONTROL_RUN, " ").trim();
  if (line.length <= max) return line;
  return keep === "start" ? `${line.slice(0, max - 1).trimEnd()}…` : `…${line.slice(1 - max).trimStart()}`;
}

// Free text in a review result (summary, findings, and the names it gives) goes through the scrubber before it is
// written; the bindings stay byte-exact, at the top level only: a finding's own "verdict" or "packet_id" is free text.
// bindings, compared byte for byte: a redaction pattern must never rewrite one (a redacted delivery key refused the paid answer)
const EXACT_FIELDS = new Set(["schema_version", "packet_id", "artifact_sha256_reviewed", "verdict", "delivery_key"]);

/**
 * The result with its free text and its keys scrubbed. A key is kept as it is only when it is one of the schema's field
 * names (`fields`: a project's pattern must not rename "summary") or when nothing in it is redacted; a key shaped like a
 * field name can still be a token (`shpat_…`, a project's `acme_…`).
 */
export function scrubResult(result: ReviewResultStrict, options: ScrubOptions, fields: ReadonlySet<string>): ReviewResultStrict {
  // one budget for the whole answer: thousands of short strings must not each take the patterns' full time
  const budget = budgetFor(JSON.stringify(result).length);
  const clean = (text: string) => scrubWithReport(text, options, budget).text;
  // keys too: a finding or a result may carry any key, and a secret there would reach result-<n>.json as it is
  const entries = (v: object, value: (k: string, x: unknown) => unknown) => {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const name = EXACT_FIELDS.has(k) || fields.has(k) ? k : clean(k);
      let key = name;
      for (let n = 2; Object.hasOwn(out, key); n++) key = `${name} (${n})`; // two keys redacted alike both stay
      // defined, not assigned: a "__proto__" key stays a key
      Object.defineProperty(out, key, { value: value(k, x), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return clean(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return entries(v, (_, x) => walk(x));
    return v;
  };
  return entries(result, (k, v) => (EXACT_FIELDS.has(k) ? v : walk(v))) as ReviewResultStrict;
}
