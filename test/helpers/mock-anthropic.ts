// A scripted Anthropic Messages API on 127.0.0.1 for the claude real-client tests. It speaks what Claude Code uses:
// POST /v1/messages (SSE when "stream": true — message_start carrying the model, ping, content_block_start/delta/stop,
// message_delta, message_stop — or one JSON message), POST /v1/messages/count_tokens, and HEAD/GET /api/hello (the
// CLI's connectivity probe when non-essential traffic is allowed). Every request is recorded, credentials masked.
import { createServer, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import {
  authOf,
  chunks,
  listenMock,
  maskHeaders,
  type MockEndpoint,
  type MockScript,
  PACKET_MARKER,
  type RecordedRequest,
  type Reply,
  readBody,
  replyText,
  sendJson,
  sequencer,
} from "./cli-review.js";

interface MessagesBody {
  model?: string;
  stream?: boolean;
  system?: unknown;
  messages?: Array<{ role?: string; content?: unknown }>;
  tools?: Array<{ name?: string }>;
}

/** Every text block of a Messages request: the system prompt and each message's content. */
function textOf(body: MessagesBody): string {
  const out: string[] = [];
  const take = (c: unknown) => {
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c)) {
      for (const block of c) {
        if (block && typeof block === "object") {
          const b = block as { type?: string; text?: unknown; content?: unknown };
          if (typeof b.text === "string") out.push(b.text);
          if (b.type === "tool_result") take(b.content);
        }
      }
    }
  };
  take(body.system);
  for (const m of body.messages ?? []) take(m.content);
  return out.join("\n");
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

let ids = 0;

type ContentBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** The assistant's content for a scripted reply: text, or one tool call (then the turn stops for the tool's result). */
function contentOf(reply: Exclude<Reply, { kind: "http" }>, requestText: string): ContentBlock {
  return reply.kind === "tool"
    ? { type: "tool_use", id: `toolu_mock_${++ids}`, name: reply.name, input: reply.args }
    : { type: "text", text: replyText(reply, requestText) };
}

/** How a scripted answer ends: its stop reason, or a reset connection before any. */
interface Ending {
  stop?: string;
  reset?: boolean;
}

function streamMessage(res: ServerResponse, model: string, block: ContentBlock, ending: Ending = {}): void {
  const id = `msg_mock_${++ids}`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 1 },
    },
  });
  ev("ping", {});
  if (block.type === "text") {
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    for (const piece of chunks(block.text)) ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } });
  } else {
    ev("content_block_start", { index: 0, content_block: { ...block, input: {} } });
    for (const piece of chunks(JSON.stringify(block.input)))
      ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: piece } });
  }
  // a reset comes once what came before was sent
  if (ending.reset) return void res.write(": cut\n\n", () => res.destroy());
  ev("content_block_stop", { index: 0 });
  ev("message_delta", {
    delta: { stop_reason: ending.stop ?? stopReason(block), stop_sequence: null },
    usage: { output_tokens: outputTokens(block) },
  });
  ev("message_stop", {});
  res.end();
}

const stopReason = (block: ContentBlock) => (block.type === "tool_use" ? "tool_use" : "end_turn");
const outputTokens = (block: ContentBlock) => Math.ceil(JSON.stringify(block).length / 4);

function plainMessage(res: ServerResponse, model: string, block: ContentBlock): void {
  sendJson(res, 200, {
    id: `msg_mock_${++ids}`,
    type: "message",
    role: "assistant",
    model,
    content: [block],
    stop_reason: stopReason(block),
    stop_sequence: null,
    usage: { input_tokens: 120, output_tokens: outputTokens(block) },
  });
}

export async function startMockAnthropic(script: MockScript = {}): Promise<MockEndpoint> {
  const requests: RecordedRequest[] = [];
  const next = sequencer(script);
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    let body: MessagesBody = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      // recorded as an empty body
    }
    const text = textOf(body);
    const isMessages = req.method === "POST" && url.pathname === "/v1/messages";
    const record: RecordedRequest = {
      method: req.method ?? "",
      path: url.pathname,
      headers: maskHeaders(req.headers),
      auth: authOf((req.headers["x-api-key"] as string | undefined) ?? req.headers.authorization?.replace(/^Bearer /, ""), script.apiKey),
      body,
      text,
      review: isMessages && text.includes(PACKET_MARKER),
      requestedModel: typeof body.model === "string" ? body.model : null,
      replied: "aux",
      closedEarly: false,
    };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.closedEarly = true;
    });

    if (url.pathname === "/api/hello") return void res.writeHead(200).end();
    if (req.method === "POST" && url.pathname === "/v1/messages/count_tokens")
      return sendJson(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
    if (!isMessages)
      return sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `mock: no ${req.method} ${url.pathname}` } });

    const model = record.requestedModel ?? "claude-mock";
    const authored = script.author?.(
      raw,
      (body.tools ?? []).map((t) => t.name ?? ""),
    );
    if (authored) {
      record.replied = "author";
      const block: ContentBlock =
        "tool" in authored
          ? { type: "tool_use", id: `toolu_mock_${++ids}`, name: authored.tool.name, input: authored.tool.args }
          : { type: "text", text: authored.text };
      return body.stream ? streamMessage(res, model, block) : plainMessage(res, model, block);
    }
    if (!record.review) {
      // An auxiliary call (a title, a topic, a quota probe): a short, harmless answer.
      const block: ContentBlock = { type: "text", text: "Review" };
      return body.stream ? streamMessage(res, model, block) : plainMessage(res, model, block);
    }
    const reply: Reply = next();
    record.replied = reply.kind;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if (reply.kind === "http") {
      return sendJson(res, reply.status, {
        type: "error",
        error: { type: ERROR_TYPES[reply.status] ?? "api_error", message: `mock error ${reply.status}` },
      });
    }
    const block = contentOf(reply, text);
    const reported = reply.model ?? model;
    const ending = reply.kind === "result" ? { stop: reply.stop, reset: reply.reset } : {};
    return body.stream ? streamMessage(res, reported, block, ending) : plainMessage(res, reported, block);
  });
  return listenMock(server, requests);
}
