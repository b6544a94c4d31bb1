// The console's routes. Reads go through the same gate view as `guild-bus status`; every action calls the command
// layer (src/commands/author.ts) exactly as the CLI does and writes the same files. Paths come only from validated
// run and gate ids (src/bus/layout.ts keeps them inside .guild/) and a fixed list of assets.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import { type BusContext, judgingRefusal } from "../bus/context.js";
import { type GateListing, listGates } from "../bus/gate-list.js";
import { ReadFault } from "../core/read-fault.js";
import { decodeUtf8 } from "../bus/read-bounded.js";
import { packagePath } from "../bus/package-files.js";
import type { Answer } from "../commands/answer.js";
import { refusing } from "../commands/answer.js";
import { decideEscalation, landedNote, rebut, respond, resubmit } from "../commands/author.js";
import { MAX_FILE_BYTES, MAX_ROUND } from "../spec/constants.js";
import { wholeNumberText } from "../core/whole-number.js";
import { isGate, isRunId } from "../spec/ids.js";
import { DecisionChoice } from "../spec/schemas.js";
import type { BoardEvent, GateBoard } from "./board.js";
import { type Draft, gateHref, gatePage, gatesPage, MAX_ROWS, type PageContext, rowMatches, settingsPage } from "./pages.js";
import { guard, type Secrets } from "./security.js";
import { gateTimeline } from "./timeline.js";

const ASSETS: Record<string, { file: string; type: string }> = {
  "app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};
/** Shipped as they are in src/ui/assets (package.json "files"). */
const ASSET_DIR = packagePath("src", "ui", "assets");

export interface AppOptions {
  ctx: () => BusContext;
  board: GateBoard;
  secrets: Secrets;
  readOnly: boolean;
  hosts: () => string[];
  origins: () => string[];
  cookie: () => string;
}

type Outcome = { ok: true; text: string } | { ok: false; text: string };

/** Outcomes of this console's latest actions: a page reloads itself when its gate moves, and keeps its notice. */
const NOTICES_KEPT = 100;
/** Refused forms whose text is given back (each up to the body limit): the newest only, so memory stays bounded. */
const DRAFTS_KEPT = 8;
/** What each form types (an upload is not kept: the person still has the file). */
const DRAFT_FIELDS: Record<string, readonly string[]> = {
  respond: ["reviewer_model", "review"],
  decide: ["choice", "extend_by", "note"],
  rebut: ["text"],
};

export function consoleApp(o: AppOptions): Hono {
  // not strict: the home page is the base with or without its closing slash
  const top = new Hono({ strict: false });
  const { base } = o.secrets;
  const href = (run: string, gate: string) => base + gateHref(run, gate);
  const pageCtx = (): PageContext => ({ root: o.ctx().layout.root, base, readOnly: o.readOnly, csrf: o.secrets.csrf, seq: o.board.seq });
  // An action's outcome is shown from this record, by an unguessable id the redirect carries: never text from the URL,
  // which any page of the same site could link to ("decision recorded: force-pass" for a decision nobody made).
  const notices = new Map<string, { gate: string; outcome: Outcome; draft?: Draft }>();
  const assets = new Map(
    Object.entries(ASSETS).map(([name, a]) => [name, { body: readFileSync(path.join(ASSET_DIR, a.file)), type: a.type }]),
  );

  top.use("*", bodyLimit({ maxSize: MAX_FILE_BYTES + 64 * 1024, onError: (c) => c.text("refused: request too large\n", 413) }));
  top.use("*", guard(o.secrets, o));
  top.notFound((c) => c.text("not found\n", 404));
  const app = top.basePath(base);

  // no page judges a gate on settings with problems (the board's rows, a gate's timeline): the problems are the page
  app.get("/", (c) => {
    const ctx = o.ctx();
    const refusal = judgingRefusal(ctx);
    if (refusal) return c.html(settingsPage(pageCtx(), refusal));
    // what the workers ignore under .guild/runs, as status says it: a run behind a link is no row, yet check fails it
    let ignored: GateListing["ignored"];
    try {
      ignored = listGates(ctx.layout).ignored;
    } catch (error) {
      if (!(error instanceof ReadFault)) throw error;
      ignored = [{ path: ".guild/runs", reason: `cannot be listed now (${error.message})`, hides: {} }];
    }
    const q = c.req.query("q") ?? "";
    const state = c.req.query("state") ?? "";
    const matching = o.board.list().filter((r) => rowMatches(r, q, state));
    const rows = matching.slice(0, MAX_ROWS);
    return c.html(gatesPage(pageCtx(), { rows, total: matching.length, q, state, loading: o.board.loading, ignored }));
  });

  app.get("/assets/:name", (c) => {
    const a = assets.get(c.req.param("name"));
    if (!a) return c.text("not found\n", 404);
    return c.body(a.body, 200, { "Content-Type": a.type });
  });

  // A page says which event it was rendered after (?since=, or Last-Event-ID when the stream reconnects) and gets
  // what it missed first; a page older than the events kept is told to reload.
  app.get("/events", (c) =>
    streamSSE(c, async (stream) => {
      const queue: BoardEvent[] = [];
      let wake: (() => void) | null = null;
      const off = o.board.subscribe((e) => {
        queue.push(e);
        wake?.();
      });
      let open = true;
      stream.onAbort(() => {
        open = false;
        off();
        wake?.();
      });
      const since = Number(c.req.header("last-event-id") ?? c.req.query("since") ?? o.board.seq);
      const missed = Number.isSafeInteger(since) ? o.board.since(since) : null;
      await stream.writeSSE({ event: "hello", data: JSON.stringify({ seq: o.board.seq }) });
      if (missed === null) await stream.writeSSE({ event: "reload", data: "{}" });
      else queue.unshift(...missed.filter((e) => !queue.includes(e)));
      while (open) {
        if (!queue.length) await new Promise<void>((r) => (wake = r));
        wake = null;
        // a page open when the settings went wrong is told to reload (into the problems), never sent a row judged on them
        if (queue.length && judgingRefusal(o.ctx())) {
          queue.length = 0;
          await stream.writeSSE({ event: "reload", data: "{}" });
        }
        while (queue.length && open) {
          const e = queue.shift()!;
          await stream.writeSSE({ event: "gate", data: JSON.stringify(e), id: String(e.seq) });
        }
      }
    }),
  );

  /** A valid run and gate from the path, or null (a `..`, a slash, anything the id grammar refuses). */
  const ids = (c: { req: { param(k: string): string } }) => {
    const run = c.req.param("run");
    const gate = c.req.param("gate");
    return isRunId(run) && isGate(gate) ? { run, gate } : null;
  };

  app.get("/gate/:run/:gate", (c) => {
    const id = ids(c);
    if (!id) return c.text("refused: not a run and gate\n", 400);
    const ctx = o.ctx();
    if (!existsSync(ctx.layout.gateDir(id.run, id.gate))) return c.text("no such gate\n", 404);
    const refusal = judgingRefusal(ctx);
    if (refusal) return c.html(settingsPage(pageCtx(), refusal));
    const noticeId = c.req.query("notice") ?? "";
    const kept = notices.get(noticeId);
    const ours = kept?.gate === href(id.run, id.gate) ? kept : null;
    const allRounds = c.req.query("all") === "1";
    return c.html(gatePage(pageCtx(), gateTimeline(ctx, id.run, id.gate), ours?.outcome ?? null, ours?.draft, { allRounds }));
  });

  const field = (body: Record<string, unknown>, k: string) => (typeof body[k] === "string" ? (body[k] as string) : "");
  const told = <T>(a: Answer<T>, text: (a: T) => string): Outcome => (a.ok ? { ok: true, text: text(a) } : { ok: false, text: a.error });

  const ACTIONS = ["resubmit", "rebut", "decide", "respond"] as const;
  type Action = (typeof ACTIONS)[number];

  /** One action through the command layer, answering `round`, the round the page showed. */
  async function act(
    action: Action,
    at: { ctx: BusContext; run: string; gate: string; round: number },
    body: Record<string, unknown>,
  ): Promise<Outcome> {
    const { ctx, run, gate, round } = at;
    switch (action) {
      case "resubmit":
        return told(await refusing(() => resubmit(ctx, run, gate, round)), (a) => `resubmitted after round ${a.round}${landedNote(a)}`);
      case "rebut":
        return told(
          await refusing(() => rebut(ctx, run, gate, field(body, "text"), round)),
          (a) => `rebuttal recorded for round ${a.round}${landedNote(a)}`,
        );
      case "decide": {
        const choice = DecisionChoice.safeParse(field(body, "choice"));
        if (!choice.success) return { ok: false, text: "choose one of the options offered" };
        // as typed: the command reads it as the CLI does, and refuses a number given with another choice
        const extendBy = field(body, "extend_by").trim() || undefined;
        const note = field(body, "note").trim() || undefined;
        const decidedBy = process.env.USER ?? "human";
        return told(
          await refusing(() => decideEscalation(ctx, run, gate, { choice: choice.data, extendBy, note, decidedBy, round })),
          (a) => `decision recorded: ${choice.data} (round ${a.round}, ${a.reason})${landedNote(a)}`,
        );
      }
      case "respond": {
        const upload = body.upload;
        const file = upload instanceof File && upload.size > 0 ? upload : null;
        // decoded as the CLI decodes --file: the same bytes are the same review on every face
        const read = async () => (file ? decodeUtf8(new Uint8Array(await file.arrayBuffer()), "the upload") : field(body, "review"));
        const a = await respond(ctx, run, gate, { read, reviewerModel: field(body, "reviewer_model").trim(), round });
        return told(a, (r) => `accepted: result-${r.round}.json (${r.verdict}, reviewer ${r.model})${landedNote(r)}`);
      }
    }
  }

  app.post("/gate/:run/:gate/:action", async (c) => {
    const id = ids(c);
    if (!id) return c.text("refused: not a run and gate\n", 400);
    const action = c.req.param("action");
    if (!(ACTIONS as readonly string[]).includes(action)) return c.text("no such action\n", 404);
    const body = await c.req.parseBody();
    const { run, gate } = id;
    // every form carries the round its page showed, and the action answers that round or none (the gate moved on
    // since: another console, the CLI or a second click acted first); a form without it is not one of this console's
    const round = wholeNumberText(field(body, "round"), 0, MAX_ROUND);
    const outcome: Outcome =
      round === null
        ? { ok: false, text: "the form names no round: reload the page and act again; nothing was written" }
        : await act(action as Action, { ctx: o.ctx(), run, gate, round }, body);
    o.board.refresh(run, gate);
    const noticeId = randomBytes(16).toString("base64url");
    // a refused form's text is the person's work: the page it redirects to gives it back (nothing was written)
    // (a browser sends a textarea's line breaks as CRLF; the page shows the text as typed)
    const typed = Object.fromEntries(
      (DRAFT_FIELDS[action] ?? []).map((k) => [k, field(body, k).replace(/\r\n?/g, "\n")]).filter(([, v]) => v),
    );
    const draft = !outcome.ok && round !== null && Object.keys(typed).length ? { action, round, fields: typed } : undefined;
    notices.set(noticeId, { gate: href(run, gate), outcome, ...(draft ? { draft } : {}) });
    if (notices.size > NOTICES_KEPT) notices.delete(notices.keys().next().value!);
    const drafted = [...notices.values()].filter((n) => n.draft);
    for (const n of drafted.slice(0, Math.max(0, drafted.length - DRAFTS_KEPT))) delete n.draft;
    return c.redirect(`${href(run, gate)}?notice=${noticeId}`, 303);
  });

  return top;
}
