// A scripted Gemini API (generativelanguage v1beta) on 127.0.0.1 for the gemini real-client tests. It speaks what the
// Gemini CLI uses: POST /v1beta/models/<model>:streamGenerateContent?alt=sse (SSE chunks of candidates/content/parts
// with modelVersion and usageMetadata), :generateContent (the CLI's utility calls — the model router when no model is
// pinned, next-speaker and loop checks — answered with JSON that fits their responseJsonSchema) and :countTokens.
// Every request is recorded, credentials masked.
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

interface Part {
  text?: unknown;
  functionResponse?: unknown;
}

interface GenerateBody {
  contents?: Array<{ role?: string; parts?: Part[] }>;
  systemInstruction?: { parts?: Part[] } | string;
  generationConfig?: { responseJsonSchema?: unknown; responseSchema?: unknown };
  tools?: Array<{ functionDeclarations?: Array<{ name?: string }> }>;
}

function textOf(body: GenerateBody): string {
  const out: string[] = [];
  const take = (parts: Part[] | undefined) => {
    for (const p of parts ?? []) {
      if (typeof p.text === "string") out.push(p.text);
      else if (p.functionResponse) out.push(JSON.stringify(p.functionResponse));
    }
  };
  if (typeof body.systemInstruction === "string") out.push(body.systemInstruction);
  else take(body.systemInstruction?.parts);
  for (const c of body.contents ?? []) take(c.parts);
  return out.join("\n");
}

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

/** A value that satisfies a (simple) JSON schema: what the CLI's utility calls parse. */
function fill(schema: unknown, key = ""): unknown {
  const s = (schema ?? {}) as {
    type?: string;
    properties?: Record<string, unknown>;
    required?: string[];
    enum?: unknown[];
    items?: unknown;
  };
  if (s.enum?.length) return s.enum.includes("user") ? "user" : s.enum[0];
  switch (String(s.type ?? "").toLowerCase()) {
    case "object":
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fill(v, k)]));
    case "array":
      return [];
    case "integer":
    case "number":
      return 50;
    case "boolean":
      return false;
    default:
      return /speaker/i.test(key) ? "user" : "mock";
  }
}

let ids = 0;

function usage(text: string) {
  return { promptTokenCount: 120, candidatesTokenCount: Math.ceil(text.length / 4), totalTokenCount: 120 + Math.ceil(text.length / 4) };
}

/** How a scripted answer ends: its finishReason (STOP unless given), or a reset connection before any. */
interface Ending {
  stop?: string;
  reset?: boolean;
}

function streamAnswer(res: ServerResponse, model: string, text: string, ending: Ending = {}): void {
  const responseId = `mock-${++ids}`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const pieces = chunks(text);
  pieces.forEach((piece, i) => {
    const last = i === pieces.length - 1 && !ending.reset;
    const chunk = {
      candidates: [
        { content: { role: "model", parts: [{ text: piece }] }, index: 0, ...(last ? { finishReason: ending.stop ?? "STOP" } : {}) },
      ],
      ...(last ? { usageMetadata: usage(text) } : {}),
      modelVersion: model,
      responseId,
    };
    res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  });
  // a reset comes once what came before was sent
  if (ending.reset) res.write(": cut\r\n\r\n", () => res.destroy());
  else res.end();
}

/** One function call of the CLI's own tools; the CLI runs it and sends a functionResponse in its next request. */
function streamFunctionCall(res: ServerResponse, model: string, name: string, args: Record<string, unknown>): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = {
    candidates: [{ content: { role: "model", parts: [{ functionCall: { name, args } }] }, index: 0, finishReason: "STOP" }],
    usageMetadata: usage(JSON.stringify(args)),
    modelVersion: model,
    responseId: `mock-${++ids}`,
  };
  res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  res.end();
}

function plainAnswer(res: ServerResponse, model: string, text: string): void {
  sendJson(res, 200, {
    candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: usage(text),
    modelVersion: model,
    responseId: `mock-${++ids}`,
  });
}

const MODEL_PATH_RE = /^\/v1(?:beta|alpha)?\/models\/([^:/]+):([A-Za-z]+)$/;

export async function startMockGemini(script: MockScript = {}): Promise<MockEndpoint> {
  const requests: RecordedRequest[] = [];
  const next = sequencer(script);
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    let body: GenerateBody = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      // recorded as an empty body
    }
    const m = MODEL_PATH_RE.exec(url.pathname);
    const [model, method] = m ? [decodeURIComponent(m[1]!), m[2]!] : [null, null];
    const text = textOf(body);
    const presented = (req.headers["x-goog-api-key"] as string | undefined) ?? url.searchParams.get("key") ?? undefined;
    const record: RecordedRequest = {
      method: req.method ?? "",
      path: `${url.pathname}${url.searchParams.has("alt") ? `?alt=${url.searchParams.get("alt")}` : ""}`,
      headers: maskHeaders(req.headers),
      auth: authOf(presented, script.apiKey),
      body,
      text,
      review: method === "streamGenerateContent" && text.includes(PACKET_MARKER),
      requestedModel: model,
      replied: "aux",
      closedEarly: false,
    };
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.closedEarly = true;
    });

    if (req.method !== "POST" || !m)
      return sendJson(res, 404, { error: { code: 404, message: `mock: no ${req.method} ${url.pathname}`, status: "NOT_FOUND" } });
    if (method === "countTokens") return sendJson(res, 200, { totalTokens: Math.ceil(raw.length / 4) });
    const declared = (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name ?? ""));
    const authored = script.author?.(raw, declared);
    if (authored) {
      record.replied = "author";
      return "tool" in authored
        ? streamFunctionCall(res, model!, authored.tool.name, authored.tool.args)
        : method === "streamGenerateContent"
          ? streamAnswer(res, model!, authored.text)
          : plainAnswer(res, model!, authored.text);
    }
    if (!record.review) {
      // Utility calls: structured JSON when a schema is asked for, else a short text.
      const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
      const answer = schema ? JSON.stringify(fill(schema)) : "Review";
      return method === "streamGenerateContent" ? streamAnswer(res, model!, answer) : plainAnswer(res, model!, answer);
    }
    const reply: Reply = next();
    record.replied = reply.kind;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    if (reply.kind === "http") {
      return sendJson(res, reply.status, {
        error: { code: reply.status, message: `mock error ${reply.status}`, status: STATUS_NAMES[reply.status] ?? "UNKNOWN" },
      });
    }
    if (reply.kind === "tool") return streamFunctionCall(res, reply.model ?? model!, reply.name, reply.args);
    const ending = reply.kind === "result" ? { stop: reply.stop, reset: reply.reset } : {};
    return streamAnswer(res, reply.model ?? model!, replyText(reply, text), ending);
  });
  return listenMock(server, requests);
}
