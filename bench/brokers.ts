// Several brokers and verifiers on one tree (`--brokers 1,2,4`): the throughput figure run with k brokers and k
// verifiers for each k, each row beside its floors measured just before it, with the check that no round was
// delivered twice (a conflict — a losing link() — is expected between racing brokers; a second packet or verdict
// for one round is not).
import { durableDeliveries, echoFloor } from "./floors.js";
import { ms } from "./harness.js";
import { throughput } from "./throughput.js";

export async function brokersFigure(counts: number[], gates: number, quick: boolean) {
  const rows = [];
  for (const k of counts) {
    const echo = await echoFloor(quick ? 10 : 30);
    const deliveries = await durableDeliveries(quick ? 200 : 500);
    rows.push({ ...(await throughput(gates, { brokers: k, verifiers: k })), echo_floor: echo, delivery_floor: deliveries });
  }
  return rows;
}

const split = (s: { on_cpu: number; run_queue: number; blocked_or_idle: number }) => `${s.on_cpu}/${s.run_queue}/${s.blocked_or_idle}`;

export function printBrokers(rows: Awaited<ReturnType<typeof brokersFigure>>): void {
  const base = rows.find((r) => r.brokers === 1) ?? rows[0]!;
  console.table(
    rows.map((r) => ({
      figure: `${r.brokers} broker(s) + ${r.verifiers} verifier(s), ${r.gates} gates × 2 rounds`,
      "rounds/s": r.rounds_per_s,
      "first burst rounds/s": r.first_burst?.rounds_per_s ?? "-",
      "vs 1 broker": ms(r.rounds_per_s / base.rounds_per_s),
      "floor: durable deliveries/s": r.delivery_floor.per_s,
      ratio: ms(r.rounds_per_s / r.delivery_floor.per_s),
      lost: r.lost,
      "duplicate rounds": r.duplicates === 0 ? "0 (ok)" : `${r.duplicates} FAIL`,
      "conflicts logged": r.broker_conflicts_logged,
      "round p99 ms": r.round_p99_ms,
      "floor: echo p99 ms": r.echo_floor.p99_ms,
      "p99 ratio": ms(r.round_p99_ms / r.echo_floor.p99_ms),
      "CPU ms/round b/v/bench": `${r.cpu_ms_per_round.brokers}/${r.cpu_ms_per_round.verifiers}/${r.cpu_ms_per_round.bench}`,
      "CPU share": r.cpu_share_of_machine,
      "broker wall: cpu/queue/off": split(r.wall_split.brokers),
      "verifier wall: cpu/queue/off": split(r.wall_split.verifiers),
      load1: r.load1,
    })),
  );
  for (const r of rows.filter((r) => r.duplicates || r.lost)) {
    console.error(`FAIL ${r.brokers} brokers: lost ${r.lost}, duplicate rounds ${r.duplicates}: ${r.duplicate_examples.join("; ")}`);
    process.exitCode = 1;
  }
}
