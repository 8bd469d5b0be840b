import { Option, Schema } from "effect"
import { type NetworkAnswer, PublishAnswer } from "../adapter.js"
import type { OutboundResponse } from "../../platform/outbound/request.js"
import { decodeBody, statusAnswer, transportAnswer } from "../networkHttp.js"

/**
 * VK's API answers (dev.vk.com/en/api/api-requests, /en/reference/errors): every method is
 * `POST {VK_API_URL}/{method}` with `access_token` and `v`, and answers HTTP 200 with either
 * `{response: …}` or `{error: {error_code, error_msg}}`, so the status alone says nothing.
 */
export const NAME = "VK"
/** The API version this adapter is written against (dev.vk.com/en/reference/version). */
export const VK_VERSION = "5.199"

export const Ok = <A, I>(response: Schema.Schema<A, I>) => Schema.Struct({ response })
export const VkError = Schema.Struct({ error: Schema.Struct({ error_code: Schema.Number, error_msg: Schema.String }) })

export const PostCreated = Schema.Struct({ post_id: Schema.Number })
export const CommentCreated = Schema.Struct({ comment_id: Schema.Number })
// made once: a schema made per answer would compile its decoder per answer
const PostAnswer = Ok(PostCreated)
const CommentAnswer = Ok(CommentCreated)
const Count = Schema.optional(Schema.Struct({ count: Schema.Number }))
export const WallPost = Schema.Struct({
  id: Schema.Number,
  owner_id: Schema.optional(Schema.Number),
  text: Schema.optional(Schema.String),
  likes: Count,
  reposts: Count,
  comments: Count,
  views: Count
})
export const WallItems = Schema.Struct({ count: Schema.optional(Schema.Number), items: Schema.Array(WallPost) })
export const Comment = Schema.Struct({ id: Schema.Number, text: Schema.optional(Schema.String) })
export const CommentItems = Schema.Struct({ items: Schema.Array(Comment) })
/** wall.getById answers `{items}` since 5.136 (a bare array before): both are read. */
export const PostsById = Schema.Union(Schema.Array(WallPost), Schema.Struct({ items: Schema.Array(WallPost) }))
export const Group = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  screen_name: Schema.optional(Schema.String),
  photo_200: Schema.optional(Schema.NullOr(Schema.String))
})
/** groups.getById answers `{groups}` since 5.194 (a bare array before). */
export const Groups = Schema.Union(Schema.Array(Group), Schema.Struct({ groups: Schema.Array(Group) }))
export const User = Schema.Struct({
  id: Schema.Number,
  first_name: Schema.optional(Schema.String),
  last_name: Schema.optional(Schema.String),
  screen_name: Schema.optional(Schema.String),
  photo_200: Schema.optional(Schema.NullOr(Schema.String))
})
export const UploadServer = Schema.Struct({ upload_url: Schema.String })
/** What the upload server answers for a wall photo: handed to photos.saveWallPhoto as it is. */
export const Uploaded = Schema.Struct({ server: Schema.Number, photo: Schema.String, hash: Schema.String })
export const SavedPhotos = Schema.NonEmptyArray(Schema.Struct({ id: Schema.Number, owner_id: Schema.Number }))

/** The `response` of a 200 answer, decoded; None for an error, garbage or another shape. */
export const resultOf = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer): Option.Option<A> =>
  answer._tag === "Response" && answer.response.status === 200
    ? Option.map(decodeBody(Ok(schema), answer.response), (r) => r.response)
    : Option.none()

export const errorOf = (response: OutboundResponse) => Option.map(decodeBody(VkError, response), (b) => b.error)

/** The address of a wall post (and of a comment on it). */
export const wallUrl = (ownerId: number, postId: number | string, commentId?: number | string) =>
  `https://vk.com/wall${ownerId}_${postId}${commentId === undefined ? "" : `?reply=${commentId}`}`

/** Too many requests a second (6): a second's wait. Flood control (9): VK names no wait; ten minutes. */
const TOO_MANY_WAIT_MS = 1000
const FLOOD_WAIT_MS = 10 * 60_000

/** One of VK's documented error codes → what it means for a publish. */
export const errorAnswer = (code: number, message: string): PublishAnswer => {
  const said = `VK refused the post: ${message} (error ${code}).`
  switch (code) {
    case 5:
      return PublishAnswer.Rejected({
        message: `VK no longer accepts this channel's token: ${message}.`,
        fix: "Reconnect the channel with a new token, then retry."
      })
    case 6:
      return PublishAnswer.RateLimited({ retryAfterMs: TOO_MANY_WAIT_MS })
    case 9:
      return PublishAnswer.RateLimited({ retryAfterMs: FLOOD_WAIT_MS })
    case 1:
    case 10:
      // unknown or internal error: VK may have made the post before failing
      return PublishAnswer.NoAnswer({ reason: `VK answered error ${code}: ${message}` })
    case 14:
      return PublishAnswer.Rejected({
        message: `VK asks for a captcha before it takes more posts (${message}).`,
        fix: "Post once by hand on VK as the account (solving the captcha), then retry."
      })
    case 214:
    case 219:
    case 220:
      return PublishAnswer.Rejected({
        message: said,
        fix: "Check that the token's account may post on this wall (an administrator of the community, wall open), then retry."
      })
    case 7:
    case 15:
    case 27:
      return PublishAnswer.Rejected({ message: said, fix: "Reconnect the channel with a token that has the wall and photos rights, then retry." })
    default:
      return PublishAnswer.Rejected({ message: said, fix: "Change the post as the message says, then retry." })
  }
}

const rejection = (response: OutboundResponse) => ({
  message: `VK refused the post (HTTP ${response.status}).`,
  fix: "Change the post as the message says, then retry."
})

/**
 * VK's answer to wall.post or wall.createComment: the new post's or comment's id, a
 * documented error, or no answer. `ownerId` makes the address (null: not known here).
 */
export const classifyVk = (answer: NetworkAnswer, ownerId: number | null, rootPostId: string | null = null): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (response.status === 200) {
    const failed = errorOf(response)
    if (Option.isSome(failed)) return errorAnswer(failed.value.error_code, failed.value.error_msg)
    const post = Option.map(decodeBody(PostAnswer, response), (r) => r.response.post_id)
    if (Option.isSome(post)) {
      return PublishAnswer.Published({ releaseId: String(post.value), releaseUrl: ownerId === null ? "" : wallUrl(ownerId, post.value) })
    }
    const comment = Option.map(decodeBody(CommentAnswer, response), (r) => r.response.comment_id)
    if (Option.isSome(comment)) {
      const url = ownerId === null || rootPostId === null ? "" : wallUrl(ownerId, rootPostId, comment.value)
      return PublishAnswer.Published({ releaseId: String(comment.value), releaseUrl: url })
    }
  }
  return statusAnswer(NAME, response, rejection)
}
