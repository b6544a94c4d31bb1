// The respond tool tells a client what it takes: reviewer_model is a model id whose family is known, never a
// person's name (the family check refuses one), so a client is not sent after an answer that cannot be accepted.
import { describe, expect, it } from "vitest";
import { respond } from "../../src/commands/author.js";
import { loadContext } from "../../src/bus/context.js";
import { inMemoryMcp } from "../helpers/mcp-client.js";
import { GATE, gateWithPacket } from "../helpers/one-gate.js";

describe("the MCP respond tool", () => {
  it("asks for the exact model id, and a person's name is refused as its description says", async () => {
    const g = await gateWithPacket("respond-id");
    const { client, close } = await inMemoryMcp(g.layout);
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === "respond")!;
      expect(tool.description).toMatch(/reviewer_model is the exact id of the model that reviewed/);
      expect(tool.description).toMatch(/a person's name is refused/);
    } finally {
      await close();
    }
    const answered = await respond(loadContext(g.layout), "respond-id", GATE, {
      read: async () => "Fine.\n\n## SATISFIED\n",
      reviewerModel: "alice",
      via: "codex-mcp-client",
    });
    expect(answered).toMatchObject({ ok: false, error: expect.stringContaining('reviewer model "alice" has no known family') });
  });
});
