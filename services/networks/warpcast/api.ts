import { Option, Schema } from "effect"
import { type NetworkAnswer, PublishAnswer } from "../adapter.js"
import type { OutboundResponse } from "../../platform/outbound/request.js"
import { decodeBody, isSuccess, statusAnswer, transportAnswer } from "../networkHttp.js"

/**
 * The hosted signer API (Neynar's, docs.neynar.com/reference): `x-api-key` on every call, a
 * managed signer (`signer_uuid`) that writes for the account, answers as JSON and errors
 * as `ErrorRes` `{message, code?, property?}` with the HTTP status.
 */
export const NAME = "Farcaster"

export const ErrorRes = Schema.Struct({ message: Schema.String, code: Schema.optional(Schema.String), property: Schema.optional(Schema.String) })
export const Signer = Schema.Struct({
  signer_uuid: Schema.String,
  status: Schema.String,
  fid: Schema.optional(Schema.Number),
  signer_approval_url: Schema.optional(Schema.String)
})
export const User = Schema.Struct({
  fid: Schema.Number,
  username: Schema.String,
  display_name: Schema.optional(Schema.String),
  pfp_url: Schema.optional(Schema.NullOr(Schema.String)),
  follower_count: Schema.optional(Schema.Number),
  following_count: Schema.optional(Schema.Number)
})
export const Users = Schema.Struct({ users: Schema.Array(User) })
export const Cast = Schema.Struct({
  hash: Schema.String,
  text: Schema.optional(Schema.String),
  parent_hash: Schema.optional(Schema.NullOr(Schema.String)),
  author: Schema.optional(Schema.Struct({ fid: Schema.Number, username: Schema.optional(Schema.String) })),
  reactions: Schema.optional(Schema.Struct({ likes_count: Schema.optional(Schema.Number), recasts_count: Schema.optional(Schema.Number) })),
  replies: Schema.optional(Schema.Struct({ count: Schema.optional(Schema.Number) }))
})
export const Posted = Schema.Struct({ success: Schema.optional(Schema.Boolean), cast: Cast })
export const Feed = Schema.Struct({ casts: Schema.Array(Cast) })
export const OneCast = Schema.Struct({ cast: Cast })

/** A cast's address in the Farcaster app: the author and the hash's first 10 characters. */
export const castUrl = (username: string | null, hash: string) =>
  username === null ? `https://farcaster.xyz/~/conversations/${hash}` : `https://farcaster.xyz/${username}/${hash.slice(0, 10)}`

const reasonOf = (response: OutboundResponse) =>
  Option.match(decodeBody(ErrorRes, response), { onNone: () => `HTTP ${response.status}`, onSome: (e) => e.message })

const rejection = (response: OutboundResponse) => {
  const reason = reasonOf(response)
  if (response.status === 403 || /signer/i.test(reason)) {
    return {
      message: `Farcaster refused the cast: ${reason}.`,
      fix: "Approve the signer again (or make a new one) and reconnect the channel with it, then retry."
    }
  }
  if (/too long|bytes/i.test(reason)) return { message: `Farcaster refused the cast: ${reason}.`, fix: "Shorten the text, then retry." }
  if (/parent|not found/i.test(reason)) {
    return { message: `Farcaster refused the reply: ${reason}.`, fix: "Check that the cast it answers is still on Farcaster, then retry." }
  }
  return { message: `Farcaster refused the cast: ${reason}.`, fix: "Change the cast as the message says, then retry." }
}

/** The answer to POST /v2/farcaster/cast: the cast's hash, a refusal with a fix, or no answer. */
export const classifyWarpcast = (answer: NetworkAnswer, username: string | null = null): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (isSuccess(response)) {
    const posted = decodeBody(Posted, response)
    if (Option.isSome(posted) && posted.value.success !== false && posted.value.cast.hash !== "") {
      const hash = posted.value.cast.hash
      return PublishAnswer.Published({ releaseId: hash, releaseUrl: castUrl(username ?? posted.value.cast.author?.username ?? null, hash) })
    }
  }
  return statusAnswer(NAME, response, rejection)
}
