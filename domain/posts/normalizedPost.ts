import type { NonEmptyReadonlyArray } from "effect/Array"

/**
 * One shape for a POST /posts body, whichever form the client sent (full or simpler).
 * Everything after decoding (rule checks, transitions, storage) works on this.
 */

/** `update` from reference clients is already read as `schedule`. */
export type PostType = "draft" | "schedule" | "now" | "review"

/** A file on an item: a media id from POST /upload, or only an outside address (`path`). */
export interface MediaRef {
  /** null when no valid id was given (only `path`). */
  readonly id: string | null
  readonly path: string | null
  readonly alt: string | null
}

/** The post itself (first item) or a follow-up comment. */
export interface PostItem {
  /** Plain text; HTML was turned into text. */
  readonly content: string
  readonly media: ReadonlyArray<MediaRef>
  /** Minutes after the previous item; always 0 on the first item. */
  readonly delay: number
}

/** One channel of the post. */
export interface PostEntry {
  readonly channelId: string
  /** `group` given on this entry (the post to edit), when any. */
  readonly groupId: string | null
  readonly items: NonEmptyReadonlyArray<PostItem>
  /** Network settings as sent, without the reference clients' `__type`. */
  readonly settings: Readonly<Record<string, unknown>>
}

/** A string tag is looked up by id or name; an object tag is matched by value or created as label. */
export type TagRef = { readonly kind: "ref"; readonly value: string } | { readonly kind: "create"; readonly value: string; readonly label: string }

export type CreationMethod = "api" | "cli" | "mcp" | "agent"

export interface NormalizedPost {
  readonly type: PostType
  /** The post time; the request time when no date was given, and always for `now`. */
  readonly date: Date
  /** Whether `date` came from the body (false for `now`). An edit without a date keeps the post's time. */
  readonly dateGiven: boolean
  /** The post to edit: `groupId`, or the `group` of the entries. */
  readonly groupId: string | null
  readonly entries: NonEmptyReadonlyArray<PostEntry>
  readonly tags: ReadonlyArray<TagRef>
  readonly shortLink: boolean
  /** `inter` or `repeatDays`: repeat every N days. */
  readonly repeatDays: number | null
  /** null: the caller uses how the request signed in. */
  readonly creationMethod: CreationMethod | null
}
