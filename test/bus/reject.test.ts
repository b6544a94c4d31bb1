// A file moved aside keeps a reason beside it, whatever the reason quotes: a reason of megabytes (a planted result's
// packet id, quoted) is cut, so the move always happens and the round is never held by a file that cannot be moved.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { rejectFile } from "../../src/bus/reject.js";
import { tempRoot } from "../helpers/tmp.js";

describe("rejectFile", () => {
  it("moves the file aside with its reason, cut when it is huge", async () => {
    const root = tempRoot();
    const guild = path.join(root, ".guild");
    const gateDir = path.join(guild, "runs", "r1", "review", "G-spec");
    mkdirSync(gateDir, { recursive: true });
    writeFileSync(path.join(gateDir, "result-1.json"), "{}");
    const reason = `names packet ${JSON.stringify('"'.repeat(3 * 1024 * 1024))}`;
    const target = await rejectFile(gateDir, "result-1.json", reason, { guildDir: guild, scrub: {} });
    expect(target).toMatch(/^result-1\.json\./);
    expect(readdirSync(gateDir)).toEqual(["rejected"]);
    const recorded = JSON.parse(readFileSync(path.join(gateDir, "rejected", `${target}.reason.json`), "utf8")) as { reason: string };
    expect(recorded.reason.startsWith("names packet")).toBe(true);
    expect(recorded.reason.length).toBeLessThan(5000);
  });

  it("moves a file whose name is too long to take a suffix, under a shortened name; the reason keeps the whole name", async () => {
    const root = tempRoot();
    const guild = path.join(root, ".guild");
    const gateDir = path.join(guild, "runs", "r1", "review", "G-spec");
    mkdirSync(gateDir, { recursive: true });
    for (const name of [`result-${"0".repeat(220)}.json`, `memory-1.${"é".repeat(115)}.md`]) {
      writeFileSync(path.join(gateDir, name), "{}");
      const target = await rejectFile(gateDir, name, "junk", { guildDir: guild, scrub: {} });
      expect(target).not.toBeNull();
      expect(Buffer.byteLength(`${target}.reason.json`)).toBeLessThan(200);
      expect(readdirSync(gateDir)).toEqual(["rejected"]);
      const recorded = JSON.parse(readFileSync(path.join(gateDir, "rejected", `${target}.reason.json`), "utf8")) as { file: string };
      expect(recorded.file).toBe(name);
      expect(readFileSync(path.join(gateDir, "rejected", target!), "utf8")).toBe("{}");
    }
  });
});
