// Two machines on one host for the network-filesystem test: two network namespaces joined by a veth pair, sshd in
// the server's, and the server's project directory mounted with sshfs (FUSE) from the client's. Processes join a
// side with `nsenter --net` only, so every process shares the host's mount table and sees the one sshfs mount.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** statfs f_type of every FUSE filesystem (fuse.sshfs among them). */
export const FUSE_SUPER_MAGIC = 0x65735546;
const TOOLS = ["ip", "nsenter", "sshfs", "/usr/sbin/sshd", "ssh-keygen", "fusermount3"];

/** Why two network namespaces with an sshfs mount cannot be built here, or null when they can. */
export function netfsUnavailable(): string | null {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "not root: ip netns and veth need root";
  if (!existsSync("/dev/fuse")) return "no /dev/fuse";
  const missing = TOOLS.filter((t) => !onPath(t));
  if (missing.length) return `missing ${missing.join(", ")} (Debian: apt-get install iproute2 util-linux openssh-server sshfs)`;
  return null;
}

function onPath(tool: string): boolean {
  if (tool.includes("/")) return existsSync(tool);
  return (process.env.PATH ?? "").split(":").some((dir) => dir && existsSync(path.join(dir, tool)));
}

/** Namespaces an earlier run of this test left behind when it was killed (its pid is in the name): removed with their processes. */
function sweepStale(): void {
  const listed = spawnSync("ip", ["netns", "list"], { encoding: "utf8" }).stdout ?? "";
  for (const name of listed.split("\n").map((l) => l.split(" ")[0]!)) {
    const owner = /^gbus[AB](\d+)x\d+$/.exec(name)?.[1];
    if (!owner || alive(Number(owner))) continue;
    const pids = (spawnSync("ip", ["netns", "pids", name], { encoding: "utf8" }).stdout ?? "").split(/\s+/).filter(Boolean);
    for (const pid of pids) if (alive(Number(pid))) process.kill(Number(pid), "SIGKILL");
    spawnSync("ip", ["netns", "del", name], { stdio: "ignore" });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function run(argv: string[]): void {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr}`);
}

export interface NetFs {
  /** The project on the server (side A): broker, verifier and the author use it directly. */
  exportDir: string;
  /** The same project over sshfs on the client (side B): the reviewer's root. */
  mountDir: string;
  /** argv prefix that runs a program on side "A" or "B" (its network namespace, the host's mount table). */
  on(side: "A" | "B"): string[];
  /** Bring the client's end of the link down or up. */
  link(up: boolean): void;
  logs: string[];
  close(): Promise<void>;
}

/** Build both sides and mount; close() undoes whatever was built, also after a failure halfway. */
export async function makeNetFs(exportDir: string, deadlineMs: number): Promise<NetFs> {
  sweepStale();
  const id = `${process.pid}x${Math.floor(Math.random() * 1000)}`;
  const ns = { A: `gbusA${id}`, B: `gbusB${id}` };
  const veth = { A: `gba${id}`, B: `gbb${id}` };
  const net = `10.${100 + Math.floor(Math.random() * 100)}.${Math.floor(Math.random() * 250)}`;
  const work = mkdtempSync(path.join(tmpdir(), "guild-bus-netfs-"));
  const mountDir = path.join(work, "mnt");
  mkdirSync(mountDir);
  const children: ChildProcess[] = [];
  const logs: string[] = [];
  const made: Array<() => void> = [];
  const on = (side: "A" | "B") => ["nsenter", `--net=/run/netns/${ns[side]}`];
  const start = (argv: string[], tag: string) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (b: Buffer) => logs.push(`${tag}: ${b}`));
    child.stderr!.on("data", (b: Buffer) => logs.push(`${tag}: ${b}`));
    children.push(child);
    return child;
  };
  const close = async () => {
    spawnSync("fusermount3", ["-u", "-z", mountDir], { stdio: "ignore" });
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    while (made.length) made.pop()!();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    for (const side of ["A", "B"] as const) {
      run(["ip", "netns", "add", ns[side]]);
      made.push(() => spawnSync("ip", ["netns", "del", ns[side]], { stdio: "ignore" }));
    }
    run(["ip", "link", "add", veth.A, "type", "veth", "peer", "name", veth.B]);
    for (const [side, host] of [
      ["A", 1],
      ["B", 2],
    ] as const) {
      run(["ip", "link", "set", veth[side], "netns", ns[side]]);
      run(["ip", "-n", ns[side], "addr", "add", `${net}.${host}/30`, "dev", veth[side]]);
      run(["ip", "-n", ns[side], "link", "set", veth[side], "up"]);
      run(["ip", "-n", ns[side], "link", "set", "lo", "up"]);
    }
    for (const key of ["host", "client"]) run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path.join(work, key)]);
    copyFileSync(path.join(work, "client.pub"), path.join(work, "authorized_keys"));
    writeFileSync(
      path.join(work, "sshd_config"),
      [
        `ListenAddress ${net}.1`,
        "Port 2222",
        `HostKey ${path.join(work, "host")}`,
        `AuthorizedKeysFile ${path.join(work, "authorized_keys")}`,
        "PermitRootLogin prohibit-password",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "StrictModes no",
        `PidFile ${path.join(work, "sshd.pid")}`,
        "Subsystem sftp internal-sftp",
        "",
      ].join("\n"),
    );
    mkdirSync("/run/sshd", { recursive: true, mode: 0o755 }); // sshd's privilege-separation directory
    start([...on("A"), "/usr/sbin/sshd", "-D", "-e", "-f", path.join(work, "sshd_config")], "sshd");
    // sshfs in the foreground: a child of ours, so it dies with the test. No directory cache, so a poll sees other
    // machines' new files at once; the kernel's attribute cache still holds a stat for up to a second.
    const sshfsArgv = [
      ...on("B"),
      "sshfs",
      "-f",
      "-o",
      [
        `IdentityFile=${path.join(work, "client")}`,
        "StrictHostKeyChecking=no",
        "UserKnownHostsFile=/dev/null",
        "LogLevel=ERROR",
        "port=2222",
        "dir_cache=no",
        "reconnect",
      ].join(","),
      `root@${net}.1:${exportDir}`,
      mountDir,
    ];
    const deadline = Date.now() + deadlineMs;
    let sshfs = start(sshfsArgv, "sshfs");
    // ENOTCONN while sshfs is mounted but not yet (or no longer) connected: not mounted yet, as far as a test goes
    const mounted = () => {
      try {
        return Number(statfsSync(mountDir).type) === FUSE_SUPER_MAGIC;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOTCONN") return false;
        throw error;
      }
    };
    while (!mounted()) {
      if (Date.now() > deadline) throw new Error(`sshfs did not mount ${mountDir}:\n${logs.join("")}`);
      if (sshfs.exitCode !== null) sshfs = start(sshfsArgv, "sshfs"); // sshd was not listening yet
      await sleep(200);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    exportDir,
    mountDir,
    on,
    link: (up) => run(["ip", "-n", ns.B, "link", "set", veth.B, up ? "up" : "down"]),
    logs,
    close,
  };
}
