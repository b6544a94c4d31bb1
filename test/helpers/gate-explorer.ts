// A bounded exhaustive explorer of one gate's interleavings: the real broker (stepGate) and verifier (verifyGate) on a
// temp dir, with a reviewer, the author, a person, a stray writer and a deleter acting on its files. Every state (the
// gate's files and the artifact's bytes, times left out) is reached by breadth-first search up to a depth, each seen
// once, and checked against an oracle that re-derives a pass from the files alone: what `status` and `check` report as
// passed must be proven by them (SPEC §5 §11 §15), and no gate waits on a worker that does nothing.
// `split` runs two brokers and two verifiers whose steps are cut at each write: a worker reads (its real step runs on
// the state, and the files it would write or move aside are held as its pending writes), then lands them one at a time,
// as link() lands them (first writer wins), while the others act in between. `quorum` asks a round of two members
// (`need3`: of three, a third family, 2 or 3 of them needed; `spare`: a fourth provider for a degraded restart).
// `otherRun` adds a second run of the gate, older, newer or as new, and `check` judges the runs it picks.
// `manual` adds the manual worker and a person's response-<n>.md answers; `crash` lets a split worker die with writes
// pending (a link done, the next not). `maps` lets a person delete, edit or put back a family-maps file and edit the
// family aliases (SPEC §7).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContext } from "../../src/bus/context.js";
import { Layout } from "../../src/bus/layout.js";
import { forgetParsedUnder } from "../../src/bus/parse-cache.js";
import { checkGates } from "../../src/commands/check.js";
import { requestReview } from "../../src/commands/review.js";
import { statusRow } from "../../src/commands/status.js";
import { viewGate } from "../../src/commands/gate-view.js";
import { classifyModel } from "../../src/core/family.js";
import { parseReviewResult } from "../../src/core/result-wire.js";
import { scrub, scrubOptions } from "../../src/core/scrub.js";
import type { Difficulty, StopPolicy } from "../../src/spec/schemas.js";
import { realFs } from "../../src/bus/fsops.js";
import { stepGate } from "../../src/workers/broker.js";
import { verifyGate } from "../../src/workers/verifier.js";
import { manualGate } from "../../src/workers/manual.js";
import { tempRoot } from "./tmp.js";
import { forgedPassingVerdict, forgedSatisfiedOutcome } from "./forged.js";

const RUN = "mc";
const GATE = "G-spec";
const SECRET = "SECRET-[0-9]+";

/** One write a worker has planned and not landed yet: a delivery (link, first writer wins) or a move to rejected/. */
type Op = { put: string; bytes: Buffer; group: string } | { move: string; bytes: Buffer; adds: Array<[string, Buffer]> };
interface State {
  files: Map<string, Buffer>;
  art: string;
  /** which settings.json is on disk ("" the first; else a key of EDITS) */
  cfg: string;
  /** split: each worker's writes planned at its read, in order, not landed yet */
  pending: Map<string, Op[]>;
}
interface Move {
  name: string;
  /** A move that only changes files: applied to a copy of the state. */
  pure?: (s: State) => void;
  /** A move a worker makes: it reads the materialised state (and, unless split, writes at once). */
  run?: (s: State) => Promise<State>;
}
export interface ExploreOptions {
  depth: number;
  /** Moves applied first, by name, from the fresh request. */
  seed?: string[];
  difficulty?: Difficulty;
  stop?: StopPolicy;
  /** A redaction pattern, and an artifact version that differs from the first only inside it. */
  redact?: boolean;
  /** Two brokers and two verifiers, each step cut at its writes (above). */
  split?: boolean;
  /** A quorum round of two members (gpt, gem: command reviewers the bus dispatches), answered with their keys. */
  quorum?: boolean;
  /** quorum: three members (a third family, ds: deepseek) of which this many must pass (default 2 of 2). */
  need3?: 2 | 3;
  /** need3: a fourth provider (mis: mistral) the broker may select in a member's place (a `degraded` restart). */
  spare?: boolean;
  /** Stray verdicts, seals, escalations and outcomes (default true). */
  strays?: boolean;
  /** The manual worker, and a person's response-<n>.md answers of every kind (not with quorum). */
  manual?: boolean;
  /** split: a worker may die with writes pending (those never land). */
  crash?: boolean;
  /** A second run of the same gate and artifact (not with quorum or split), requested before the first (`older`), after
   * it (`newer`) or at the same time (`same`: both are newest): its broker and verifier, a passing or blocking answer,
   * a stray outcome, its outcome's removal. `check` judges every run of the gate (runsToJudge), and passes only on what
   * each judged run's files prove. */
  otherRun?: "older" | "newer" | "same";
  /** A person edits settings.json mid-gate: the round cap to 1, the restart cap to 1, stall detection off (and back). */
  settingsEdits?: boolean;
  /** A person deletes, edits or puts back a family-maps file, and edits settings.json's family_aliases (and back). */
  maps?: boolean;
}
export interface ExploreReport {
  states: number;
  transitions: number;
  passes: number;
  violations: Array<{ trace: string[]; bad: string[] }>;
}

const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");
const json = (b: Buffer | undefined): Record<string, unknown> | null => {
  try {
    return b ? (JSON.parse(b.toString("utf8")) as Record<string, unknown>) : null;
  } catch {
    return null; // not JSON: the oracle treats it as absent
  }
};
const field = (text: string, name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(text)?.[1]?.replace(/^"|"$/g, "") ?? null;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;

export async function explore(o: ExploreOptions): Promise<ExploreReport> {
  const stop = o.stop ?? "verdict";
  const OF = o.need3 ? 3 : 2;
  const MEMBERS = [...(o.need3 ? ["ds"] : []), "gem", "gpt", ...(o.spare ? ["mis"] : [])];
  const MODEL: Record<string, string> = { ds: "deepseek-v3", gem: "gemini-2.5-pro", gpt: "gpt-5", mis: "mistral-large" };
  const NEED = o.need3 ?? 2;
  const texts = [
    "# Spec\n\nversion A key SECRET-111\n",
    "# Spec\n\nversion B edited\n",
    ...(o.redact ? ["# Spec\n\nversion A key SECRET-222\n"] : []),
  ];
  const root = tempRoot("guild-bus-explore-");
  const old = Date.now() / 1000 - 3600; // past every grace and settle time
  mkdirSync(path.join(root, "docs"), { recursive: true });
  mkdirSync(path.join(root, ".guild"), { recursive: true });
  const command = (model: string) => ({ adapter: "command", model, argv: [process.execPath, "-e", "0"] });
  const settings = {
    foreign_grace_ms: 0,
    ...(o.redact ? { secrets_policy: { redaction_patterns: [SECRET] } } : {}),
    ...(o.quorum
      ? {
          providers: {
            gpt: command("gpt-5"),
            gem: command("gemini-2.5-pro"),
            ...(o.need3 ? { ds: command("deepseek-v3") } : {}),
            ...(o.spare ? { mis: command("mistral-large") } : {}),
          },
        }
      : {}),
  };
  const EDITS: Record<string, Record<string, unknown>> = {
    cap1: { max_rounds: 1 },
    restart1: { restart_cap: 1 },
    nostall: { stall_detection: false },
    aliases: { family_aliases: { "codename-falcon-8": "openai" } },
  };
  const settingsPath = path.join(root, ".guild", "settings.json");
  const writeSettings = (cfg: string) => {
    writeFileSync(settingsPath, JSON.stringify({ ...settings, ...(cfg ? EDITS[cfg] : {}) }));
    const t = old - 2000 - Object.keys(EDITS).indexOf(cfg); // another version of the file for other settings
    utimesSync(settingsPath, t, t);
  };
  let cfgOnDisk = "";
  writeFileSync(settingsPath, JSON.stringify(settings));
  const artPath = path.join(root, "docs", "spec.md");
  writeFileSync(artPath, texts[0]!);
  const layout = new Layout(root);
  const ctx = () => loadContext(layout);
  const asked = {
    artifact: "docs/spec.md",
    gate: GATE,
    author: "claude",
    runId: RUN,
    stop,
    ...(o.quorum ? { quorum: { need: NEED, of: OF } } : { reviewer: "manual" }),
  };
  const req = await requestReview(layout, { ...asked, ...(o.difficulty ? { difficulty: o.difficulty } : {}) });
  if (!req.ok) throw new Error(`request refused: ${JSON.stringify(req)}`);
  const dir = layout.gateDir(RUN, GATE);
  // the other run's files are held in the state under this prefix
  const OTHER = o.otherRun === "older" ? "mc0" : "mc2";
  const OTHER_AT = "~/";
  const otherDir = layout.gateDir(OTHER, GATE);
  if (o.otherRun) {
    const again = await requestReview(layout, { ...asked, runId: OTHER });
    if (!again.ok) throw new Error(`request refused: ${JSON.stringify(again)}`);
    const reqPath = path.join(otherDir, "request.json");
    const r = JSON.parse(readFileSync(reqPath, "utf8")) as Record<string, unknown>;
    const first = Date.parse(String(json(readFileSync(path.join(dir, "request.json")))?.requested_at));
    const at = new Date(first + ({ older: -60_000, same: 0, newer: 60_000 } as const)[o.otherRun]).toISOString();
    writeFileSync(reqPath, JSON.stringify({ ...r, requested_at: at }));
  }
  /** The other run's files, as a state of their own. */
  const otherOf = (st: State): State => ({
    ...st,
    files: new Map([...st.files].filter(([n]) => n.startsWith(OTHER_AT)).map(([n, b]) => [n.slice(OTHER_AT.length), b])),
  });
  const scrubbedSha = (art: string) => sha(scrub(art, scrubOptions(ctx().settings)));

  const walk = (d: string, rel = ""): Array<[string, Buffer]> =>
    readdirSync(d, { withFileTypes: true }).flatMap((e): Array<[string, Buffer]> => {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) return walk(path.join(d, e.name), r);
      return r === "trail.md" ? [] : [[r, readFileSync(path.join(d, e.name))]]; // the trail is what the broker says, not state
    });
  const capture = (pending = new Map<string, Op[]>()): State => ({
    files: new Map(
      [...walk(dir), ...(o.otherRun ? walk(otherDir).map(([n, b]): [string, Buffer] => [OTHER_AT + n, b]) : [])].sort(([a], [b]) =>
        a < b ? -1 : 1,
      ),
    ),
    art: readFileSync(artPath, "utf8"),
    cfg: cfgOnDisk,
    pending,
  });
  const restore = (st: State) => {
    const dirs = new Set([dir, path.dirname(artPath), ...(o.otherRun ? [otherDir] : [])]);
    for (const d of [dir, ...(o.otherRun ? [otherDir] : [])]) {
      rmSync(d, { recursive: true, force: true });
      mkdirSync(d, { recursive: true });
      forgetParsedUnder(d);
    }
    for (const [r, b] of st.files) {
      const f = r.startsWith(OTHER_AT) ? path.join(otherDir, r.slice(OTHER_AT.length)) : path.join(dir, r);
      mkdirSync(path.dirname(f), { recursive: true });
      dirs.add(path.dirname(f));
      writeFileSync(f, b);
      // another mtime for other bytes: a file's version (inode, size, times) never repeats for other content
      const t = old - (parseInt(sha(b).slice(0, 6), 16) % 1000);
      utimesSync(f, t, t);
    }
    writeFileSync(artPath, st.art);
    utimesSync(artPath, old, old);
    if (st.cfg !== cfgOnDisk) writeSettings((cfgOnDisk = st.cfg));
    for (const d of dirs) utimesSync(d, old, old);
  };
  // times, and the packet shas that vary only with the packet's issued_at, are left out
  const norm = (n: string, b: Buffer) =>
    `${n.replace(/^(~\/)?rejected\/.*?([a-z]+-\d+\.[a-z]+).*$/, "$1rejected/$2")}=${sha(
      b
        .toString("utf8")
        .replace(ISO, "T")
        .replace(/"packet_sha256":\s*"[0-9a-f]{64}"/g, "P"),
    )}`;
  const key = (st: State) =>
    sha(
      [...st.files]
        .map(([n, b]) => norm(n, b))
        .sort()
        .join("|") +
        `#${st.art}#${st.cfg}` +
        [...st.pending]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(
            ([w, ops]) =>
              `#${w}:` + ops.map((op) => ("put" in op ? `put ${norm(op.put, op.bytes)}` : `mv ${norm(op.move, op.bytes)}`)).join(","),
          )
          .join(""),
    );
  /** The packet files of round r: the reviewer's, or each quorum member's. */
  const packetsOf = (st: State, r: number): Array<[string | null, string]> =>
    o.quorum
      ? MEMBERS.filter((m) => st.files.has(`packet-${r}.${m}.md`)).map((m) => [m, `packet-${r}.${m}.md`])
      : st.files.has(`packet-${r}.md`)
        ? [[null, `packet-${r}.md`]]
        : [];
  const openRound = (st: State) => {
    let r = 0;
    while (packetsOf(st, r + 1).length) r++;
    return r;
  };
  const resultText = (
    packet: string,
    r: { sha?: string; verdict?: string; model?: string; n?: number; rulings?: unknown; low?: boolean; key?: string },
  ) =>
    JSON.stringify({
      schema_version: "review_result.v1",
      packet_id: field(packet, "packet_id"),
      artifact_sha256_reviewed: r.sha ?? field(packet, "artifact_sha256"),
      verdict: r.verdict ?? "satisfied",
      blocking_findings: r.verdict === "issues" ? [{ severity: "blocking", title: "a hole" }] : [],
      reviewer_model: r.model ?? "gpt-5",
      ...(stop === "score" ? { score: r.verdict === "issues" || r.low ? 3 : 8, readiness: r.low ? "not ready" : "ready" } : {}),
      ...(r.rulings ? { rulings: r.rulings } : {}),
      ...(r.n ? { n: r.n } : {}),
      ...(r.key ? { delivery_key: r.key } : {}),
    }) + "\n";

  const isBroker = (w: string) => w.startsWith("broker");
  const runWorker = async (w: string) => {
    if (isBroker(w)) await stepGate(ctx(), RUN, GATE);
    else if (w.startsWith("manual"))
      await manualGate(
        ctx(),
        RUN,
        GATE,
        () => {},
        () => {},
      );
    else await verifyGate(ctx(), RUN, GATE, () => {});
  };
  /** split: a worker's step run on the state, what it wrote and moved aside held as its pending writes, in order. */
  const read = async (st: State, w: string): Promise<State> => {
    restore(st);
    const linked: string[] = [];
    const link = realFs.link;
    realFs.link = async (a, b) => {
      await link(a, b);
      linked.push(b);
    };
    try {
      await runWorker(w);
    } finally {
      realFs.link = link;
    }
    const after = capture().files;
    const ops: Op[] = [];
    const fresh = [...after].filter(([n, b]) => n.startsWith("rejected/") && !st.files.get(n)?.equals(b));
    for (const [n, b] of st.files)
      if (!n.startsWith("rejected/") && !after.get(n)?.equals(b))
        ops.push({ move: n, bytes: b, adds: fresh.filter(([a]) => a.startsWith(`rejected/${n}.`)) });
    for (const f of linked) {
      const n = path.relative(dir, f).split(path.sep).join("/");
      const b = after.get(n);
      // a seal and its verdict go together (deliverInOrder); a broker's writes are one plan
      if (b && !n.startsWith("rejected/"))
        ops.push({ put: n, bytes: b, group: isBroker(w) ? "" : n.replace(/^(\.verified\/result|verdict)-/, "") });
    }
    const pending = new Map(st.pending);
    if (ops.length) pending.set(w, ops);
    return { files: st.files, art: st.art, cfg: st.cfg, pending };
  };
  /** split: the worker's next pending write lands as link() lands it: only on a free name (first writer wins). */
  const land = (s: State, w: string) => {
    const [op, ...rest] = s.pending.get(w)! as [Op, ...Op[]];
    let left = rest;
    if ("move" in op) {
      // rejectFile moves only the version it judged
      if (s.files.get(op.move)?.equals(op.bytes)) {
        s.files.delete(op.move);
        for (const [n, b] of op.adds) s.files.set(n, b);
      }
    } else {
      const there = s.files.get(op.put);
      if (!there) s.files.set(op.put, op.bytes);
      // the broker plans again from the files after any delivery that is not its own; a verifier's conflict on a seal
      // or verdict ends that round's pair, and it goes on with the others
      else if (isBroker(w)) left = [];
      else if (!there.equals(op.bytes)) left = rest.filter((x) => !("put" in x) || x.group !== op.group);
    }
    if (left.length) s.pending.set(w, left);
    else s.pending.delete(w);
  };

  /** A worker's whole step at once (split: only as a seed move, to reach a start quickly). */
  const whole: Move[] = ["broker", "verifier", ...(o.manual ? ["manual"] : [])].map((w) => ({
    name: w,
    run: async (s: State) => {
      restore(s);
      await runWorker(w);
      return capture(s.pending);
    },
  }));
  /** Every family-maps file the gate held, by name: a person may put it back. */
  const mapsSeen = new Map<string, Buffer>();
  const moves = (st: State): Move[] => {
    const R = openRound(st);
    const put = (name: string, text: string) => (s: State) => void s.files.set(name, Buffer.from(text));
    const drop = (name: string) => (s: State) => void s.files.delete(name);
    const strays = o.strays ?? true;
    const workers: Move[] = o.split
      ? ["broker#1", "broker#2", "verifier#1", "verifier#2", ...(o.manual ? ["manual#1"] : [])].flatMap((w): Move[] =>
          st.pending.has(w)
            ? [
                { name: `${w} writes`, pure: (s: State) => land(s, w) },
                ...(o.crash ? [{ name: `${w} dies`, pure: (s: State) => void s.pending.delete(w) }] : []),
              ]
            : [{ name: `${w} reads`, run: (s: State) => read(s, w) }],
        )
      : whole;
    const out: Move[] = [
      ...workers,
      ...texts.flatMap((t, i) => (t === st.art ? [] : [{ name: `edit->${"ABC"[i]}`, pure: (s: State) => void (s.art = t) }])),
      ...(o.settingsEdits ? ["", "cap1", "restart1", "nostall"] : o.maps ? ["", "aliases"] : [])
        .filter((c) => c !== st.cfg)
        .map((c) => ({ name: `settings->${c || "first"}`, pure: (s: State) => void (s.cfg = c) })),
    ];
    if (st.files.has("outcome.json")) out.push({ name: "rm outcome", pure: drop("outcome.json") });
    if (o.maps) {
      for (const [n, b] of st.files) {
        if (!n.startsWith("family-maps-")) continue;
        mapsSeen.set(n, b);
        out.push({ name: `rm ${n.slice(0, 16)}`, pure: drop(n) });
        if (b.toString() !== "{}") out.push({ name: `edit ${n.slice(0, 16)}`, pure: put(n, "{}") });
      }
      for (const [n, b] of mapsSeen)
        if (!st.files.get(n)?.equals(b)) out.push({ name: `back ${n.slice(0, 16)}`, pure: (s: State) => void s.files.set(n, b) });
    }
    if (o.otherRun) out.push(...otherRunMoves(st));
    if (R === 0) return out;
    if (o.quorum) out.push(...memberMoves(st, R));
    else out.push(...reviewerMoves(st, R, strays));
    if (!st.files.has(`resubmit-${R}.json`)) {
      const resubmit = { schema_version: "guild_bus.resubmit.v1", run_id: RUN, gate: GATE, after_round: R, at: new Date().toISOString() };
      out.push({ name: `resubmit${R}`, pure: put(`resubmit-${R}.json`, JSON.stringify(resubmit)) });
    }
    const esc = st.files.get(`escalation-${R}.json`);
    if (!esc) {
      const stray = {
        schema_version: "guild_bus.escalation.v1",
        run_id: RUN,
        gate: GATE,
        round: R,
        reason: "no_verdict",
        detail: "stray",
        options: ["retry", "force-pass", "rework"],
        at: new Date().toISOString(),
      };
      if (strays) out.push({ name: `stray escalation${R}`, pure: put(`escalation-${R}.json`, JSON.stringify(stray)) });
    } else if (!st.files.has(`decision-${R}.json`)) {
      const options = (json(esc)?.options ?? []) as string[];
      for (const choice of options) {
        const d = { schema_version: "guild_bus.decision.v1", run_id: RUN, gate: GATE, round: R, choice, escalation_sha256: sha(esc) };
        out.push({ name: `decide${R}:${choice}`, pure: put(`decision-${R}.json`, JSON.stringify({ ...d, at: new Date().toISOString() })) });
      }
    }
    if (strays && !st.files.has("outcome.json")) {
      const forged = forgedSatisfiedOutcome({
        run: RUN,
        gate: GATE,
        round: R,
        artifactSha: scrubbedSha(st.art),
        artifactRawSha: sha(st.art),
      });
      out.push({ name: "stray outcome", pure: put("outcome.json", JSON.stringify(forged)) });
    }
    return out;
  };

  /** The other run: its broker and verifier, its reviewer's passing or blocking answer, its outcome's removal. */
  const otherRunMoves = (st: State): Move[] => {
    const v = otherOf(st);
    const at = (n: string) => OTHER_AT + n;
    const out: Move[] = (["broker", "verifier"] as const).map((w) => ({
      name: `${w}~`,
      run: async (s: State) => {
        restore(s);
        if (w === "broker") await stepGate(ctx(), OTHER, GATE);
        else await verifyGate(ctx(), OTHER, GATE, () => {});
        return capture(s.pending);
      },
    }));
    if (v.files.has("outcome.json")) out.push({ name: "rm outcome~", pure: (s: State) => void s.files.delete(at("outcome.json")) });
    const R = openRound(v);
    if ((o.strays ?? true) && !v.files.has("outcome.json") && R > 0) {
      const forged = forgedSatisfiedOutcome({
        run: OTHER,
        gate: GATE,
        round: R,
        artifactSha: scrubbedSha(st.art),
        artifactRawSha: sha(st.art),
      });
      out.push({ name: "stray outcome~", pure: (s: State) => void s.files.set(at("outcome.json"), Buffer.from(JSON.stringify(forged))) });
    }
    const packet = v.files.get(`packet-${R}.md`)?.toString("utf8");
    if (packet && !v.files.has(`result-${R}.json`))
      out.push(
        { name: `result${R}~:ok`, pure: (s: State) => void s.files.set(at(`result-${R}.json`), Buffer.from(resultText(packet, {}))) },
        {
          name: `result${R}~:issues`,
          pure: (s: State) => void s.files.set(at(`result-${R}.json`), Buffer.from(resultText(packet, { verdict: "issues" }))),
        },
      );
    return out;
  };

  /** The manual reviewer's round R: answers of every kind, a rebuttal, stray verdicts and seals, deletions. */
  const reviewerMoves = (st: State, R: number, strays: boolean): Move[] => {
    const put = (name: string, text: string) => (s: State) => void s.files.set(name, Buffer.from(text));
    const drop = (name: string) => (s: State) => void s.files.delete(name);
    const out: Move[] = [];
    const packetBytes = st.files.get(`packet-${R}.md`)!;
    const packet = packetBytes.toString("utf8");
    const res = `result-${R}.json`;
    const rb = st.files.get(res);
    if (!rb) {
      const other = field(packet, "artifact_sha256") === scrubbedSha(texts[0]!) ? scrubbedSha(texts[1]!) : scrubbedSha(texts[0]!);
      out.push(
        { name: `result${R}:ok`, pure: put(res, resultText(packet, {})) },
        { name: `result${R}:issues`, pure: put(res, resultText(packet, { verdict: "issues" })) },
        { name: `result${R}:otherbytes`, pure: put(res, resultText(packet, { sha: other })) },
        { name: `result${R}:samefamily`, pure: put(res, resultText(packet, { model: "claude-opus-4" })) },
      );
      if (field(packet, "restart_reason") === "ruling")
        out.push(
          { name: `result${R}:withdraw`, pure: put(res, resultText(packet, { rulings: [{ finding: "a hole", ruling: "withdrawn" }] })) },
          { name: `result${R}:uphold`, pure: put(res, resultText(packet, { rulings: [{ finding: "a hole", ruling: "upheld" }] })) },
        );
      if (stop === "score") out.push({ name: `result${R}:lowscore`, pure: put(res, resultText(packet, { low: true })) });
      if (R > 1)
        out.push({ name: `result${R}:wronground`, pure: put(res, resultText(st.files.get(`packet-${R - 1}.md`)!.toString(), {})) });
    } else
      out.push({ name: `result${R}:replace-ok`, pure: put(res, resultText(packet, { n: 2 })) }, { name: `rm ${res}`, pure: drop(res) });
    if (o.manual) out.push(...responseMoves(st, R, packet));
    if (o.difficulty && o.difficulty !== "medium" && st.files.has(`verdict-${R}.json`) && !st.files.has(`rebuttal-${R}.md`))
      out.push({ name: `rebut${R}`, pure: put(`rebuttal-${R}.md`, "The hole is not a hole: section 2 covers it.\n") });
    const ver = `verdict-${R}.json`;
    if (st.files.has(ver)) out.push({ name: `rm ${ver}`, pure: drop(ver) });
    else if (strays) {
      // a stray verdict that looks valid: bound to the packet, the result on disk (if any) and the artifact as it is
      const forged = forgedPassingVerdict({
        run: RUN,
        gate: GATE,
        round: R,
        packetId: field(packet, "packet_id"),
        packetSha: sha(packetBytes),
        resultSha: sha(rb ?? "none"),
        artifactSha: scrubbedSha(st.art),
      });
      out.push({ name: `stray ${ver}`, pure: put(ver, JSON.stringify(forged)) });
      if (rb && !st.files.has(`.verified/${res}`)) out.push({ name: `stray seal${R}`, pure: put(`.verified/${res}`, rb.toString()) });
    }
    if (st.files.has(`.verified/${res}`)) out.push({ name: `rm seal${R}`, pure: drop(`.verified/${res}`) });
    return out;
  };

  /** A person's response-R.md (the manual worker's input): answers of every kind, one it refuses, its removal. */
  const responseMoves = (st: State, R: number, packet: string): Move[] => {
    const name = `response-${R}.md`;
    if (st.files.has(name)) return [{ name: `rm ${name}`, pure: (s: State) => void s.files.delete(name) }];
    const answer = (model: string, body: string) => (s: State) =>
      void s.files.set(name, Buffer.from(`Reviewer-Model: ${model}\n\n\`\`\`review_result.v1\n${body}\`\`\`\n`));
    const other = field(packet, "artifact_sha256") === scrubbedSha(texts[0]!) ? scrubbedSha(texts[1]!) : scrubbedSha(texts[0]!);
    const out: Move[] = [
      { name: `response${R}:ok`, pure: answer("gpt-5", resultText(packet, {})) },
      { name: `response${R}:issues`, pure: answer("gpt-5", resultText(packet, { verdict: "issues" })) },
      { name: `response${R}:otherbytes`, pure: answer("gpt-5", resultText(packet, { sha: other })) },
      { name: `response${R}:samefamily`, pure: answer("claude-opus-4", resultText(packet, { model: "claude-opus-4" })) },
      { name: `response${R}:garbage`, pure: (s: State) => void s.files.set(name, Buffer.from("Reviewer-Model: gpt-5\n\nlooks fine\n")) },
    ];
    if (R > 1)
      out.push({ name: `response${R}:wronground`, pure: answer("gpt-5", resultText(st.files.get(`packet-${R - 1}.md`)!.toString(), {})) });
    return out;
  };

  /** Each quorum member's round R as its reviewer worker writes it: the dispatch recorded with its keys, then an
   * answer that carries the delivery key (passing, blocking, of other bytes), a failure that carries the end key, or
   * a stray answer without the key. */
  const memberMoves = (st: State, R: number): Move[] => {
    const put = (name: string, text: string) => (s: State) => void s.files.set(name, Buffer.from(text));
    const out: Move[] = [];
    for (const [m, name] of packetsOf(st, R)) {
      const packet = st.files.get(name)!.toString("utf8");
      const [att, res, fail] = ["attempt", "result", "failure"].map((k) => `${k}-${R}.${m}.json`) as [string, string, string];
      if (!st.files.has(att)) {
        const attempt = {
          schema_version: "guild_bus.attempt.v1",
          run_id: RUN,
          gate: GATE,
          round: R,
          packet_id: field(packet, "packet_id"),
          provider: m,
          worker: { host: "h", pid: 1 },
          started_at: new Date().toISOString(),
          delivery_key_sha256: sha(`dk-${m}`),
          end_key_sha256: sha(`ek-${m}`),
        };
        out.push({ name: `attempt${R}.${m}`, pure: put(att, JSON.stringify(attempt)) });
      } else if (!st.files.has(res) && !st.files.has(fail)) {
        const other = field(packet, "artifact_sha256") === scrubbedSha(texts[0]!) ? scrubbedSha(texts[1]!) : scrubbedSha(texts[0]!);
        const answer = (x: Parameters<typeof resultText>[1]) => put(res, resultText(packet, { model: MODEL[m!], key: `dk-${m}`, ...x }));
        const failure = (kind: string) =>
          put(
            fail,
            JSON.stringify({
              schema_version: "guild_bus.failure.v1",
              run_id: RUN,
              gate: GATE,
              round: R,
              packet_id: field(packet, "packet_id"),
              kind,
              reason: "the reviewer failed",
              reviewer_provider: m,
              end_key: `ek-${m}`,
              at: new Date().toISOString(),
            }),
          );
        out.push(
          { name: `result${R}.${m}:ok`, pure: answer({}) },
          { name: `result${R}.${m}:issues`, pure: answer({ verdict: "issues" }) },
          { name: `result${R}.${m}:otherbytes`, pure: answer({ sha: other }) },
          { name: `result${R}.${m}:nokey`, pure: put(res, resultText(packet, { model: MODEL[m!] })) },
          // of the author's family: it does not count (SPEC §26), so it makes a round short of the rule
          { name: `result${R}.${m}:samefamily`, pure: answer({ model: "claude-opus-4" }) },
          ...(stop === "score" ? [{ name: `result${R}.${m}:lowscore`, pure: answer({ low: true }) }] : []),
          { name: `failure${R}.${m}:unavailable`, pure: failure("unavailable") },
          { name: `failure${R}.${m}:malformed`, pure: failure("malformed") },
        );
      }
    }
    return out;
  };
  /** Why the files do not prove a pass at round n, from the result, packet, seal and artifact alone ([] when they do);
   * in a quorum round, why they do not prove NEED members' passes (of distinct families, on one artifact: each
   * member's own proof binds the artifact now), every member sent the round ended, and none blocks (SPEC §26). */
  const unproven = (st: State, n: number, allowWeak: boolean): string[] => {
    if (!o.quorum) return unprovenSlot(st, n, null, allowWeak);
    const sent = packetsOf(st, n).map(([m]) => m!);
    const proven = sent.filter((m) => !unprovenSlot(st, n, m, false).length);
    const why: string[] = [];
    if (new Set(proven.map((m) => classifyModel(MODEL[m]!))).size < NEED) {
      const whyNot = sent.flatMap((m) => unprovenSlot(st, n, m, false).map((w) => `${m}: ${w}`));
      why.push(`round ${n}: ${proven.length} of ${NEED} needed members proven (${whyNot.join("; ")})`);
    }
    // only a degraded round leaves a member out (the one that was unavailable)
    const degraded = sent.some((m) => field(st.files.get(`packet-${n}.${m}.md`)!.toString(), "restart_reason") === "degraded");
    if (sent.length < OF && !degraded) why.push(`round ${n} was sent to ${sent.length} of ${OF} members`);
    for (const m of sent) {
      const ended = st.files.has(`verdict-${n}.${m}.json`) || st.files.has(`failure-${n}.${m}.json`);
      if (!ended) why.push(`${m} has not ended round ${n}`);
      const r = parseReviewResult(st.files.get(`result-${n}.${m}.json`)?.toString() ?? "").result;
      if (st.files.has(`verdict-${n}.${m}.json`) && Array.isArray(r?.blocking_findings) && r.blocking_findings.length)
        why.push(`${m} blocks round ${n}`);
    }
    return why;
  };
  const unprovenSlot = (st: State, n: number, m: string | null, allowWeak: boolean): string[] => {
    const at = m ? `${n}.${m}` : `${n}`;
    const pb = st.files.get(`packet-${at}.md`);
    const rb = st.files.get(`result-${at}.json`);
    const v = json(st.files.get(`verdict-${at}.json`));
    if (!pb || !rb || !v) return [`round ${n} has no packet, result or verdict`];
    const packet = pb.toString("utf8");
    const r = parseReviewResult(rb.toString("utf8")).result;
    if (!r) return ["the result does not parse"];
    const why: string[] = [];
    if (n !== openRound(st)) why.push(`round ${n} is not the last round issued`);
    if (r.packet_id !== field(packet, "packet_id")) why.push("the result names another packet");
    if (r.artifact_sha256_reviewed !== field(packet, "artifact_sha256")) why.push("the result reviewed other bytes than its packet sent");
    if (field(packet, "artifact_sha256") !== scrubbedSha(st.art) || field(packet, "artifact_raw_sha256") !== sha(st.art))
      why.push("the artifact on disk is not what the packet sent");
    const ok = stop === "score" ? Number(r.score) >= 6 && ["ready", "almost"].includes(String(r.readiness)) : r.verdict === "satisfied";
    if (!ok) why.push("the result does not pass");
    const blocks = Array.isArray(r.blocking_findings) && r.blocking_findings.length > 0;
    const upheld = Array.isArray(r.rulings) && r.rulings.some((x: { ruling?: unknown }) => x.ruling !== "withdrawn");
    if (blocks || upheld) why.push("the result blocks");
    if (v.result_sha256 !== sha(rb)) why.push("the verdict binds other result bytes");
    if (v.packet_sha256 !== sha(pb)) why.push("the verdict binds other packet bytes");
    if (!st.files.get(`.verified/result-${at}.json`)?.equals(rb)) why.push("the result is not the bytes sealed");
    // a round the bus dispatched takes only its worker's answer (SPEC §15)
    const attempt = json(st.files.get(`attempt-${at}.json`));
    if (m && (typeof r.delivery_key !== "string" || sha(r.delivery_key) !== attempt?.delivery_key_sha256))
      why.push("the result is not its dispatching worker's answer");
    if (!allowWeak && classifyModel(r.reviewer_model as string) === "anthropic") why.push("the reviewer is the author's family");
    const maps = field(packet, "family_maps_sha256");
    if (maps && sha(st.files.get(`family-maps-${maps}.json`) ?? "") !== maps)
      why.push("the gate does not hold the family maps the packet binds");
    return why;
  };
  const brokerOffersForcePass = async (st: State, n: number): Promise<boolean> => {
    const without = { files: new Map(st.files), art: st.art, cfg: st.cfg, pending: st.pending };
    for (const f of [`escalation-${n}.json`, `decision-${n}.json`, "outcome.json"]) without.files.delete(f);
    restore(without);
    await stepGate(ctx(), RUN, GATE);
    const own = capture().files.get(`escalation-${n}.json`);
    restore(st);
    return ((json(own)?.options ?? []) as string[]).includes("force-pass");
  };
  /**
   * Why the files never lead the broker to round n's escalation (SPEC §6, escalation-<n>.json), read from them alone:
   * its reason needs what the broker raises it from, and force-pass comes only with reasons that offer it ("" when
   * they can lead to it; looser than the broker's rule, never stricter).
   */
  const unfounded = (st: State, n: number): string => {
    const e = json(st.files.get(`escalation-${n}.json`));
    const reason = String(e?.reason);
    // each slot of round n: the reviewer's, or (a quorum round) each member's; any one of them can lead to it
    const slots = o.quorum ? packetsOf(st, n).map(([m]) => `${n}.${m}`) : [`${n}`];
    let failed = false,
      brokenSeal = false,
      passes = false,
      ended = false;
    for (const at of slots) {
      const failure = json(st.files.get(`failure-${at}.json`));
      const v = json(st.files.get(`verdict-${at}.json`));
      const rb = st.files.get(`result-${at}.json`);
      const seal = st.files.get(`.verified/result-${at}.json`);
      failed ||= failure?.kind === "no_verdict";
      passes ||= v !== null && ((v.gate_pass as { pass?: unknown } | undefined)?.pass === true || stop === "score");
      // a sealed result, or one a verdict binds, that is no longer there as it was
      brokenSeal ||= (seal !== undefined || v !== null) && !(rb && seal?.equals(rb));
      ended ||= v !== null || failure !== null;
      // a packet whose family maps the gate does not hold (SPEC §7): its round cannot pass
      const maps = field(st.files.get(`packet-${at}.md`)?.toString("utf8") ?? "", "family_maps_sha256");
      brokenSeal ||= o.maps === true && maps !== null && sha(st.files.get(`family-maps-${maps}.json`) ?? "") !== maps;
    }
    const forcePass = ["cap_hit", "malformed_termination_x2", "stalled", "no_verdict", "unavailable", "restart_cap_hit"];
    if (
      ((e?.options ?? []) as string[]).includes("force-pass") &&
      ![...forcePass, "identity_unverified", "score_unavailable"].includes(reason)
    )
      return `${reason} never offers force-pass`;
    if (reason === "no_verdict" && !(failed || brokenSeal || passes))
      return "no_verdict without a no_verdict failure, a broken seal or a passing verdict";
    if (reason === "identity_unverified" && !passes) return "identity_unverified without a passing verdict";
    const afterEnd = ["cap_hit", "malformed_termination_x2", "human_checkpoint", "score_unavailable", "restart_cap_hit", "stalled"];
    if (afterEnd.includes(reason) && !ended) return `${reason} at a round that has neither a verdict nor a failure`;
    return "";
  };
  const quorum = o.quorum ?? false;
  const otherRun = o.otherRun;
  /**
   * The runs `check` must judge, read from the files: the newest requested, and any run whose reviewer blocked the
   * artifact's bytes now (a verdict binding a blocking result, on a packet of these bytes) whatever its requested_at.
   */
  const judged = (st: State): Array<[string, State]> => {
    if (!otherRun) return [[RUN, st]];
    const runs: Array<[string, State]> = [
      [RUN, st],
      [OTHER, otherOf(st)],
    ];
    const at = (v: State) => Date.parse(String(json(v.files.get("request.json"))?.requested_at));
    const newest = Math.max(...runs.map(([, v]) => at(v)));
    const blocked = (v: State) =>
      [...v.files.keys()].some((n) => {
        const round = /^verdict-(\d+)\.json$/.exec(n)?.[1];
        const rb = v.files.get(`result-${round}.json`);
        const r = rb && parseReviewResult(rb.toString("utf8")).result;
        const pb = v.files.get(`packet-${round}.md`);
        return (
          round !== undefined &&
          !!r &&
          Array.isArray(r.blocking_findings) &&
          r.blocking_findings.length > 0 &&
          json(v.files.get(n))?.result_sha256 === sha(rb) &&
          !!pb &&
          field(pb.toString("utf8"), "artifact_sha256") === scrubbedSha(v.art)
        );
      });
    return runs.filter(([, v]) => at(v) === newest || blocked(v));
  };
  const check = async (st: State): Promise<{ bad: string[]; pass: boolean; waitsOn: string }> => {
    const bad: string[] = [];
    const o = json(st.files.get("outcome.json"));
    const d = viewGate(ctx(), RUN, GATE).decision;
    if (d.state === "awaiting_decision" && d.round > 0 && unfounded(st, d.round))
      bad.push(`a person is asked to decide round ${d.round}'s escalation, which the files never lead to: ${unfounded(st, d.round)}`);
    const row = statusRow(ctx(), RUN, GATE, true);
    if (row.exit_code === 0) {
      if (o?.status === "satisfied") {
        const why = unproven(st, Number(o.satisfied_at_round), true);
        if (why.length) bad.push(`status exits 0, but the files do not prove the pass: ${why.join("; ")}`);
        const r = quorum ? null : parseReviewResult(st.files.get(`result-${String(o.satisfied_at_round)}.json`)!.toString()).result;
        if (r && classifyModel(r?.reviewer_model as string) === "anthropic" && o.independence !== "weak")
          bad.push("a same-family pass is stamped strong");
      } else if (o?.status !== "force_passed") bad.push(`status exits 0 on outcome ${String(o?.status)}`);
      else if (json(st.files.get(`escalation-${String(o.final_round)}.json`))?.detail === "stray") {
        // a force-pass a person chose on the stray's escalation: one only if the broker would have offered it
        const n = Number(o.final_round);
        if (unproven(st, n, true).length && !(await brokerOffersForcePass(st, n)))
          bad.push(`force-passed round ${n} on an escalation the broker never raised`);
      }
    }
    const c = await checkGates(ctx(), { ...(otherRun ? {} : { runId: RUN }), require: [GATE] });
    if (c.ok && c.passed)
      for (const [run, view] of judged(st)) {
        const out = json(view.files.get("outcome.json"));
        const why =
          out?.status === "satisfied" ? unproven(view, Number(out.satisfied_at_round), false) : [`outcome ${String(out?.status)}`];
        if (why.length) bad.push(`check passes, but the files of run ${run} do not prove it: ${why.join("; ")}`);
      }
    return { bad, pass: row.exit_code === 0 && o?.status === "satisfied", waitsOn: row.next.waiting_on };
  };

  /** A worker never loses a file: one it takes away is kept in rejected/ (SPEC §5). */
  const lost = (st: State, s2: State): string[] =>
    [...st.files.keys()]
      .filter((n) => !/^(~\/)?rejected\//.test(n) && !s2.files.has(n))
      // the other run's files (under OTHER_AT) go to its own rejected/
      .map((n): [string, string] =>
        n.startsWith(OTHER_AT) ? [n, `${OTHER_AT}rejected/${n.slice(OTHER_AT.length)}.`] : [n, `rejected/${n}.`],
      )
      .filter(([, kept]) => ![...s2.files.keys()].some((r) => r.startsWith(kept) && !st.files.has(r)))
      .map(([n]) => n)
      .map((n) => `a worker took ${n} away without keeping it in rejected/`);

  const apply = async (st: State, m: Move): Promise<State> => {
    if (m.pure) {
      const next = { files: new Map(st.files), art: st.art, cfg: st.cfg, pending: new Map(st.pending) };
      m.pure(next);
      return next;
    }
    return m.run!(st);
  };

  let start = capture();
  for (const name of o.seed ?? []) {
    const m = [...moves(start), ...whole].find((x) => x.name === name);
    if (!m)
      throw new Error(
        `seed move ${name} is not one of: ${moves(start)
          .map((x) => x.name)
          .join(", ")}`,
      );
    start = await apply(start, m);
  }
  const seen = new Set([key(start)]);
  console.log(
    "PEEK",
    [...start.files.keys()].join(" "),
    "\n",
    start.files.get("outcome.json")?.toString() ?? "",
    [...start.files]
      .filter(([n]) => n.startsWith("escalation"))
      .map(([, b]) => b.toString())
      .join("\n"),
  );
  const report: ExploreReport = { states: 1, transitions: 0, passes: 0, violations: [] };
  let frontier: Array<{ st: State; trace: string[]; waitsOn: string | null }> = [{ st: start, trace: o.seed ?? [], waitsOn: null }];
  for (let d = 0; d < o.depth && frontier.length; d++) {
    const next: typeof frontier = [];
    for (const { st, trace, waitsOn } of frontier) {
      const k0 = key(st);
      let workersMove = false;
      for (const m of moves(st)) {
        const s2 = await apply(st, m);
        report.transitions++;
        const k = key(s2);
        const byWorker = /^(broker|verifier|manual)\b/.test(m.name);
        if (byWorker && k !== k0) workersMove = true;
        // a file lost leads back to a state seen before it was written: judged on every transition, not once per state
        const gone = byWorker ? lost(st, s2) : [];
        if (gone.length) report.violations.push({ trace: [...trace, m.name], bad: gone });
        if (seen.has(k)) continue;
        seen.add(k);
        const t2 = [...trace, m.name];
        restore(s2);
        const { bad, pass, waitsOn: on } = await check(s2);
        if (pass) report.passes++;
        if (bad.length) report.violations.push({ trace: t2, bad });
        else next.push({ st: s2, trace: t2, waitsOn: on });
      }
      // a gate that says a worker moves it next, where neither worker changes anything, is stuck with nobody to act
      if (waitsOn !== null && /^the (broker|verifier|manual worker)\b/.test(waitsOn) && !workersMove)
        report.violations.push({ trace, bad: [`stuck: waits on ${waitsOn}, but neither worker changes anything`] });
    }
    frontier = next;
  }
  report.states = seen.size;
  if (existsSync(root)) rmSync(root, { recursive: true, force: true });
  return report;
}

/** One test per start: every state it reaches holds (GATE_EXPLORE_DEPTH explores that many moves deeper). */
export function exploreStarts(title: string, starts: Array<[string, ExploreOptions]>): void {
  const extra = Number(process.env.GATE_EXPLORE_DEPTH ?? 0);
  describe(title, () => {
    it.each(starts)(
      "from %s",
      async (_, o) => {
        const report = await explore({ ...o, depth: o.depth + extra });
        expect(report.violations).toEqual([]);
        expect(report.states).toBeGreaterThan(50);
      },
      600_000,
    );
  });
}
