// The http adapter reads one chat-completions body as the answer: a body that says the answer is incomplete, or
// that the bus's JSON rules refuse, is never read as a review (a cut or doubled answer could read as a pass).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { httpAdapter } from "../../src/adapters/http.js";
import { ProviderConfig } from "../../src/spec/schemas.js";
import { DIRECT_PROMPT, directInput } from "../helpers/clients.js";
import { tempRoot } from "../helpers/tmp.js";

const KEY_ENV = "GUILD_BUS_TEST_HTTP_ANSWER_KEY";
let server: http.Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** Serve `body` (as it is) to every request; the requests' count is returned by `served()`. */
async function serve(body: string): Promise<{ url: string; served: () => number }> {
  let n = 0;
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      n++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`, served: () => n };
}

async function dispatch(body: string) {
  const { url, served } = await serve(body);
  process.env[KEY_ENV] = "test-key-0123456789";
  const config = ProviderConfig.parse({ adapter: "http", model: "gpt-5", base_url: url, api_key_env: KEY_ENV, timeout_ms: 5000 });
  const out = await httpAdapter.dispatch(directInput(tempRoot("guild-bus-http-answer-"), "api", config, DIRECT_PROMPT));
  return { out, served: served() };
}

const answer = (verdict: string) =>
  "```review_result.v1\n" +
  JSON.stringify({ packet_id: "pkt-direct-1", artifact_sha256_reviewed: "a".repeat(64), verdict, findings: [], blocking_findings: [] }) +
  "\n```";
const completion = (content: string, finish: unknown = "stop") =>
  JSON.stringify({ model: "gpt-5", choices: [{ index: 0, finish_reason: finish, message: { role: "assistant", content } }] });

describe("http adapter: what the body says of its answer", () => {
  it("an answer the endpoint may have cut off (any finish_reason but the model's own end) is ambiguous, never read", async () => {
    // the model had begun to withdraw its pass when its token limit cut it: the cut-off block is no candidate
    const cut = `${answer("satisfied")}\n\nCorrection: I must withdraw this.\n\n\`\`\`review_result.v1\n{"verdict": "iss`;
    // OpenAI's names, then other servers' (Mistral, Anthropic-style, DeepSeek), then a reason no server documents
    for (const finish of ["length", "content_filter", "model_length", "max_tokens", "error", "insufficient_system_resource", 7]) {
      const { out, served } = await dispatch(completion(cut, finish));
      expect(out).toMatchObject({ kind: "ambiguous", reason: expect.stringContaining(`finish_reason ${JSON.stringify(finish)}`) });
      expect(served).toBe(1);
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
  });

  it("an answer that ended on its own (stop and its other names, or no finish_reason) is the output", async () => {
    for (const finish of ["stop", "end_turn", "stop_sequence", "eos", "eos_token", "STOP", undefined, null]) {
      const { out } = await dispatch(completion(answer("satisfied"), finish));
      expect(out).toMatchObject({ kind: "output", text: answer("satisfied"), reportedModel: "gpt-5" });
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
  });

  it("a body that names a key twice (two contents, two choices) is ambiguous: no parser's pick is the answer", async () => {
    const issues = JSON.stringify(answer("issues"));
    const satisfied = JSON.stringify(answer("satisfied"));
    for (const body of [
      `{"model":"gpt-5","choices":[{"finish_reason":"stop","message":{"role":"assistant","content":${issues},"content":${satisfied}}}]}`,
      `{"model":"gpt-5","choices":[{"message":{"content":${issues}}}],"choices":[{"message":{"content":${satisfied}}}]}`,
    ]) {
      const { out } = await dispatch(body);
      expect(out).toMatchObject({ kind: "ambiguous", reason: expect.stringContaining("duplicate key") });
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
    const deep = `{"model":"gpt-5","choices":[{"message":{"content":${satisfied}}}],"x":${"[".repeat(100)}${"]".repeat(100)}}`;
    expect((await dispatch(deep)).out).toMatchObject({ kind: "ambiguous", reason: expect.stringContaining("nested deeper") });
  });
});
