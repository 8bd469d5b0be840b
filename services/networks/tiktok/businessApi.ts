import { Schema } from "effect"

/**
 * TikTok API for Business answers (business-api.tiktok.com/portal/docs, v1.3): every answer
 * is `{code, message, request_id, data}` with `code` 0 on success, usually with HTTP 200
 * whatever the outcome: the code is what tells.
 */

/** `{code: 0, data}` with `data` of this shape. */
export const okWith = <A, I>(data: Schema.Schema<A, I>) => Schema.Struct({ code: Schema.Literal(0), message: Schema.optional(Schema.String), data })

/** Any answer of the API: its code and message (a refusal has no usable data). */
export const Envelope = Schema.Struct({ code: Schema.Number, message: Schema.optional(Schema.String), request_id: Schema.optional(Schema.String) })

/** Return codes of the API (portal docs, "Return codes") this adapter acts on. */
export const Codes = {
  ok: 0,
  /** Requests made too frequently. */
  rateLimited: 40100,
  /** The access token expired, is missing, or is wrong or revoked. */
  tokenExpired: 40102,
  tokenMissing: 40104,
  tokenInvalid: 40105
} as const

/** POST /tt_user/oauth2/token/ and /tt_user/oauth2/refresh_token/: `open_id` is the account's `business_id`. */
export const BusinessToken = okWith(
  Schema.Struct({
    access_token: Schema.String,
    refresh_token: Schema.String,
    expires_in: Schema.optional(Schema.Number),
    open_id: Schema.String
  })
)

/** GET /business/get/ with the fields asked. */
export const BusinessAccount = okWith(
  Schema.Struct({
    username: Schema.optional(Schema.String),
    display_name: Schema.optional(Schema.String),
    profile_image: Schema.optional(Schema.String),
    followers_count: Schema.optional(Schema.Number),
    videos_count: Schema.optional(Schema.Number),
    total_likes: Schema.optional(Schema.Number)
  })
)

/** POST /business/video/publish/ and /business/photo/publish/: the task's id, named `share_id`. */
export const Shared = okWith(Schema.Struct({ share_id: Schema.String }))

/** GET /business/publish/status/: `post_ids` only once the post is public (up to 3 minutes after PUBLISH_COMPLETE). */
export const PublishStatus = okWith(
  Schema.Struct({
    status: Schema.String,
    reason: Schema.optional(Schema.String),
    post_ids: Schema.optional(Schema.Array(Schema.String))
  })
)
export type PublishStatus = typeof PublishStatus.Type.data

/** GET /business/video/list/: the account's recent public posts with the fields asked. */
export const VideoList = okWith(
  Schema.Struct({
    videos: Schema.Array(
      Schema.Struct({
        item_id: Schema.String,
        caption: Schema.optional(Schema.String),
        share_url: Schema.optional(Schema.String),
        video_views: Schema.optional(Schema.Number),
        likes: Schema.optional(Schema.Number),
        comments: Schema.optional(Schema.Number),
        shares: Schema.optional(Schema.Number)
      })
    ),
    has_more: Schema.optional(Schema.Boolean),
    cursor: Schema.optional(Schema.Number)
  })
)

/** POST /business/comment/create/. */
export const CommentCreated = okWith(Schema.Struct({ comment_id: Schema.String, video_id: Schema.optional(Schema.String) }))

/** GET /business/comment/list/: `owner` says the account itself wrote it. */
export const CommentList = okWith(
  Schema.Struct({
    comments: Schema.Array(Schema.Struct({ comment_id: Schema.String, text: Schema.optional(Schema.String), owner: Schema.optional(Schema.Boolean) }))
  })
)

/**
 * What this adapter keeps between the steps of a publish (post_items.network_progress): the
 * task's id, what it posts, and when TikTok first said PUBLISH_COMPLETE (the post's id may
 * follow for 3 minutes).
 */
export const BusinessProgress = Schema.Struct({
  shareId: Schema.String,
  kind: Schema.Literal("video", "photo"),
  completeAt: Schema.optional(Schema.Number)
})
export type BusinessProgress = typeof BusinessProgress.Type
