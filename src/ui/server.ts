// `guild-bus ui`: the review console's HTTP server, on 127.0.0.1 unless told otherwise, with a fresh token per start.
import { hostname, networkInterfaces } from "node:os";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { loadContext } from "../bus/context.js";
import { Layout } from "../bus/layout.js";
import type { LoadedSettings } from "../bus/settings-file.js";
import { consoleApp } from "./app.js";
import { GateBoard } from "./board.js";
import { isLoopback } from "./loopback.js";
import { newSecrets } from "./security.js";

export interface ConsoleOptions {
  root: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  readOnly: boolean;
  poll: boolean | "auto";
  reconcileMs?: number;
  fullScanMs?: number;
  /** settings.json as the caller already read it (the CLI's check): the board's first look; every later one reads anew. */
  settings?: LoadedSettings;
}

export interface RunningConsole {
  /** The URL to open, token included: shown once. */
  url: string;
  port: number;
  /** The path every page starts with (security.ts). */
  base: string;
  close(): Promise<void>;
}

/**
 * The names a browser may use for this server in its Host header: the bound address, and localhost for loopback. On
 * every address (0.0.0.0, ::) that is each address of this machine and its host name, the first the one printed: a
 * Host that names none of them is still refused (DNS rebinding).
 */
function hostNames(host: string): string[] {
  const everywhere = host === "0.0.0.0" || host === "::";
  const machine = everywhere
    ? [hostname(), ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.replace(/%.*$/, "")))]
    : [];
  const names = [...machine, host, ...(isLoopback(host) || everywhere ? ["127.0.0.1", "localhost", "::1"] : [])];
  // each also as a URL spells it, which is what a browser sends: [::1] for 0:0:0:0:0:0:0:1
  return [...new Set(names.flatMap((n) => [bracket(n), urlHost(n)]))];
}

const bracket = (h: string) => (h.includes(":") ? `[${h}]` : h);

/** A name or address as a URL's host spells it; the name as given when no URL takes it. */
function urlHost(h: string): string {
  try {
    return new URL(`http://${bracket(h)}/`).hostname;
  } catch {
    return bracket(h);
  }
}

/** The Host values and Origins a browser sends for these names on this port: it leaves out http's default port, 80. */
export function addressesAt(names: string[], port: number): { hosts: string[]; origins: string[] } {
  const hosts = names.flatMap((n) => (port === 80 ? [n, `${n}:80`] : [`${n}:${port}`]));
  return { hosts, origins: hosts.map((h) => `http://${h}`) };
}

export async function startConsole(o: ConsoleOptions): Promise<RunningConsole> {
  const layout = new Layout(o.root);
  const board = new GateBoard({ root: o.root, poll: o.poll, reconcileMs: o.reconcileMs, fullScanMs: o.fullScanMs });
  await board.start(loadContext(layout, o.settings));
  const secrets = newSecrets();
  let port = 0;
  const names = hostNames(o.host);
  const app = consoleApp({
    ctx: () => loadContext(layout),
    board,
    secrets,
    readOnly: o.readOnly,
    hosts: () => addressesAt(names, port).hosts,
    origins: () => addressesAt(names, port).origins,
    cookie: () => `guild_bus_ui_${port}`,
  });
  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: o.host, port: o.port }, () => resolve(s));
      s.once("error", reject);
    });
  } catch (error) {
    await board.stop(); // its watchers would keep the process running, serving nothing
    const why = (error as NodeJS.ErrnoException).code === "EADDRINUSE" ? "the port is in use; choose another --port (0: any free one)" : "";
    throw new Error(`cannot listen on ${o.host}:${o.port}: ${why || (error as Error).message}`, { cause: error });
  }
  port = (server.address() as AddressInfo).port;
  const url = `http://${names[0]}:${port}${secrets.base}/?token=${secrets.token}`;
  return {
    url,
    port,
    base: secrets.base,
    async close() {
      await board.stop();
      if ("closeAllConnections" in server) server.closeAllConnections(); // open event streams would hold close() forever
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
