// This machine as the names workers leave behind say it: the host name and the pid namespace. A pid means something
// only there: a container (its own namespace) or another host sharing a directory has pids of its own.
import { readlinkSync } from "node:fs";
import { hostname } from "node:os";

/** `<host>-<pid namespace>` ("0" where there is none to read: not Linux, the host name alone then). */
export const THIS_MACHINE = (() => {
  let ns = "0";
  try {
    ns = /\d+/.exec(readlinkSync("/proc/self/ns/pid"))?.[0] ?? "0";
  } catch {
    // not Linux
  }
  return `${hostname()
    .replace(/[^A-Za-z0-9.-]/g, "-")
    .slice(0, 100)}-${ns}`;
})();
