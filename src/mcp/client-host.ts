// The author host of an MCP session is the client that connected: its handshake name (claude-code, codex-mcp-client,
// gemini-cli…), recorded with its source so a reader can tell it from a host the caller only declared.
export interface AuthorHost {
  name: string;
  version: string | null;
  source: "declared" | "mcp-client-info";
}

export function hostFromClientInfo(info: { name?: string; version?: string } | undefined): AuthorHost | null {
  const name = info?.name?.trim();
  return name ? { name, version: info?.version?.trim() || null, source: "mcp-client-info" } : null;
}
