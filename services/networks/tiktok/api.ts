import { Schema } from "effect"

/**
 * TikTok's answers as the Content Posting API documents them (developers.tiktok.com,
 * "Content Posting API"): every answer is `{data, error: {code, message, log_id}}`, with
 * `error.code` "ok" on success.
 */

const Ok = Schema.Struct({ code: Schema.Literal("ok") })

/** `{data, error: {code: "ok"}}` with `data` of this shape. */
export const okWith = <A, I>(data: Schema.Schema<A, I>) => Schema.Struct({ data, error: Ok })

/** A refusal: `{"error":{"code":"...","message":"...","log_id":"..."}}`. */
export const TikTokError = Schema.Struct({
  error: Schema.Struct({ code: Schema.String, message: Schema.optional(Schema.String), log_id: Schema.optional(Schema.String) })
})

/** POST /v2/oauth/token/ (the OAuth error of this endpoint is flat: `{error, error_description}`). */
export const TikTokToken = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.Number),
  open_id: Schema.String
})

export const UserInfo = okWith(
  Schema.Struct({
    user: Schema.Struct({
      open_id: Schema.String,
      display_name: Schema.optional(Schema.String),
      username: Schema.optional(Schema.String),
      avatar_url: Schema.optional(Schema.String),
      follower_count: Schema.optional(Schema.Number),
      following_count: Schema.optional(Schema.Number),
      likes_count: Schema.optional(Schema.Number),
      video_count: Schema.optional(Schema.Number)
    })
  })
)

/** POST /v2/post/publish/creator_info/query/: what this creator may post right now. */
export const CreatorInfo = okWith(
  Schema.Struct({
    creator_username: Schema.optional(Schema.String),
    creator_nickname: Schema.optional(Schema.String),
    creator_avatar_url: Schema.optional(Schema.String),
    privacy_level_options: Schema.Array(Schema.String),
    comment_disabled: Schema.Boolean,
    duet_disabled: Schema.Boolean,
    stitch_disabled: Schema.Boolean,
    max_video_post_duration_sec: Schema.Number
  })
)
export type CreatorInfo = typeof CreatorInfo.Type.data

/** POST /v2/post/publish/video/init/ and /content/init/: the publish id (and for FILE_UPLOAD the upload address). */
export const Init = okWith(Schema.Struct({ publish_id: Schema.String, upload_url: Schema.optional(Schema.String) }))

/** POST /v2/post/publish/status/fetch/. */
export const Status = okWith(
  Schema.Struct({
    status: Schema.String,
    fail_reason: Schema.optional(Schema.String),
    // TikTok spells it this way
    publicaly_available_post_id: Schema.optional(Schema.Array(Schema.Union(Schema.String, Schema.Number))),
    uploaded_bytes: Schema.optional(Schema.Number),
    downloaded_bytes: Schema.optional(Schema.Number)
  })
)
export type Status = typeof Status.Type.data

/**
 * The post id exactly as TikTok wrote it: an int64 that JSON.parse would round (ids above
 * 2^53), so it is read from the body's text.
 */
export const rawPostIdOf = (body: Buffer): string | undefined =>
  /"publicaly_available_post_id"\s*:\s*\[\s*"?(\d+)/.exec(body.subarray(0, 64 * 1024).toString("utf8"))?.[1]

/** POST /v2/video/query/: a video's counts. */
export const VideoQuery = okWith(
  Schema.Struct({
    videos: Schema.Array(
      Schema.Struct({
        id: Schema.String,
        view_count: Schema.optional(Schema.Number),
        like_count: Schema.optional(Schema.Number),
        comment_count: Schema.optional(Schema.Number),
        share_count: Schema.optional(Schema.Number)
      })
    )
  })
)

/**
 * What this adapter keeps between the steps of one publish (post_items.network_progress):
 * the publish id and, for a file upload, TikTok's upload address, the size and how many bytes went.
 */
export const TikTokProgress = Schema.Struct({
  publishId: Schema.String,
  mode: Schema.Literal("upload", "pull", "photo"),
  uploadUrl: Schema.optional(Schema.String),
  /** The video's size as announced at init. */
  size: Schema.optional(Schema.Number),
  /** Bytes TikTok already holds, as status/fetch said after a lost answer: the upload goes on from the chunk after them. */
  uploadedBytes: Schema.optional(Schema.Number),
  uploaded: Schema.optional(Schema.Boolean)
})
export type TikTokProgress = typeof TikTokProgress.Type

/** Chunks as the media transfer guide asks: under 5 MB one chunk; else 10 MB chunks, the last one taking the rest. */
export const MIN_CHUNK_BYTES = 5 * 1024 * 1024
export const CHUNK_BYTES = 10 * 1024 * 1024

export const chunksOf = (size: number): ReadonlyArray<{ readonly start: number; readonly end: number }> => {
  if (size < MIN_CHUNK_BYTES) return [{ start: 0, end: size }]
  const count = Math.max(1, Math.floor(size / CHUNK_BYTES))
  return Array.from({ length: count }, (_, i) => ({ start: i * CHUNK_BYTES, end: i === count - 1 ? size : (i + 1) * CHUNK_BYTES }))
}
