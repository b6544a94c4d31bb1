// A provider as detection reports it (selectable, available, a gpt-5 of openai) unless `over` says otherwise.
import type { DetectedProvider } from "../../src/adapters/probe.js";

export function detected(over: Pick<DetectedProvider, "id" | "adapter"> & Partial<DetectedProvider>): DetectedProvider {
  return {
    model: "gpt-5",
    family: "openai",
    selectable: true,
    available: true,
    note: "",
    source: "settings",
    binary: null,
    version: null,
    auth: null,
    why: [],
    ...over,
  };
}
