import { Schema } from "effect"
import { MediaFactsSchema } from "../../domain/media/factsSchema.js"
import { channelStatuses } from "../../domain/posts/states.js"

/** Spec: Resources → Post row (GET /posts item), one row per channel. */
export const PostRow = Schema.Struct({
  id: Schema.String,
  group: Schema.String,
  content: Schema.String,
  publishDate: Schema.String,
  releaseURL: Schema.NullOr(Schema.String),
  releaseId: Schema.NullOr(Schema.String),
  state: Schema.Literal("DRAFT", "QUEUE", "PUBLISHED", "ERROR"),
  status: Schema.Literal(...channelStatuses),
  error: Schema.NullOr(Schema.Struct({ message: Schema.String, fix: Schema.String })),
  intervalInDays: Schema.NullOr(Schema.Number),
  creationMethod: Schema.String,
  settings: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  tags: Schema.Array(Schema.Struct({ tag: Schema.Struct({ id: Schema.String, name: Schema.String, color: Schema.String }) })),
  image: Schema.Array(Schema.Struct({ id: Schema.String, path: Schema.String, alt: Schema.String })),
  integration: Schema.Struct({
    id: Schema.String,
    providerIdentifier: Schema.String,
    name: Schema.String,
    picture: Schema.NullOr(Schema.String)
  })
}).annotations({ identifier: "PostRow" })

/** A file on an item (also how the posts store keeps it: a snapshot taken when the post was saved). */
export const ItemMedia = Schema.Struct({
  id: Schema.String,
  alt: Schema.String,
  url: Schema.String,
  mime: Schema.String,
  name: Schema.String,
  size: Schema.Number,
  type: Schema.String,
  width: Schema.Number,
  height: Schema.Number,
  /** What the library read from the file when the post was saved (files of the library only). */
  facts: Schema.optional(MediaFactsSchema)
})

/** Root and each thread entry of a channel (spec: Whole post → Item). */
export const PostItem = Schema.Struct({
  id: Schema.String,
  channelId: Schema.String,
  position: Schema.Number,
  content: Schema.String,
  media: Schema.Array(ItemMedia),
  settings: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  delay: Schema.Number,
  state: Schema.String,
  releaseId: Schema.NullOr(Schema.String),
  releaseUrl: Schema.NullOr(Schema.String),
  publishedAt: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.Struct({ message: Schema.String, fix: Schema.String })),
  held: Schema.NullOr(Schema.String),
  heldAt: Schema.NullOr(Schema.String),
  /** What a held item waits for on its network (`held` processing or network-limit), in plain language. */
  waitingFor: Schema.NullOr(Schema.String),
  attempts: Schema.Number
}).annotations({ identifier: "PostItem" })

/** Spec: Whole post (GET /posts/{id} and the PUT post operations). */
export const WholePost = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("draft", "review", "scheduled", "changes", "published", "partial", "error"),
  approvalStatus: Schema.NullOr(Schema.String),
  approvedBy: Schema.NullOr(Schema.String),
  publishAt: Schema.String,
  repeatDays: Schema.NullOr(Schema.Number),
  shortLink: Schema.Boolean,
  creationMethod: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  tags: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, color: Schema.String })),
  shareUrl: Schema.String,
  channels: Schema.Array(
    Schema.Struct({
      postId: Schema.String.annotations({ description: "The channel's per-channel post id (PUT /posts/{id}/settings and release-id take it)" }),
      channelId: Schema.String,
      channelName: Schema.String,
      provider: Schema.String,
      picture: Schema.NullOr(Schema.String),
      username: Schema.String,
      root: PostItem,
      thread: Schema.Array(PostItem)
    })
  ),
  comments: Schema.Array(
    Schema.Struct({ id: Schema.String, author: Schema.String, role: Schema.String, content: Schema.String, created_at: Schema.String })
  ),
  activity: Schema.Array(
    Schema.Struct({ actor: Schema.String, action: Schema.String, detail: Schema.NullOr(Schema.String), created_at: Schema.String })
  )
}).annotations({ identifier: "WholePost" })
export type WholePost = typeof WholePost.Type

/** POST /posts answer row. */
export const CreatedPostRow = Schema.Struct({
  postId: Schema.String,
  group: Schema.String,
  integration: Schema.String,
  status: Schema.Literal(...channelStatuses).annotations({
    description:
      "What the channel is after the request: `draft` or `queued` for what it wrote; a channel an edit kept (published, publishing, pending, unconfirmed) says so"
  }),
  previewUrl: Schema.String,
  preparation: Schema.optional(Schema.Array(Schema.String)).annotations({
    description:
      "What will be done to the channel's files before they are sent, to fit the network's media rules (one line per file); absent when they go as they are"
  })
}).annotations({ identifier: "CreatedPost" })

/** One network call of an attempt (GET /posts/{id}/attempts): the path masks anything that may be secret. */
export const AttemptCall = Schema.Struct({
  method: Schema.String,
  host: Schema.String,
  path: Schema.String,
  status: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String),
  startedAt: Schema.String,
  durationMs: Schema.Number
}).annotations({ identifier: "AttemptCall" })

/** One publish attempt of an item, in the attempt timeline. */
export const PostAttempt = Schema.Struct({
  channelId: Schema.String,
  itemId: Schema.String,
  position: Schema.Number.annotations({ description: "0: the post; 1..: its follow-ups" }),
  attempt: Schema.Number,
  operation: Schema.NullOr(Schema.String).annotations({
    description: "publish, follow-up, continue (a later step of a publish in several steps), search or search-first; null while it runs"
  }),
  startedAt: Schema.String,
  durationMs: Schema.NullOr(Schema.Number).annotations({ description: "null while it runs" }),
  networkStatus: Schema.NullOr(Schema.Number).annotations({ description: "The status of the network's last answer; null when none came" }),
  error: Schema.NullOr(Schema.String).annotations({ description: "The network's error text as received, else this service's reason" }),
  outcome: Schema.String.annotations({
    description: "published, rejected, unconfirmed, pending (not live yet: processing), rate_limited, not_sent, or running"
  }),
  calls: Schema.Array(AttemptCall)
}).annotations({ identifier: "PostAttempt" })
export type PostAttempt = typeof PostAttempt.Type

/** POST /posts/preview: what each channel's network will receive, and the planId that commits exactly that. */
export const PostPreview = Schema.Struct({
  planId: Schema.String.annotations({
    description: "Send it with the same body to POST /posts: it publishes this plan or answers 409 naming what changed"
  }),
  channels: Schema.Array(
    Schema.Struct({
      channelId: Schema.String,
      channelName: Schema.String,
      network: Schema.String,
      items: Schema.Array(
        Schema.Struct({
          content: Schema.String.annotations({ description: "The text as the network receives it (short links shown with a placeholder code)" }),
          length: Schema.Number.annotations({ description: "As the network counts it" }),
          maxLength: Schema.Number,
          media: Schema.Array(
            Schema.Struct({
              id: Schema.NullOr(Schema.String),
              path: Schema.NullOr(Schema.String),
              name: Schema.NullOr(Schema.String),
              type: Schema.NullOr(Schema.String),
              size: Schema.NullOr(Schema.Number)
            })
          )
        })
      ),
      settings: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
      preparation: Schema.Array(Schema.String).annotations({
        description: "What preparation will do to the files, one line per file that gets a rendition"
      }),
      problems: Schema.Array(Schema.Struct({ message: Schema.String })).annotations({
        description: "What POST /posts would refuse, with its messages"
      }),
      warnings: Schema.Array(Schema.Struct({ message: Schema.String })).annotations({ description: "What is close to a limit" })
    })
  )
}).annotations({ identifier: "PostPreview" })
export type PostPreview = typeof PostPreview.Type
