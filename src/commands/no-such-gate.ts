// A run or gate a command was asked about that is not on disk (gate-exists.ts throws it), apart from the listing that
// finds out: every command's answer tells this refusal from a bug without loading it.
export class NoSuchGate extends Error {}
