import { Option, Schema } from "effect"

/**
 * The servers that speak the Mastodon API and how each differs (docs/networks.md, "The
 * Fediverse beyond Mastodon"). Which one an instance runs is read at connect from NodeInfo
 * (`/.well-known/nodeinfo` → `software.name`) or the `(compatible; <Software> x.y)` of
 * GET /api/v1/instance's `version`, and kept with the channel's credentials.
 */

export type SoftwareName = "mastodon" | "pixelfed" | "gotosocial" | "pleroma" | "akkoma" | "friendica" | "misskey"

export interface Variant {
  readonly name: SoftwareName
  /** As people know it, for messages. */
  readonly label: string
  /**
   * How a repeated POST /api/v1/statuses with the same Idempotency-Key is answered: the first
   * status again (Mastodon, Pleroma, Akkoma), refused with 400 "Duplicate idempotency key."
   * (Pixelfed), or not at all: the header is ignored and a second status made.
   */
  readonly idempotency: "replays" | "refuses-repeat" | "none"
  /** POST /api/v2/media is served (otherwise, or when it answers 404, POST /api/v1/media). */
  readonly v2Media: boolean
  /** A status without media is refused unless it is a reply (Pixelfed: "Empty statuses are not allowed"). */
  readonly mediaRequired: boolean
  /** The instance's default limits, used when /api/v1/instance does not say. */
  readonly maxCharacters: number
  /** null: no cap on attachments (Pleroma, Akkoma). */
  readonly maxMedia: number | null
  /** The `visibility` values POST /api/v1/statuses takes. */
  readonly visibilities: ReadonlyArray<string>
}

const standard = ["public", "unlisted", "private", "direct"]

export const variants: Readonly<Record<SoftwareName, Variant>> = {
  // docs.joinmastodon.org/methods/statuses/#create, /methods/media/#v2
  mastodon: {
    name: "mastodon",
    label: "Mastodon",
    idempotency: "replays",
    v2Media: true,
    mediaRequired: false,
    maxCharacters: 500,
    maxMedia: 4,
    visibilities: standard
  },
  // Pixelfed's ApiV1Controller statusCreate: caption ≤ max_caption_length (500), media_ids ≤
  // max_album_length (4), 403 without media_ids or in_reply_to_id, no `direct`; older releases
  // answer 404 to /api/v2/media (pixelfed/pixelfed#3405)
  pixelfed: {
    name: "pixelfed",
    label: "Pixelfed",
    idempotency: "refuses-repeat",
    v2Media: true,
    mediaRequired: true,
    maxCharacters: 500,
    maxMedia: 4,
    visibilities: ["public", "unlisted", "private"]
  },
  // docs.gotosocial.org (swagger): /api/{v1,v2}/media, statuses max_characters 5000 and
  // max_media_attachments 6 by default, `mutuals_only` visibility; no Idempotency-Key
  gotosocial: {
    name: "gotosocial",
    label: "GoToSocial",
    idempotency: "none",
    v2Media: true,
    mediaRequired: false,
    maxCharacters: 5000,
    maxMedia: 6,
    visibilities: [...standard, "mutuals_only"]
  },
  // docs.pleroma.social "Differences in Mastodon API responses": `max_toot_chars` (5000 by
  // default), no attachment cap, Idempotency-Key answered from its cache, `list`/`local` visibilities
  pleroma: {
    name: "pleroma",
    label: "Pleroma",
    idempotency: "replays",
    v2Media: true,
    mediaRequired: false,
    maxCharacters: 5000,
    maxMedia: null,
    visibilities: [...standard, "list", "local"]
  },
  akkoma: {
    name: "akkoma",
    label: "Akkoma",
    idempotency: "replays",
    v2Media: true,
    mediaRequired: false,
    maxCharacters: 5000,
    maxMedia: null,
    visibilities: [...standard, "list", "local"]
  },
  // Friendica doc/API-Mastodon.md: POST /api/v1/media only, visibility public/unlisted/private
  // (or a circle id), no Idempotency-Key
  friendica: {
    name: "friendica",
    label: "Friendica",
    idempotency: "none",
    v2Media: false,
    mediaRequired: false,
    maxCharacters: 200_000,
    maxMedia: null,
    visibilities: ["public", "unlisted", "private"]
  },
  // Misskey forks with a Mastodon API layer (Sharkey, Iceshrimp, Firefish): 3000 characters by
  // default, 16 files, no Idempotency-Key
  misskey: {
    name: "misskey",
    label: "Misskey (Mastodon API)",
    idempotency: "none",
    v2Media: true,
    mediaRequired: false,
    maxCharacters: 3000,
    maxMedia: 16,
    visibilities: standard
  }
}

/** A NodeInfo `software.name` or a `(compatible; X …)` name → the variant it speaks as. */
export const softwareOf = (name: string): SoftwareName | null => {
  const n = name.trim().toLowerCase()
  if (n === "mastodon" || n === "hometown" || n === "glitch" || n === "glitchsoc") return "mastodon"
  if (n === "pixelfed") return "pixelfed"
  if (n === "gotosocial") return "gotosocial"
  if (n === "pleroma") return "pleroma"
  if (n === "akkoma") return "akkoma"
  if (n === "friendica") return "friendica"
  if (["misskey", "sharkey", "iceshrimp", "iceshrimp.net", "firefish", "catodon", "foundkey", "cherrypick"].includes(n)) return "misskey"
  return null
}

/** `2.7.2 (compatible; Pleroma 2.6.3)` → `Pleroma`. */
export const compatibleName = (version: string): Option.Option<string> => Option.fromNullable(/\(compatible;\s*([^\s;)]+)/i.exec(version)?.[1])

/** What is kept with the channel: the software and the limits the instance announced. */
export const StoredSoftware = Schema.Struct({
  name: Schema.Literal("mastodon", "pixelfed", "gotosocial", "pleroma", "akkoma", "friendica", "misskey"),
  /** The name the instance gave itself (`sharkey`, `hometown` …). */
  reported: Schema.optional(Schema.String),
  version: Schema.optional(Schema.String),
  maxCharacters: Schema.optional(Schema.Number),
  maxMedia: Schema.optional(Schema.NullOr(Schema.Number))
})
export type StoredSoftware = typeof StoredSoftware.Type

/** GET /.well-known/nodeinfo (nodeinfo.diaspora.software/protocol): links to the schema documents. */
export const NodeInfoLinks = Schema.Struct({ links: Schema.Array(Schema.Struct({ rel: Schema.String, href: Schema.String })) })
/** A NodeInfo 2.x document's software. */
export const NodeInfo = Schema.Struct({ software: Schema.Struct({ name: Schema.String, version: Schema.optional(Schema.String) }) })

/** GET /api/v1/instance: the version and the limits, as Mastodon (configuration) and Pleroma/Friendica (`max_toot_chars`) give them. */
export const InstanceV1 = Schema.Struct({
  version: Schema.optional(Schema.String),
  max_toot_chars: Schema.optional(Schema.Number),
  configuration: Schema.optional(
    Schema.Struct({
      statuses: Schema.optional(
        Schema.Struct({ max_characters: Schema.optional(Schema.Number), max_media_attachments: Schema.optional(Schema.Number) })
      )
    })
  )
})
export type InstanceV1 = typeof InstanceV1.Type

/** The NodeInfo link to read: the newest 2.x schema offered. */
export const nodeInfoHref = (links: typeof NodeInfoLinks.Type): Option.Option<string> => {
  const ranked = links.links.filter((l) => /nodeinfo\.diaspora\.software\/ns\/schema\/2\.\d/.test(l.rel)).sort((a, b) => b.rel.localeCompare(a.rel))
  return Option.fromNullable(ranked[0]?.href)
}

/** The software and limits from what the instance said; Mastodon when it says nothing recognisable. */
export const detect = (nodeInfo: Option.Option<typeof NodeInfo.Type>, instance: Option.Option<InstanceV1>): StoredSoftware => {
  const fromNodeInfo = Option.flatMap(nodeInfo, (n) =>
    Option.map(Option.fromNullable(softwareOf(n.software.name)), (name) => ({ name, reported: n.software.name, version: n.software.version }))
  )
  const fromVersion = Option.flatMap(instance, (i) =>
    Option.flatMap(Option.flatMap(Option.fromNullable(i.version), compatibleName), (reported) =>
      Option.map(Option.fromNullable(softwareOf(reported)), (name) => ({ name, reported, version: i.version }))
    )
  )
  const found = Option.getOrElse(
    Option.orElse(fromNodeInfo, () => fromVersion),
    () => ({
      name: "mastodon" as const,
      reported: "mastodon",
      version: Option.getOrUndefined(Option.flatMap(instance, (i) => Option.fromNullable(i.version)))
    })
  )
  const statuses = Option.flatMap(instance, (i) => Option.fromNullable(i.configuration?.statuses))
  const maxCharacters = Option.getOrUndefined(
    Option.orElse(
      Option.flatMap(statuses, (s) => Option.fromNullable(s.max_characters)),
      () => Option.flatMap(instance, (i) => Option.fromNullable(i.max_toot_chars))
    )
  )
  const maxMedia = Option.getOrUndefined(Option.flatMap(statuses, (s) => Option.fromNullable(s.max_media_attachments)))
  return {
    name: found.name,
    reported: found.reported,
    ...(found.version === undefined ? {} : { version: found.version }),
    ...(maxCharacters === undefined ? {} : { maxCharacters }),
    ...(maxMedia === undefined ? {} : { maxMedia })
  }
}

/**
 * The limits a publish checks: the instance's own where it announced them, else its software's
 * defaults. A channel connected before the software was read checks none (its instance may
 * allow more than Mastodon's defaults): the instance's own refusal tells.
 */
export const limitsOf = (
  software: StoredSoftware | undefined
): { readonly variant: Variant; readonly maxCharacters: number | null; readonly maxMedia: number | null } => {
  if (software === undefined) return { variant: variants.mastodon, maxCharacters: null, maxMedia: null }
  const variant = variants[software.name]
  return {
    variant,
    maxCharacters: software.maxCharacters ?? variant.maxCharacters,
    maxMedia: software.maxMedia === undefined ? variant.maxMedia : software.maxMedia
  }
}
