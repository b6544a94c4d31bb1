// The chain walk of one claimed round: an answer that arrived whole is kept even when the claim was lost after it
// (the files settle a takeover's failure, SPEC §15); a lost claim stops every further paid dispatch.
import { describe, expect, it } from "vitest";
import type { ReviewerAdapter } from "../../src/adapters/types.js";
import type { DispatchOutcome } from "../../src/core/dispatch-outcome.js";
import { type RunnableLink, runChain, type Walk } from "../../src/workers/reviewer-dispatch.js";
import { packet } from "../helpers/snapshots.js";
import { ProviderConfig } from "../../src/spec/schemas.js";

function walkWith(outcomes: DispatchOutcome[], fencedAfter: number): { walk: Walk; calls: () => number } {
  let calls = 0;
  const walk: Walk = {
    packet: packet(1),
    tier: "regular",
    aliases: undefined,
    scrub: {},
    fenced: () => calls >= fencedAfter,
    dispatch: async () => outcomes[calls++]!,
  };
  return { walk, calls: () => calls };
}
const link = (id: string): RunnableLink => ({
  id,
  config: ProviderConfig.parse({ adapter: "command", model: "gpt-5", argv: ["x"] }),
  adapter: {} as ReviewerAdapter,
});

describe("runChain when the claim is lost", () => {
  it("keeps an answer that arrived whole, and records its dispatch", async () => {
    const { walk } = walkWith([{ kind: "output", text: "## SATISFIED\n" }], 1);
    const ran = await runChain([link("a")], "packet", walk);
    expect(ran).toMatchObject({ kind: "answered", answer: { kind: "output" } });
    expect(ran.kind === "answered" && ran.attempts).toHaveLength(1);
  });

  it("stops at a dispatch that did not answer: no fallback is tried without the claim", async () => {
    const { walk, calls } = walkWith(
      [
        { kind: "not-run", reason: "not logged in" },
        { kind: "output", text: "## SATISFIED\n" },
      ],
      1,
    );
    expect(await runChain([link("a"), link("b")], "packet", walk)).toEqual({ kind: "fenced" });
    expect(calls()).toBe(1);
  });
});
