// The CLI's aligned columns hold any number of rows: status lists every gate on disk.
import { describe, expect, it } from "vitest";
import { table } from "../../src/cli/format.js";

describe("table", () => {
  it("aligns more rows than a call takes arguments (status on 150,000 gates)", () => {
    const rows = Array.from({ length: 150_000 }, (_, i) => [`run-${i}`, "G-spec", "satisfied"]);
    const lines = table(["RUN", "GATE", "STATE"], rows);
    expect(lines).toHaveLength(150_001);
    expect(lines[0]).toBe("RUN         GATE    STATE");
    expect(lines[150_000]).toBe("run-149999  G-spec  satisfied");
  });
});
