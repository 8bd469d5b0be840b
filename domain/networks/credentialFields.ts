/**
 * The fields of the admin CLI's `--credentials` JSON per network (README: Connecting
 * channels). The adapters decode them; this list is what an operator is told.
 */
export const credentialFields: Readonly<Record<string, ReadonlyArray<string>>> = {
  mastodon: ["instance", "accessToken"],
  bluesky: ["service", "identifier", "appPassword"],
  x: ["accessToken", "refreshToken", "expiresAt"],
  linkedin: ["accessToken", "refreshToken", "expiresAt", "author"],
  telegram: ["botToken", "chatId"],
  discord: ["botToken", "channelId"]
}
