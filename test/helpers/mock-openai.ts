// A scripted OpenAI-compatible endpoint on 127.0.0.1 for the real-client tests: /v1/responses (streamed SSE, what
// codex speaks) and /v1/chat/completions (JSON, what the http adapter speaks). No model is called: every answer comes
// from a script, and every request is recorded (authorization values are never kept).
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import net from "node:net";
import type { AuthorBrain } from "./mock-author.js";

export type Behaviour =
  /** A review_result.v1 answer (whole JSON when the request asked for structured output, else a fenced block). */
  | "satisfied"
  | "issues"
  /** Prose ending in a valid `## SATISFIED` line. */
  | "sentinel"
  /** A fenced review_result.v1 block that is not JSON. */
  | "malformed"
  /** Close the connection without answering. */
  | "drop"
  /** 200 with a body that is neither JSON nor SSE. */
  | "not-json"
  /** The same, quoting the bearer key it was sent where a 200-character cut splits it (a gateway's debug page). */
  | "not-json-echo"
  /** An HTTP error with an OpenAI-style error body, e.g. "status-401". */
  | `status-${number}`
  /** 400: the requested reasoning effort is not supported by the model (OpenAI's unsupported_value on the effort). */
  | "effort-unsupported"
  /** 404: the requested model does not exist (OpenAI's model_not_found). */
  | "model-unknown"
  /** A call of one of the client's own tools (`tool` in the step); the client runs it and sends its output next. */
  | "tool";

export interface Step {
  behaviour: Behaviour;
  /** The model the endpoint reports it ran (default: the script's model, else the requested model). */
  model?: string;
  /** Wait this long before answering (a slow reviewer); nothing is sent if the client has gone by then. */
  delayMs?: number;
  /** Force the answer's shape for satisfied/issues. */
  format?: "json" | "fenced";
  /** For behaviour "tool": the function and its arguments. */
  tool?: { name: string; args: Record<string, unknown> };
}

export interface MockScript {
  /** Per request, in arrival order (a schema-repair request is a request too); then `default`. */
  sequence?: Array<Behaviour | Step>;
  default?: Behaviour | Step;
  /** Reported model for every answer unless a step says otherwise. */
  model?: string;
  /** When set, a request without `Authorization: Bearer <apiKey>` gets a 401. */
  apiKey?: string;
  /** An author model (test/helpers/mock-author.ts): it answers every request that offers guild-bus's tools. */
  author?: AuthorBrain;
}

export interface RecordedRequest {
  n: number;
  method: string;
  path: string;
  /** Request headers, authorization removed. */
  headers: Record<string, string | string[] | undefined>;
  /** Whether an authorization header came, and whether it matched the script's apiKey. */
  auth: "none" | "match" | "mismatch" | "present";
  raw: string;
  body: Record<string, unknown> | null;
  /** The user-role text (the packet, or packet plus repair request). */
  prompt: string;
  packetId: string;
  artifactSha256: string;
  isRepair: boolean;
  structured: boolean;
  requestedModel: string | null;
  /** reasoning_effort (chat completions) or reasoning.effort (responses), as sent. */
  requestedEffort: string | null;
  behaviour: Behaviour;
  reportedModel: string;
  /** The client closed the connection before the answer was complete (a killed or aborted client). */
  clientClosed: boolean;
  answered: boolean;
}

export interface MockOpenAI {
  /** Base URL including /v1, for settings.providers.<id>.base_url. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  script: MockScript;
  close(): Promise<void>;
}

const LABEL = "[mock reviewer — not a real model]";

function field(text: string, name: string): string {
  return new RegExp(`^${name}: (.+)$`, "m").exec(text)?.[1]?.trim().replace(/^"|"$/g, "") ?? "";
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((c) => (c && typeof c === "object" && typeof (c as { text?: unknown }).text === "string" ? (c as { text: string }).text : ""))
      .join("\n");
  }
  return "";
}

/** The user-role text of a responses or chat-completions request. */
function promptOf(body: Record<string, unknown> | null): string {
  if (!body) return "";
  const items = Array.isArray(body.input)
    ? body.input
    : Array.isArray(body.messages)
      ? body.messages
      : typeof body.input === "string"
        ? [{ role: "user", content: body.input }]
        : [];
  return items
    .filter((i): i is { role: string; content: unknown } => !!i && typeof i === "object" && (i as { role?: unknown }).role === "user")
    .map((i) => textOf(i.content))
    .join("\n");
}

function isStructured(body: Record<string, unknown> | null): boolean {
  const text = body?.text as { format?: { type?: unknown } } | undefined;
  const rf = body?.response_format as { type?: unknown } | undefined;
  return text?.format?.type === "json_schema" || rf?.type === "json_schema";
}

export function answerText(req: Pick<RecordedRequest, "packetId" | "artifactSha256" | "structured">, step: Step): string {
  switch (step.behaviour) {
    case "satisfied":
    case "issues": {
      const findings =
        step.behaviour === "issues"
          ? [
              {
                id: "F1",
                severity: "blocking",
                title: "Mock blocking finding",
                detail: "Planned by the mock script.",
                evidence: "Acceptance criteria",
              },
            ]
          : [];
      const body = {
        schema_version: "review_result.v1",
        packet_id: req.packetId,
        artifact_sha256_reviewed: req.artifactSha256,
        verdict: step.behaviour,
        summary: `${LABEL} ${findings.length ? `${findings.length} blocking finding(s).` : "No blocking findings."}`,
        findings,
        blocking_findings: findings,
      };
      const json = (step.format ?? (req.structured ? "json" : "fenced")) === "json";
      return json ? JSON.stringify(body) : `Review follows.\n\n\`\`\`review_result.v1\n${JSON.stringify(body, null, 2)}\n\`\`\`\n`;
    }
    case "sentinel":
      return `${LABEL}\nThe spec states measurable acceptance criteria and nothing blocks it.\n\n## SATISFIED\n`;
    case "malformed":
      return "```review_result.v1\n{ not json, verdict: maybe\n```\n";
    default:
      return "";
  }
}

const usage = {
  input_tokens: 120,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 40,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 160,
};

function writeResponsesStream(res: http.ServerResponse, n: number, model: string, text: string): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "openai-model": model,
    "x-request-id": `req_mock_${n}`,
  });
  const id = `resp_mock_${n}`;
  const itemId = `msg_mock_${n}`;
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const response = {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "in_progress",
    model,
    output: [] as unknown[],
  };
  send("response.created", { response });
  send("response.in_progress", { response });
  send("response.output_item.added", {
    output_index: 0,
    item: { id: itemId, type: "message", role: "assistant", status: "in_progress", content: [] },
  });
  send("response.content_part.added", {
    item_id: itemId,
    output_index: 0,
    content_index: 0,
    part: { type: "output_text", text: "", annotations: [] },
  });
  for (let i = 0; i < text.length; i += 200) {
    send("response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta: text.slice(i, i + 200) });
  }
  send("response.output_text.done", { item_id: itemId, output_index: 0, content_index: 0, text });
  const part = { type: "output_text", text, annotations: [] };
  send("response.content_part.done", { item_id: itemId, output_index: 0, content_index: 0, part });
  const item = { id: itemId, type: "message", role: "assistant", status: "completed", content: [part] };
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: { ...response, status: "completed", output: [item], usage } });
  res.end();
}

/** One function call in a Responses stream: the client runs the tool and sends a function_call_output next. */
function writeFunctionCall(res: http.ServerResponse, n: number, model: string, tool: NonNullable<Step["tool"]>): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "openai-model": model,
    "x-request-id": `req_mock_${n}`,
  });
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  const response = {
    id: `resp_mock_${n}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "in_progress",
    model,
    output: [] as unknown[],
  };
  // a namespaced function (`mcp__server__tool`, as toolNames() lists it) is called by its namespace and name
  const namespaced = /^(mcp__.+)__([^_].*)$/.exec(tool.name);
  const item = {
    id: `fc_mock_${n}`,
    type: "function_call",
    status: "completed",
    call_id: `call_mock_${n}`,
    ...(namespaced ? { namespace: namespaced[1], name: namespaced[2] } : { name: tool.name }),
    arguments: JSON.stringify(tool.args),
  };
  send("response.created", { response });
  send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", arguments: "" } });
  send("response.function_call_arguments.done", { item_id: item.id, output_index: 0, arguments: item.arguments });
  send("response.output_item.done", { output_index: 0, item });
  send("response.completed", { response: { ...response, status: "completed", output: [item], usage } });
  res.end();
}

function writeChatCompletion(res: http.ServerResponse, n: number, model: string, text: string): void {
  res.writeHead(200, { "content-type": "application/json", "openai-model": model });
  res.end(
    JSON.stringify({
      id: `chatcmpl-mock-${n}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop" }],
      usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
    }),
  );
}

type ToolDecl = { type?: string; name?: string; function?: { name?: string }; tools?: ToolDecl[] };

/** The functions a request offers; a namespace's (codex puts each MCP server's tools in one) as `<namespace>__<name>`. */
function toolNames(body: Record<string, unknown> | null): string[] {
  const tools = Array.isArray(body?.tools) ? (body.tools as ToolDecl[]) : [];
  return tools.flatMap((t) =>
    t.type === "namespace" ? (t.tools ?? []).map((f) => `${t.name}__${f.name}`) : [t.name ?? t.function?.name ?? ""],
  );
}

const asStep = (b: Behaviour | Step): Step => (typeof b === "string" ? { behaviour: b } : b);

export async function startMockOpenAI(script: MockScript = {}): Promise<MockOpenAI> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const mock = { requests, script } as MockOpenAI;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> | null;
      try {
        const parsed = JSON.parse(raw);
        body = parsed && typeof parsed === "object" ? parsed : null;
      } catch {
        body = null;
      }
      const { authorization, ...headers } = req.headers;
      const n = requests.length + 1;
      const s = mock.script;
      const authored = s.author?.(raw, toolNames(body));
      const step = authored
        ? "tool" in authored
          ? asStep({ behaviour: "tool", tool: authored.tool })
          : asStep("sentinel")
        : asStep(s.sequence?.[n - 1] ?? s.default ?? "satisfied");
      const prompt = promptOf(body);
      const requestedModel = typeof body?.model === "string" ? body.model : null;
      const effort = body?.reasoning_effort ?? (body?.reasoning as { effort?: unknown } | undefined)?.effort;
      const requestedEffort = typeof effort === "string" ? effort : null;
      const auth: RecordedRequest["auth"] = !authorization
        ? "none"
        : !s.apiKey
          ? "present"
          : authorization === `Bearer ${s.apiKey}`
            ? "match"
            : "mismatch";
      const rec: RecordedRequest = {
        n,
        method: req.method ?? "",
        path: req.url ?? "",
        headers,
        auth,
        raw,
        body,
        prompt,
        packetId: field(prompt, "packet_id"),
        artifactSha256: field(prompt, "artifact_sha256"),
        isRepair: prompt.includes("## Schema repair"),
        structured: isStructured(body),
        requestedModel,
        requestedEffort,
        behaviour: step.behaviour,
        reportedModel: step.model ?? s.model ?? requestedModel ?? "gpt-mock",
        clientClosed: false,
        answered: false,
      };
      requests.push(rec);
      res.on("close", () => {
        if (!res.writableFinished) rec.clientClosed = true;
      });
      const answer = () => {
        if (res.destroyed || rec.clientClosed) return;
        rec.answered = true;
        const route = (req.url ?? "").replace(/\?.*$/, "");
        if (s.apiKey && auth !== "match") {
          res.writeHead(401, { "content-type": "application/json" });
          return void res.end(
            JSON.stringify({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" } }),
          );
        }
        if (step.behaviour === "drop") return void req.socket.destroy();
        if (step.behaviour.startsWith("status-")) {
          const status = Number(step.behaviour.slice("status-".length));
          res.writeHead(status, { "content-type": "application/json" });
          return void res.end(
            JSON.stringify({
              error: {
                message: `mock error ${status}`,
                type: status >= 500 ? "server_error" : "invalid_request_error",
                code: `mock_${status}`,
              },
            }),
          );
        }
        if (step.behaviour === "effort-unsupported") {
          const param = route.endsWith("/responses") ? "reasoning.effort" : "reasoning_effort";
          res.writeHead(400, { "content-type": "application/json" });
          return void res.end(
            JSON.stringify({
              error: {
                message:
                  `Unsupported value: '${param}' does not support '${requestedEffort}' with this model. ` +
                  "Supported values are: 'low', 'medium', and 'high'.",
                type: "invalid_request_error",
                param,
                code: "unsupported_value",
              },
            }),
          );
        }
        if (step.behaviour === "model-unknown") {
          res.writeHead(404, { "content-type": "application/json" });
          return void res.end(
            JSON.stringify({
              error: {
                message: `The model \`${requestedModel}\` does not exist or you do not have access to it.`,
                type: "invalid_request_error",
                param: null,
                code: "model_not_found",
              },
            }),
          );
        }
        if (step.behaviour === "not-json-echo") {
          res.writeHead(200, { "content-type": "text/html" });
          return void res.end(`${"x".repeat(180)} key=${String(authorization).replace(/^Bearer /, "")} rejected`);
        }
        if (step.behaviour === "not-json") {
          res.writeHead(200, { "content-type": "text/html" });
          return void res.end("<html><body>gateway says hello</body></html>");
        }
        if (step.behaviour === "tool" && step.tool && route.endsWith("/responses"))
          return writeFunctionCall(res, n, rec.reportedModel, step.tool);
        const text = authored && "text" in authored ? authored.text : answerText(rec, step);
        if (route.endsWith("/responses")) return writeResponsesStream(res, n, rec.reportedModel, text);
        if (route.endsWith("/chat/completions")) return writeChatCompletion(res, n, rec.reportedModel, text);
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${route}`, type: "invalid_request_error", code: "not_found" } }));
      };
      if (step.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer();
        }, step.delayMs);
        timers.add(t);
      } else {
        answer();
      }
    });
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  mock.port = port;
  mock.url = `http://127.0.0.1:${port}/v1`;
  mock.close = async () => {
    for (const t of timers) clearTimeout(t);
    timers.clear();
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return mock;
}

/** A 127.0.0.1 port with nothing listening (connections are refused). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
