// A file larger than any bus reader accepts, apart from the writer that refuses it (deliver.ts): every command's
// answer tells this refusal from a bug without loading the writer.
/** A file larger than any bus reader accepts: refused before anything lands (a command's refusal, not a bug). */
export class TooLarge extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TooLarge";
  }
}
