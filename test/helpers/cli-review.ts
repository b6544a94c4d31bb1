// Shared pieces of the claude and gemini real-client tests: the scripted answers both mock endpoints give, the
// recording shape, and async CLI helpers (the mock lives in the test process, so a blocking spawnSync would starve it).
import { readdirSync, readFileSync } from "node:fs";
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthorBrain } from "./mock-author.js";

// ---------------------------------------------------------------------------------------------------------------
// What a mock answers, per review request (a request that carries a packet), in order; auxiliary requests never
// consume a step.

export type Reply =
  /**
   * A fenced review_result.v1 block echoing the packet_id and artifact_sha256 found in the request. `stop`: the stream
   * ends with this stop reason (Anthropic stop_reason, Gemini finishReason) instead of the model's own end; `reset`:
   * the connection is reset after the text, before any stop reason (an answer cut off mid-stream).
   */
  | { kind: "result"; verdict: "satisfied" | "issues"; model?: string; delayMs?: number; stop?: string; reset?: boolean }
  /** Prose ending in a valid `## SATISFIED` sentinel. */
  | { kind: "sentinel"; model?: string; delayMs?: number }
  /** A fenced block that is not JSON (the worker then asks for one schema repair). */
  | { kind: "malformed"; model?: string; delayMs?: number }
  | { kind: "text"; text: string; model?: string; delayMs?: number }
  /**
   * A call of one of the CLI's own tools (read a file, write one): the CLI runs it and sends the result back in its
   * next request, which carries the packet again and so takes the next step.
   */
  | { kind: "tool"; name: string; args: Record<string, unknown>; model?: string; delayMs?: number }
  /** An HTTP error status (with the provider's error body). */
  | { kind: "http"; status: number; delayMs?: number };

export interface MockScript {
  /** The API key the mock expects; requests are recorded as auth match/mismatch/missing. */
  apiKey?: string;
  /** Replies to review requests, in order; after the script runs out, `fallback` (default: satisfied). */
  script?: Reply[];
  fallback?: Reply;
  /** An author model (test/helpers/mock-author.ts): it answers every request that offers guild-bus's tools. */
  author?: AuthorBrain;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** Headers with credential values replaced by "[present]". */
  headers: Record<string, string>;
  auth: "match" | "mismatch" | "missing";
  body: unknown;
  /** Every text part of the request (system prompt and messages), joined. */
  text: string;
  /** Whether the request carries a review packet (it is a review request, not an auxiliary call). */
  review: boolean;
  requestedModel: string | null;
  /** The reply kind it got ("aux" for auxiliary calls). */
  replied: string;
  /** The client went away before the answer was complete (killed during a slow answer). */
  closedEarly: boolean;
}

const SECRET_HEADERS = new Set(["x-api-key", "authorization", "x-goog-api-key", "proxy-authorization", "cookie"]);

export function maskHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = SECRET_HEADERS.has(k.toLowerCase()) ? "[present]" : Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

export function authOf(presented: string | undefined, expected: string | undefined): RecordedRequest["auth"] {
  if (!presented) return "missing";
  return expected !== undefined && presented === expected ? "match" : "mismatch";
}

/** The marker every packet carries in its front matter. */
export const PACKET_MARKER = "schema_version: guild_bus.packet.v1";

export function packetFields(text: string): { packetId: string; sha: string } {
  const field = (name: string) => new RegExp(`^${name}: (.+)$`, "m").exec(text)?.[1]?.trim().replace(/^"|"$/g, "") ?? "";
  return { packetId: field("packet_id"), sha: field("artifact_sha256") };
}

export const MOCK_LABEL = "[mock endpoint — scripted answer, not a real model]";
export const MOCK_FINDING = "Mock blocking finding: the latency target has no measurement method";

/** The text a scripted reply produces for a review request. */
export function replyText(reply: Exclude<Reply, { kind: "http" | "tool" }>, requestText: string): string {
  const { packetId, sha } = packetFields(requestText);
  switch (reply.kind) {
    case "result": {
      const findings =
        reply.verdict === "issues"
          ? [
              {
                severity: "blocking",
                title: MOCK_FINDING,
                detail: "State how the 95th percentile is measured and where.",
                evidence: "Acceptance criteria",
              },
            ]
          : [];
      const body = {
        schema_version: "review_result.v1",
        packet_id: packetId,
        artifact_sha256_reviewed: sha,
        verdict: reply.verdict,
        summary: `${MOCK_LABEL} ${findings.length} blocking finding(s).`,
        findings,
        blocking_findings: findings,
      };
      return `I reviewed the artifact.\n\n\`\`\`review_result.v1\n${JSON.stringify(body, null, 2)}\n\`\`\`\n`;
    }
    case "sentinel":
      return `${MOCK_LABEL}\nThe acceptance criteria are measurable and complete; nothing blocks this gate.\n\n## SATISFIED\n`;
    case "malformed":
      return "```review_result.v1\n{ this is not json\n```\n";
    case "text":
      return reply.text;
  }
}

/** A sequencer over the script: each review request takes the next reply. */
export function sequencer(script: MockScript): () => Reply {
  let n = 0;
  return () => script.script?.[n++] ?? script.fallback ?? { kind: "result", verdict: "satisfied" };
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

/** A scripted endpoint: where it listens, what it was sent, and the requests that carried a review packet. */
export interface MockEndpoint {
  url: string;
  requests: RecordedRequest[];
  reviewRequests(): RecordedRequest[];
  close(): Promise<void>;
}

/** Listen on a free 127.0.0.1 port; the mock's url, its recorded requests, and a close that drops open connections. */
export async function listenMock(server: Server, requests: RecordedRequest[]): Promise<MockEndpoint> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reviewRequests: () => requests.filter((r) => r.review),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Split a text into a few chunks, so streaming clients reassemble deltas. */
export function chunks(text: string, parts = 3): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}

// The artifact carrying known secrets, and the async CLI helpers, are shared with the codex and http suites.
export {
  ARTIFACT_LINE,
  type CliResult,
  cliAsync,
  type GateStatus,
  guildText,
  SECRETS,
  SPEC,
  statusAsync,
  waitStateAsync,
} from "./clients.js";

/** Run fn with some process.env entries replaced (children spawned inside inherit them), then restore. */
export function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (entries: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(entries)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(vars);
  try {
    return fn();
  } finally {
    set(saved);
  }
}

/** Pids of live processes whose command line mentions `needle` (Linux /proc). */
export function processesMentioning(needle: string): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return pids;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ");
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (/\) Z /.test(stat)) continue; // a zombie is already dead
      if (cmdline.includes(needle)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
