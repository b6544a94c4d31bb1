// Constants of the contract, in a module without zod so fast-starting callers (verify-gate-pass) can import them.

/** No gate file is read past this many bytes: a larger one is refused unread. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The wire name of a review result (SPEC §8). */
export const RESULT_WIRE = "review_result.v1";
