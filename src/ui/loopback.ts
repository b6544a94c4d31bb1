// Whether an address the console binds keeps it on this machine: all of 127.0.0.0/8 is loopback, not 127.0.0.1 alone.
import { BlockList, isIP } from "node:net";

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6"); // BlockList also matches its other spellings and IPv4-mapped 127.x addresses

/** Whether `host` (an address or name given to --host) is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? "ipv6" : "ipv4");
}
