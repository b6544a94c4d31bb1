// guild-bus ui: parse the options, start the review console (src/ui/), print its URL once, stop on a signal.
import type { Command } from "commander";
import { summary } from "./overview.js";
import { ROOT_HELP, type RootOptions } from "./errors.js";
import { intArg } from "./options.js";
import { print } from "./safe-output.js";

interface UiCliOptions extends RootOptions {
  host: string;
  port: number;
  readOnly?: boolean;
  poll?: boolean;
}

export function register(program: Command): void {
  program
    .command("ui")
    .description(summary("ui"))
    .option("--root <dir>", ROOT_HELP)
    .option("--host <address>", "address to bind (anything but loopback exposes the console to the network)", "127.0.0.1")
    .option("--port <n>", "port (0: any free one)", intArg(0, 65_535), 0)
    .option("--read-only", "show, never act (for sharing a screen)")
    .option("--poll", "poll the filesystem instead of native events (auto on NFS, SMB, 9p, FUSE)")
    .action(async (o: UiCliOptions) => {
      const [{ startConsole }, { isLoopback }] = await Promise.all([import("../ui/server.js"), import("../ui/loopback.js")]);
      if (!isLoopback(o.host))
        print("stderr", `guild-bus ui: warning: bound to ${o.host}; anyone who can reach it and has the token can act\n`);
      const running = await startConsole({
        root: o.root,
        host: o.host,
        port: o.port,
        readOnly: Boolean(o.readOnly),
        poll: o.poll ? true : "auto",
        settings: o.checkedSettings,
      });
      print(
        "stdout",
        `guild-bus ui: serving ${o.root}${o.readOnly ? " (read-only)" : ""}\n` +
          `open this URL (its token is shown only now; Ctrl-C stops the console):\n  ${running.url}\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          void running.close().then(resolve);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
    });
}
