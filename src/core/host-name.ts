// The names one author host goes by: its MCP client name, and the short name a person gives `review --author`.
const HOST_NAMES: Readonly<Record<string, string>> = { claude: "claude-code" };

/** A host's name as one key: trimmed, lower case, a short name taken as the client name it stands for; "" for none. */
export function hostKey(host: string | null | undefined): string {
  const name = (host ?? "").trim().toLowerCase();
  return Object.hasOwn(HOST_NAMES, name) ? HOST_NAMES[name]! : name;
}
