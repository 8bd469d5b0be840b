import { Option, Schema } from "effect"
import { type NetworkAnswer, PublishAnswer } from "../adapter.js"
import { decodeBody, excerpt, isSuccess, statusAnswer, transportAnswer } from "../networkHttp.js"
import type { OutboundResponse } from "../../platform/outbound/request.js"

/**
 * How the Graph API answers (developers.facebook.com/docs/graph-api/guides/error-handling):
 * an object with `id` on success, else `{error: {message, type, code, error_subcode}}`,
 * mostly with HTTP 400 whatever the cause, so the code says what happened.
 */
const NAME = "Facebook"

export const GraphError = Schema.Struct({
  error: Schema.Struct({
    message: Schema.String,
    type: Schema.optional(Schema.String),
    code: Schema.optional(Schema.Number),
    error_subcode: Schema.optional(Schema.Number),
    is_transient: Schema.optional(Schema.Boolean)
  })
})
export type GraphError = typeof GraphError.Type

/** Codes of the Graph API's rate limits (application, user, page, custom): wait, nothing was posted. */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80001])
/** Code 190 (and 102) is a token that no longer works: expired, revoked or changed password. */
const TOKEN_CODES = new Set([102, 190])

export const graphErrorOf = (response: OutboundResponse) => decodeBody(GraphError, response)

/** The Graph error's words for a person, or the status and an excerpt. */
export const graphReason = (response: OutboundResponse) =>
  Option.match(graphErrorOf(response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (e) => e.error.message
  })

const rejection = (response: OutboundResponse) => {
  const reason = graphReason(response)
  return /\(#324\)|\(#389\)|image|photo|video|file/i.test(reason)
    ? {
        message: `Facebook could not take the post's files: ${reason}`,
        fix: "Check that the files are images or a video Facebook takes, then retry."
      }
    : { message: `Facebook refused the post: ${reason}`, fix: "Change the post as the message says, then retry." }
}

/** A Graph error that is not the post's fault: a rate limit, a dead token, a transient failure. */
export const graphStatusAnswer = (response: OutboundResponse): PublishAnswer => {
  const error = Option.getOrUndefined(graphErrorOf(response))?.error
  if (error !== undefined && response.status >= 400 && response.status < 500) {
    if (error.code !== undefined && RATE_LIMIT_CODES.has(error.code)) return PublishAnswer.RateLimited({ retryAfterMs: 15 * 60_000 })
    // 368: temporarily blocked from posting (Meta: "wait and retry the operation")
    if (error.code === 368) return PublishAnswer.RateLimited({ retryAfterMs: 60 * 60_000 })
    if (error.code !== undefined && TOKEN_CODES.has(error.code))
      return PublishAnswer.Rejected({
        message: `Facebook no longer accepts this channel's sign-in: ${error.message}`,
        fix: "Reconnect the channel, then retry the post."
      })
    if (error.is_transient === true || error.code === 1 || error.code === 2)
      return PublishAnswer.NoAnswer({ reason: `Facebook answered a temporary failure: ${error.message}` })
  }
  return statusAnswer(NAME, response, rejection)
}

/** A post, photo, comment or video: `id`; a photo post also `post_id`; a story only `post_id` (with `success`). */
const Created = Schema.Struct({ id: Schema.optional(Schema.String), post_id: Schema.optional(Schema.String) })

/** The address Facebook opens for a post, comment or video id. */
export const facebookUrl = (id: string) => `https://www.facebook.com/${id}`

/** A created post, photo post or comment: its id (post_id when a photo answers both). */
export const classifyFacebook = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (isSuccess(response)) {
    const created = decodeBody(Created, response)
    const id = Option.getOrUndefined(created)?.post_id ?? Option.getOrUndefined(created)?.id
    if (id !== undefined && id !== "") return PublishAnswer.Published({ releaseId: id, releaseUrl: facebookUrl(id) })
  }
  return graphStatusAnswer(response)
}
