// How every command answers (the one error convention, README "Errors"): a refusal the user can fix is a value,
// { ok: false, error }, and nothing was written; a bug throws.
import { SettingsRefused } from "../bus/settings-refused.js";
import { PathSafetyError } from "../bus/no-symlinks.js";
import { ReadRefused } from "../bus/read-bounded.js";
import { TooLarge } from "../bus/too-large.js";
import { InvalidIdError } from "../spec/ids.js";
import { ReadFault } from "../core/read-fault.js";
import { invalidInput } from "../spec/issues.js";
import { NoSuchGate } from "./no-such-gate.js";

export type Answer<T> = ({ ok: true } & T) | { ok: false; error: string };

export const refuse = (error: string): { ok: false; error: string } => ({ ok: false, error });

/** Run `body`; the lower layers' refusals of user input (a bad id, a path outside the project, an unreadable file) become answers. */
export function refusing<T>(body: () => Answer<T>): Answer<T>;
export function refusing<T>(body: () => Promise<Answer<T>>): Promise<Answer<T>>;
export function refusing<T>(body: () => Answer<T> | Promise<Answer<T>>): Answer<T> | Promise<Answer<T>> {
  const answer = (error: unknown): Answer<T> => {
    if (
      error instanceof InvalidIdError ||
      error instanceof PathSafetyError ||
      error instanceof ReadRefused ||
      error instanceof TooLarge ||
      error instanceof SettingsRefused ||
      error instanceof NoSuchGate
    )
      return refuse(error.message);
    if (error instanceof ReadFault) return refuse(`${error.message}; nothing was done — try again`);
    // a value no face checked (a console form field) that the record's schema refuses: nothing was written
    const invalid = invalidInput(error);
    if (invalid) return refuse(invalid);
    throw error;
  };
  try {
    const result = body();
    return result instanceof Promise ? result.catch(answer) : result;
  } catch (error) {
    return answer(error);
  }
}
