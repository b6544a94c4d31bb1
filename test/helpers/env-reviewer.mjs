// A scripted reviewer that records what it was given — the packet on stdin and its whole environment — into the
// directory named by argv[2], then answers "satisfied" for the packet it read. For the secrets tests.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const dir = process.argv[2];
const packet = readFileSync(0, "utf8");
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, `${process.pid}.packet.md`), packet);
writeFileSync(path.join(dir, `${process.pid}.env.json`), JSON.stringify(process.env));
const field = (name) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)?.[1]?.trim() ?? "";
process.stdout.write(
  JSON.stringify({
    schema_version: "review_result.v1",
    packet_id: field("packet_id"),
    artifact_sha256_reviewed: field("artifact_sha256"),
    verdict: "satisfied",
    summary: "[env-recording reviewer — not a real model]",
    findings: [],
    blocking_findings: [],
  }),
);
