// The MCP tools of `guild-bus mcp`: each a thin face over src/commands (the CLI's own functions), answering with
// structuredContent plus one short line of text. A refusal is a tool error (isError) the model can read, never a crash.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/mini";
import { loadContext } from "../bus/context.js";
import type { Layout } from "../bus/layout.js";
import type { Answer } from "../commands/answer.js";
import { decideEscalation, landedNote, rebut, resubmit, respond } from "../commands/author.js";
import { checkGates } from "../commands/check.js";
import { hostLines, providerReport } from "../commands/providers.js";
import { boundedFindingLines, roundFindings } from "../commands/findings.js";
import { requestReview } from "../commands/review.js";
import { gateStatuses } from "../commands/status.js";
import { historyNote } from "../commands/status-scope.js";
import { nextStepLine } from "../core/next-step.js";
import { MAX_CAP } from "../core/policy.js";
import { MAX_EXTEND_BY, MAX_FILE_BYTES, MAX_ROUND } from "../spec/constants.js";
import { GATE_NAMES } from "../spec/ids.js";
import { DecisionChoice, described, Difficulty, QuorumRule, StopPolicy, wholeNumber } from "../spec/schemas.js";
import type { AuthorHost } from "./client-host.js";
import { failure, reply } from "./reply.js";
import { waitTool } from "./wait-tool.js";

export interface ToolContext {
  layout: Layout;
  /** A wait call's default time budget: below the client's own tool timeout. */
  waitSeconds: number;
  /** The author host the handshake named (null before it, or for a client that sent no name). */
  client: () => AuthorHost | null;
  /** See McpServerOptions.workers. */
  workers?: (o?: { create?: boolean }) => Promise<void>;
}

const runGate = { run_id: described(z.string(), "the run id request_review returned"), gate: described(z.string(), GATE_NAMES) };
/** The round the caller read (status, wait): an action on a gate that has moved on to another round is refused. */
const seenRound = {
  round: described(
    z.optional(wholeNumber(0, MAX_ROUND)),
    "the round you read (from status or wait): refused, nothing written, if the gate has moved on",
  ),
};

/** A command's answer as a tool result: its fields as structuredContent, a refusal as a tool error. */
function answer<T extends object>(a: Answer<T>, text: (ok: T) => string[]): CallToolResult {
  if (!a.ok) return failure(a.error);
  const { ok: _ok, ...fields } = a as { ok: true } & T;
  return reply(text(a), fields as Record<string, unknown>);
}

/** The host that authors through this client: the handshake's name; a caller may repeat it, never replace it. */
function authorOf(t: ToolContext, claimed: string | undefined): { ok: true; host: AuthorHost } | { ok: false; error: string } {
  const client = t.client();
  if (client && claimed !== undefined && claimed !== client.name)
    return { ok: false, error: `author_host ${claimed} is not this MCP client (${client.name}); the author host comes from the handshake` };
  if (client) return { ok: true, host: client };
  if (claimed) return { ok: true, host: { name: claimed, version: null, source: "declared" } };
  return { ok: false, error: "this MCP client sent no name in its handshake: pass author_host" };
}

export function registerTools(server: McpServer, t: ToolContext): void {
  server.registerTool(
    "request_review",
    {
      title: "Request a cross-family review",
      description:
        "Ask a reviewer of another model family to review an artifact (a file inside the project) at a gate. " +
        "Returns the run id; then call `wait` until the gate needs you or ends. Never claim a pass the gate did not give.",
      inputSchema: {
        artifact: described(z.string(), "path of the artifact, relative to the project root"),
        gate: described(z.string(), GATE_NAMES),
        author_model: described(z.optional(z.string()), "your exact model (decides your family; the reviewer must be of another)"),
        author_host: described(z.optional(z.string()), "only for clients that send no name: the handshake's name wins"),
        reviewer: described(z.optional(z.string()), "auto (default) or a provider id to pin"),
        risk: z.optional(z.enum(["low", "medium", "high"])),
        // the range is the command layer's to refuse, with the words every face gives
        cap: described(z.optional(z.number()), `round cap: a whole number from 1 to ${MAX_CAP}`),
        stop: z.optional(StopPolicy),
        difficulty: z.optional(Difficulty),
        human_checkpoint: z.optional(z.boolean()),
        quorum: described(z.optional(QuorumRule), "K of N reviewers of distinct families, none yours, must pass (e.g. {need: 2, of: 3})"),
        paths: described(z.optional(z.array(z.string())), "further project paths the reviewer should read"),
        run_id: described(
          z.optional(z.string()),
          "a run id of your own (letters, digits, `.`, `_`, `-`): the same call again with it goes on with the review " +
            "already requested rather than a second, paid one — use it when you may retry the call",
        ),
      },
    },
    async (a) => {
      const author = authorOf(t, a.author_host);
      if (!author.ok) return failure(author.error);
      const host = author.host;
      await t.workers?.({ create: true }); // as wait: its "no broker" note is never said while this server's own `up` starts
      const answered = await requestReview(t.layout, {
        artifact: a.artifact,
        gate: a.gate,
        author: host.name,
        authorHostSource: host.source,
        ...(host.version ? { authorHostVersion: host.version } : {}),
        authorModel: a.author_model,
        reviewer: a.reviewer,
        risk: a.risk,
        cap: a.cap,
        stop: a.stop,
        difficulty: a.difficulty,
        humanCheckpoint: a.human_checkpoint,
        quorum: a.quorum,
        paths: a.paths,
        runId: a.run_id,
      });
      if (!answered.ok) return failure(answered.error);
      const { runId, gate, idle } = answered;
      const warnings = [...answered.warnings, ...(idle ? [idle] : [])];
      const text = [
        `requested: run ${runId}, gate ${gate} (author host ${host.name}, from ${host.source}).`,
        ...warnings.map((w) => `warning: ${w}`),
        `Next: call wait with run_id ${runId} and gate ${gate}.`,
      ];
      return reply(text, { run_id: runId, gate, author_host: host.name, author_host_source: host.source, warnings });
    },
  );

  server.registerTool(
    "wait",
    {
      title: "Wait for a gate",
      description:
        "Follow a gate until it needs the author (findings to fix), needs a human decision, or ends — or until the time " +
        "budget passes, then it answers still_running: call wait again. Sends progress notifications meanwhile.",
      inputSchema: {
        ...runGate,
        timeout_seconds: described(z.optional(wholeNumber(1, 3600)), `time budget of this call (default ${t.waitSeconds} s)`),
      },
    },
    async (a, extra) => {
      // a wait at once after the server started: its `up` not yet seen, the gate would read "run: guild-bus up"
      await t.workers?.();
      return waitTool(t.layout, { ...a, timeout_seconds: a.timeout_seconds ?? t.waitSeconds }, extra);
    },
  );

  server.registerTool(
    "status",
    {
      title: "Gate status",
      description:
        "The state of one gate, one run's gates, or every open and recent gate (all: true adds those that ended over a day " +
        "ago): round, reviewer, independence, whom it waits for.",
      inputSchema: {
        run_id: z.optional(z.string()),
        gate: described(z.optional(z.string()), "with run_id"),
        all: described(z.optional(z.boolean()), "without run_id: also the gates that ended over a day ago"),
      },
    },
    async (a) => {
      if (a.gate !== undefined && a.run_id === undefined) return failure("gate needs run_id");
      await t.workers?.(); // as wait: never "run: guild-bus up" while this server's own `up` starts
      const ctx = loadContext(t.layout);
      // as the CLI's status, wait and check: no gate is judged on what is left of settings with problems (a key dropped
      // for one bad value, family_aliases say, falls back to defaults under which a pass may re-derive that the
      // project's settings fail); the problems are the answer
      if (ctx.settingsProblems.length)
        return reply(
          [
            ...ctx.settingsProblems.map((p) => `settings problem (tell the user): ${p}`),
            "no gate was judged on settings with problems: tell the user to fix them, then call status again",
          ],
          { settings_problems: ctx.settingsProblems, ignored: [], ended_not_shown: 0, gates: [] },
        );
      const found = gateStatuses(ctx, { run: a.run_id, gate: a.gate, all: a.all });
      if (!found.ok) return failure(found.error);
      const lines = [
        // a run or gate directory the bus refuses hides gates nobody can judge (check fails them): as `status` says
        ...found.ignored.map((i) => `ignored (tell the user${i.hides ? "; it hides gates `check` fails" : ""}): ${i.path} — ${i.reason}`),
        ...found.rows.map((g) => `${g.run_id} ${g.gate}: ${g.status} (round ${g.round}, ${nextStepLine(g.next)})`),
        ...[historyNote(found.history, "all: true")].filter((l) => l !== null),
      ];
      return reply(lines.length ? lines : ["no gates"], {
        settings_problems: [],
        ignored: found.ignored,
        ended_not_shown: found.history,
        gates: found.rows,
      });
    },
  );

  server.registerTool(
    "findings",
    {
      title: "Findings of a round",
      description: "What the reviewer said in a round (default: the newest): verdict, summary, each finding with severity and evidence.",
      inputSchema: { ...runGate, round: z.optional(wholeNumber(1, MAX_ROUND)) },
    },
    (a) =>
      answer(roundFindings(loadContext(t.layout), a.run_id, a.gate, a.round), (f) => [
        `findings of round ${f.round}: ${f.verdict}${f.summary ? ` — ${f.summary}` : ""}`,
        ...boundedFindingLines(f),
      ]),
  );

  server.registerTool(
    "resubmit",
    {
      title: "Resubmit after revising",
      description: "After you revised the artifact to answer the findings: the next round reviews the new bytes. Then call wait.",
      inputSchema: { ...runGate, ...seenRound },
    },
    async (a) =>
      answer(await resubmit(loadContext(t.layout), a.run_id, a.gate, a.round), (r) => [
        `resubmitted after round ${r.round}${landedNote(r)}; call wait next`,
      ]),
  );

  server.registerTool(
    "rebut",
    {
      title: "Contest a round's findings",
      description:
        "At difficulty hard or nightmare, instead of revising: argue against the waiting round's blocking findings, once per " +
        "round, while the artifact still holds the bytes that round sent. The reviewer rules on each in a ruling round " +
        "(final). Then call wait.",
      inputSchema: {
        ...runGate,
        rebuttal: described(
          z.string().check(z.maxLength(MAX_FILE_BYTES)),
          "your argument about the findings; the reviewer sees it, labelled as yours",
        ),
        ...seenRound,
      },
    },
    async (a) =>
      answer(await rebut(loadContext(t.layout), a.run_id, a.gate, a.rebuttal, a.round), (r) => [
        `rebuttal recorded for round ${r.round}${landedNote(r)}; the reviewer rules on each contested finding next: call wait`,
      ]),
  );

  server.registerTool(
    "decide",
    {
      title: "Decide an escalation",
      description:
        "Answer a gate that waits for a decision with one of the options its escalation offers (see status). " +
        "force-pass, and the answer to a human checkpoint, are a person's decisions: a client is refused them.",
      inputSchema: {
        ...runGate,
        choice: DecisionChoice,
        extend_by: described(z.optional(wholeNumber(1, MAX_EXTEND_BY)), "rounds to add, with extend-cap only"),
        note: z.optional(z.string().check(z.maxLength(MAX_FILE_BYTES))),
        round: described(
          z.optional(wholeNumber(0, MAX_ROUND)),
          "the round whose escalation you read (from status or wait), needed past round 1: refused, nothing written, " +
            "if the gate has moved on",
        ),
      },
    },
    async (a) => {
      const decidedBy = t.client()?.name ?? "mcp-client";
      const decided = await decideEscalation(loadContext(t.layout), a.run_id, a.gate, {
        choice: a.choice,
        extendBy: a.extend_by,
        note: a.note,
        decidedBy,
        via: decidedBy,
        round: a.round,
      });
      return answer(decided, (r) => [`decided ${a.choice} for the ${r.reason} escalation of round ${r.round}${landedNote(r)}`]);
    },
  );

  server.registerTool(
    "respond",
    {
      title: "Answer as the manual reviewer",
      description:
        "Deliver a human's review for a packet addressed to the manual reviewer. The review is Markdown or JSON with a " +
        "verdict; reviewer_model is the exact id of the model that reviewed (gpt-5, gemini-2.5-pro): its family must be " +
        "known and differ from the author's, so a person's name is refused.",
      inputSchema: {
        ...runGate,
        reviewer_model: z.string(),
        review: described(z.string().check(z.maxLength(MAX_FILE_BYTES)), "the review text"),
        round: described(
          z.optional(wholeNumber(0, MAX_ROUND)),
          "the round whose packet was reviewed, needed past round 1: refused, nothing written, if the gate has moved on",
        ),
      },
    },
    async (a) => {
      // the client's own name is what tells it from the gate's author: a client that gives none answers nothing
      const via = t.client()?.name?.trim();
      if (!via)
        return failure(
          "respond needs this client's name (clientInfo.name in the MCP handshake): a client without one cannot be told from the " +
            "gate's author, so it cannot answer as its reviewer",
        );
      const responded = await respond(loadContext(t.layout), a.run_id, a.gate, {
        read: async () => a.review,
        reviewerModel: a.reviewer_model,
        via,
        round: a.round,
      });
      return answer(responded, (r) => [`round ${r.round}: ${r.verdict} (reviewer ${r.model}) delivered${landedNote(r)}`]);
    },
  );

  server.registerTool(
    "providers",
    {
      title: "Reviewers available here",
      description: "Every reviewer host looked for (settings, CLIs on PATH), whether it can review, and why not.",
      inputSchema: {},
    },
    async () => {
      const report = await providerReport(t.layout);
      const lines = [
        ...report.settings_problems.map((p) => `settings problem: ${p}`),
        ...report.providers.map((p) => `${p.available ? "✓" : "✗"} ${p.id} (${p.family})${p.available ? "" : `: ${p.why.join("; ")}`}`),
        "looked for:",
        ...hostLines(report.hosts),
      ];
      return reply(lines, { ...report });
    },
  );

  server.registerTool(
    "check",
    {
      title: "Check gates passed",
      description: "Re-derive from the files that each required gate passed for the artifact bytes now in the tree (as CI does).",
      inputSchema: {
        run_id: z.optional(z.string()),
        gates: described(z.optional(z.array(z.string())), "check only these gates (default: every gate)"),
        require: described(z.optional(z.array(z.string())), "gate names that must have passed, e.g. G-spec"),
        require_files: described(
          z.optional(z.array(z.string())),
          "GATE=GLOB entries, e.g. G-spec=docs/specs/*.md: every file the glob matches must have passed that gate",
        ),
        allow_weak: described(
          z.optional(z.boolean()),
          "also accept a pass by a reviewer of unknown or the author's family (weak independence); default false",
        ),
        allow_force_pass: described(z.optional(z.boolean()), "also accept a gate a human force-passed; default false"),
      },
    },
    async (a) => {
      const result = await checkGates(loadContext(t.layout), {
        runId: a.run_id,
        gates: a.gates,
        require: a.require ?? [],
        requireFiles: a.require_files,
        allowWeak: a.allow_weak,
        allowForcePass: a.allow_force_pass,
      });
      if (!result.ok) return failure(result.error);
      const { ok: _ok, ...fields } = result;
      return reply(result.lines, fields);
    },
  );
}
