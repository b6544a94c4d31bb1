// A command reviewer that prints a canned answer (the file named by argv[2]) for every dispatch, with {{packet_id}}
// and {{sha}} filled from the packet on stdin: for answers a model may give that the scripted reviewer has no
// behaviour for (repeated keys, deep nesting, quoted sentinels, a model claim).
import { readFileSync } from "node:fs";

const packet = readFileSync(0, "utf8");
const field = (name) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)?.[1]?.trim().replace(/^"|"$/g, "") ?? "";
process.stdout.write(
  readFileSync(process.argv[2], "utf8").replaceAll("{{packet_id}}", field("packet_id")).replaceAll("{{sha}}", field("artifact_sha256")),
);
