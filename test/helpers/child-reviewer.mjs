// A command reviewer for the child-process tests: it reads the packet on stdin, logs the round it served into
// argv[3] (one line per dispatch), and then, by argv[2]:
//   grandchild <pidfile>  starts a grandchild (stdio ignored, same process group) that writes its pid to <pidfile> and
//                         sleeps; waits for the pid file, answers satisfied and exits 0, leaving the grandchild behind
//   flood <bytes>         in round 1: prose, a valid `## SATISFIED`, more prose up to <bytes>, then a blocking finding
//                         (past the bus's output cap); in later rounds: a plain satisfied answer
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const [mode, arg, log] = process.argv.slice(2);
const packet = readFileSync(0, "utf8");
const field = (name) => new RegExp(`^${name}: (.+)$`, "m").exec(packet)?.[1]?.trim().replace(/^"|"$/g, "") ?? "";
appendFileSync(log, `${process.env.GUILD_BUS_ROUND} ${field("packet_id")}\n`);
const satisfied = () =>
  JSON.stringify({
    schema_version: "review_result.v1",
    packet_id: field("packet_id"),
    artifact_sha256_reviewed: field("artifact_sha256"),
    verdict: "satisfied",
    summary: "[child-process test reviewer — not a real model]",
    findings: [],
    blocking_findings: [],
  });

/** Write to stdout, honouring backpressure. */
const write = (text) => new Promise((resolve) => (process.stdout.write(text) ? resolve() : process.stdout.once("drain", resolve)));

if (mode === "grandchild") {
  const code = `require("node:fs").writeFileSync(${JSON.stringify(arg)}, String(process.pid)); setInterval(() => {}, 1000);`;
  spawn(process.execPath, ["-e", code], { stdio: "ignore" }).unref();
  while (!existsSync(arg) || !readFileSync(arg, "utf8")) await sleep(20);
  await write(satisfied());
} else if (mode === "flood") {
  if (process.env.GUILD_BUS_ROUND !== "1") {
    await write(satisfied());
  } else {
    const total = Number(arg);
    await write("[child-process test reviewer — not a real model]\nNothing blocks this gate.\n\n## SATISFIED\n\n");
    const line = "Further notes on the export path, all of them settled.\n";
    const block = line.repeat(Math.floor((1 << 20) / line.length));
    for (let sent = 0; sent < total; sent += block.length) await write(block);
    await write("- blocking: the export writes customer data to a world-readable file\n");
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
