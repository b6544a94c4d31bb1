// zod's validation issues as people read them; no zod at run time, so a command that only reports them loads none.
import type { core } from "zod/mini";

/** Flatten zod issues to "path: message" lines, every problem, not just the first. */
export function describeIssues(error: { issues: readonly core.$ZodIssue[] }): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.join(".") : "(root)";
    if (issue.code === "invalid_type" && issue.path.length && issue.message.endsWith("received undefined")) {
      return `missing required field: ${where}`;
    }
    return `${where}: ${issue.message}`;
  });
}

/** "invalid input: …" for a zod validation error, else null: its issues flattened, never its JSON dump. */
export function invalidInput(error: unknown): string | null {
  if (!(error instanceof Error) || error.name !== "$ZodError") return null;
  return `invalid input: ${describeIssues(error as unknown as { issues: readonly core.$ZodIssue[] }).join("; ")}`;
}
