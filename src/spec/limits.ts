// Size limits that are part of the contract (SPEC §5), in a module without zod so fast-starting callers can import it.

/** No gate file is read past this many bytes: a larger one is refused unread. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;
