/**
 * The servers the Mastodon simulator can play, each as its documentation describes its
 * Mastodon API: how it names itself (GET /api/v1/instance `version`, NodeInfo
 * `software.name`), its limits and where it announces them, which media endpoints it serves,
 * what it does with Idempotency-Key, and how its errors look.
 */

export type SimSoftware = "mastodon" | "pixelfed" | "gotosocial" | "pleroma" | "akkoma" | "friendica" | "sharkey"

export interface SoftwareBehaviour {
  readonly version: string
  readonly nodeInfoName: string
  readonly nodeInfoVersion: string
  readonly maxCharacters: number
  /** null: no cap. */
  readonly maxMedia: number | null
  /** Where /api/v1/instance announces the limits: Mastodon's `configuration.statuses`, or Pleroma's `max_toot_chars`. */
  readonly limitsIn: "configuration" | "max_toot_chars"
  readonly v2Media: boolean
  /** `replays`: the first status again; `refuses`: 400 "Duplicate idempotency key."; `ignores`: a second status. */
  readonly idempotency: "replays" | "refuses" | "ignores"
  /** A status needs media unless it replies (Pixelfed: 403 "Empty statuses are not allowed"). */
  readonly mediaRequired: boolean
  readonly visibilities: ReadonlyArray<string>
  /** The error body's field: `error` (Mastodon and most), `message` (Pixelfed: Laravel's abort()). */
  readonly errorField: "error" | "message"
  /** The refusal of a text over the limit, in the server's own words. */
  readonly tooLong: (max: number, length: number) => string
}

const standard = ["public", "unlisted", "private", "direct"]

export const behaviours: Readonly<Record<SimSoftware, SoftwareBehaviour>> = {
  mastodon: {
    version: "4.3.2",
    nodeInfoName: "mastodon",
    nodeInfoVersion: "4.3.2",
    maxCharacters: 500,
    maxMedia: 4,
    limitsIn: "configuration",
    v2Media: true,
    idempotency: "replays",
    mediaRequired: false,
    visibilities: standard,
    errorField: "error",
    tooLong: (max) => `Validation failed: Text character limit of ${max} exceeded`
  },
  // pixelfed ApiV1Controller: caption max_caption_length 500, album 4, 403 without media, 400 on a repeated key,
  // no direct; /api/v2/media missing before 0.11.4 (pixelfed#3405): this one is such a release
  pixelfed: {
    version: "2.7.2 (compatible; Pixelfed 0.11.3)",
    nodeInfoName: "pixelfed",
    nodeInfoVersion: "0.11.3",
    maxCharacters: 500,
    maxMedia: 4,
    limitsIn: "configuration",
    v2Media: false,
    idempotency: "refuses",
    mediaRequired: true,
    visibilities: ["public", "unlisted", "private"],
    errorField: "message",
    tooLong: (max) => `The status may not be greater than ${max} characters.`
  },
  // docs.gotosocial.org: version "0.17.3 git-…" (no "compatible"), NodeInfo names it; 5000 characters, 6 files
  gotosocial: {
    version: "0.17.3 git-8f3e2a1",
    nodeInfoName: "gotosocial",
    nodeInfoVersion: "0.17.3 git-8f3e2a1",
    maxCharacters: 5000,
    maxMedia: 6,
    limitsIn: "configuration",
    v2Media: true,
    idempotency: "ignores",
    mediaRequired: false,
    visibilities: [...standard, "mutuals_only"],
    errorField: "error",
    tooLong: (max, length) => `Bad Request: status too long, ${length} characters provided, maximum ${max}`
  },
  // docs.pleroma.social: "(compatible; Pleroma x)", max_toot_chars, no attachment cap, Idempotency-Key cached
  pleroma: {
    version: "2.7.2 (compatible; Pleroma 2.7.0)",
    nodeInfoName: "pleroma",
    nodeInfoVersion: "2.7.0",
    maxCharacters: 5000,
    maxMedia: null,
    limitsIn: "max_toot_chars",
    v2Media: true,
    idempotency: "replays",
    mediaRequired: false,
    visibilities: [...standard, "list", "local"],
    errorField: "error",
    tooLong: () => "The status is over the character limit"
  },
  akkoma: {
    version: "2.7.2 (compatible; Akkoma 3.13.2)",
    nodeInfoName: "akkoma",
    nodeInfoVersion: "3.13.2",
    maxCharacters: 5000,
    maxMedia: null,
    limitsIn: "max_toot_chars",
    v2Media: true,
    idempotency: "replays",
    mediaRequired: false,
    visibilities: [...standard, "list", "local"],
    errorField: "error",
    tooLong: () => "The status is over the character limit"
  },
  // Friendica doc/API-Mastodon.md: "2.8.0 (compatible; Friendica …)", POST /api/v1/media only, public/unlisted/private
  friendica: {
    version: "2.8.0 (compatible; Friendica 2024.08)",
    nodeInfoName: "friendica",
    nodeInfoVersion: "2024.08",
    maxCharacters: 200_000,
    maxMedia: null,
    limitsIn: "max_toot_chars",
    v2Media: false,
    idempotency: "ignores",
    mediaRequired: false,
    visibilities: ["public", "unlisted", "private"],
    errorField: "error",
    tooLong: () => "Status is too long"
  },
  // Sharkey's Mastodon API layer: NodeInfo "sharkey", 3000 characters, 16 files
  sharkey: {
    version: "3.0.0 (compatible; Sharkey 2024.11.1)",
    nodeInfoName: "sharkey",
    nodeInfoVersion: "2024.11.1",
    maxCharacters: 3000,
    maxMedia: 16,
    limitsIn: "configuration",
    v2Media: true,
    idempotency: "ignores",
    mediaRequired: false,
    visibilities: standard,
    errorField: "error",
    tooLong: () => "Text is too long"
  }
}

const names: ReadonlyArray<SimSoftware> = ["mastodon", "pixelfed", "gotosocial", "pleroma", "akkoma", "friendica", "sharkey"]
export const simSoftwareOf = (text: string): SimSoftware | null => names.find((n) => n === text) ?? null
