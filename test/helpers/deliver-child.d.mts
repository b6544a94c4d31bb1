/** The content a crash-loop child writes for a file name, so any final can be checked. */
export function payloadFor(name: string, size: number): Buffer;
