// A settings file a person's command refuses to act on, apart from the settings' reader (context.ts): every command's
// answer tells this refusal from a bug without loading the settings' schemas.

/** A settings file a person's command refuses to act on (SettingsRefused answers as a refusal). */
export class SettingsRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SettingsRefused";
  }
}
