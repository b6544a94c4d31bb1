// Where a packet body keeps the artifact: the console diffs these bytes between rounds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { embeddedArtifact, renderPacketBody } from "../../src/core/packet-body.js";
import { packet } from "../helpers/snapshots.js";

describe("embeddedArtifact", () => {
  it("gives back exactly the artifact a packet body embeds, whatever fences and headings it holds", () => {
    fc.assert(
      fc.property(fc.string(), fc.boolean(), (text, newline) => {
        const artifact = text.replace(/\r/g, "") + (newline ? "\n" : "");
        const body = renderPacketBody(packet(1), artifact, [], new Map());
        expect(embeddedArtifact(body)).toBe(artifact.replace(/\n$/, "") + "\n");
      }),
    );
    const tricky = "# A\n\n## Artifact `x`\n\n```\nnot the end\n````\n```` inner\n";
    expect(embeddedArtifact(renderPacketBody(packet(1), tricky, [], new Map()))).toBe(tricky);
  });

  it("is null for a nightmare packet, which lists paths instead", () => {
    expect(embeddedArtifact(renderPacketBody(packet(1, { difficulty: "nightmare" }), "# A\n", [], new Map()))).toBeNull();
  });
});
