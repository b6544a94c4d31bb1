// `guild-bus ui`: the review console's HTTP server, on 127.0.0.1 unless told otherwise, with a fresh token per start.
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { loadContext } from "../bus/context.js";
import { Layout } from "../bus/layout.js";
import { consoleApp } from "./app.js";
import { GateBoard } from "./board.js";
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
}

export interface RunningConsole {
  /** The URL to open, token included: shown once. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The names a browser may use for this server in its Host header: the bound address, and localhost for loopback. */
function hostNames(host: string): string[] {
  const loopback = host === "127.0.0.1" || host === "::1" || host === "localhost";
  const bracket = (h: string) => (h.includes(":") ? `[${h}]` : h);
  return [...new Set([bracket(host), ...(loopback ? ["127.0.0.1", "localhost", "[::1]"] : [])])];
}

export async function startConsole(o: ConsoleOptions): Promise<RunningConsole> {
  const layout = new Layout(o.root);
  const board = new GateBoard({ root: o.root, poll: o.poll, reconcileMs: o.reconcileMs, fullScanMs: o.fullScanMs });
  await board.start(loadContext(layout));
  const secrets = newSecrets();
  let port = 0;
  const names = hostNames(o.host);
  const app = consoleApp({
    ctx: () => loadContext(layout),
    board,
    secrets,
    readOnly: o.readOnly,
    hosts: () => names.map((n) => `${n}:${port}`),
    origins: () => names.map((n) => `http://${n}:${port}`),
    cookie: () => `guild_bus_ui_${port}`,
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: o.host, port: o.port }, () => resolve(s));
    s.once("error", reject);
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://${names[0]}:${port}/?token=${secrets.token}`;
  return {
    url,
    port,
    async close() {
      await board.stop();
      if ("closeAllConnections" in server) server.closeAllConnections(); // open event streams would hold close() forever
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
