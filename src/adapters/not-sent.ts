// How each reviewer's own output proves that no request reached its endpoint (the connection was never made), so a
// failed dispatch is `unavailable` and a fallback may run (SPEC §15). One list per adapter, each from its real output;
// anything said after a connection (a reset, a dropped stream, a status) may have run upstream and stays ambiguous.

/** Errno codes of a connection that was never made (or a TLS peer refused before any byte of the request). */
export const HTTP_NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** What a CLI prints when its connection was never made, matched against one whole message. */
const CLI_NOT_SENT = {
  // claude 2.1.332's result text; its `api_error: "connection_failed"` also marks a connection dropped after the request
  // was sent ("Connection dropped (ECONNRESET)"), so only these errno codes tell
  claude: [/^API Error: [^\n]*\((?:ECONNREFUSED|ENOTFOUND|EAI_AGAIN)\)$/],
  // codex 0.171 (a refused connection, an unknown host): it then waits for the network for ever, never retrying a
  // request it sent; one that was sent fails "stream disconnected before completion" instead
  codex: [/^Reconnecting\.\.\. waiting for network \(Connection failed: [^\n]*\)$/],
  // gemini 0.61 says "fetch failed sending request" for a refused connection and for one dropped after the whole request
  // was sent alike: nothing it prints proves that nothing was sent
  gemini: [],
} as const satisfies Record<string, readonly RegExp[]>;

/** Whether `message` is the CLI's own proof that it never connected to its endpoint. */
export function provesNotSent(cli: keyof typeof CLI_NOT_SENT, message: string): boolean {
  const m = message.trim();
  return (CLI_NOT_SENT[cli] as readonly RegExp[]).some((re) => re.test(m));
}
