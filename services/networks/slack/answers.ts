import { Option, Schema } from "effect"
import { type NetworkAnswer, PublishAnswer } from "../adapter.js"
import { decodeBody, excerpt, retryAfterMs, transportAnswer } from "../networkHttp.js"

/**
 * What Slack's Web API answers mean (docs.slack.dev/apis/web-api): every method answers
 * HTTP 200 with `{ok: true, …}` or `{ok: false, error: "<code>"}`; only a rate limit is an
 * HTTP status of its own (429 with Retry-After). The error code decides the outcome.
 */
const NAME = "Slack"

export const SlackError = Schema.Struct({ ok: Schema.Literal(false), error: Schema.String })
export const PostedMessage = Schema.Struct({ ok: Schema.Literal(true), channel: Schema.String, ts: Schema.String })

/** The token no longer works: the person must reconnect the app. */
const SIGN_IN_ERRORS = new Set([
  "invalid_auth",
  "not_authed",
  "token_revoked",
  "token_expired",
  "account_inactive",
  "no_permission",
  "ekm_access_denied"
])
/** Slack's own trouble, after which the message may or may not exist: searched, never sent again blindly. */
const NO_ANSWER_ERRORS = new Set(["fatal", "internal_error", "request_timeout", "service_unavailable"])

type Response = Extract<NetworkAnswer, { _tag: "Response" }>["response"]

/** Slack's error code as a plain message and what to do about it. */
export const rejectionOf = (error: string): { readonly message: string; readonly fix: string } => {
  const message = `Slack refused the message: ${error}.`
  if (SIGN_IN_ERRORS.has(error))
    return { message: `Slack no longer accepts this channel's sign-in (${error}).`, fix: "Reconnect the channel, then retry the post." }
  if (error === "missing_scope")
    return { message, fix: "Reconnect the channel so that the app gets the chat:write and files:write permissions, then retry." }
  if (error === "channel_not_found" || error === "not_in_channel")
    return {
      message,
      fix: "Invite the app to the channel (/invite @app), or set the post's channel setting to one the channels tool lists, then retry."
    }
  if (error === "is_archived") return { message, fix: "Unarchive the channel or choose another one, then retry." }
  if (error === "msg_too_long" || error === "msg_blocks_too_long") return { message, fix: "Shorten the text to 40000 characters, then retry." }
  if (error === "no_text") return { message, fix: "Write some text or attach a file, then retry." }
  if (error === "restricted_action" || error === "restricted_action_read_only_channel")
    return { message, fix: "Let the app post in the channel (its posting permissions), then retry." }
  return { message, fix: "Change the post as Slack's error says, then retry." }
}

/**
 * A Slack answer that is not the success the caller looked for: rate limited, refused with its
 * error code, or no answer (Slack's own failure, a 5xx, garbage, a 200 without what was asked).
 */
export const failureOf = (answer: NetworkAnswer, what: string): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const response: Response = answer.response
  const error = decodeBody(SlackError, response)
  if (response.status === 429 || Option.exists(error, (e) => e.error === "ratelimited"))
    return PublishAnswer.RateLimited({ retryAfterMs: retryAfterMs(response) })
  if (response.status >= 300 && response.status < 400) return PublishAnswer.NoAnswer({ reason: `${NAME} answered a redirect (${response.status})` })
  if (response.status !== 200 || Option.isNone(error))
    return PublishAnswer.NoAnswer({ reason: `${NAME} answered ${response.status} without ${what}: ${excerpt(response)}` })
  if (NO_ANSWER_ERRORS.has(error.value.error)) return PublishAnswer.NoAnswer({ reason: `${NAME} answered ${error.value.error}` })
  return PublishAnswer.Rejected(rejectionOf(error.value.error))
}

/** The message's address: the workspace's own (from auth.test) with the channel and the ts without its dot. */
export const permalinkOf = (teamUrl: string | undefined, channel: string, ts: string, threadTs: string | null) => {
  const base = (teamUrl ?? "https://slack.com/").replace(/\/*$/, "/")
  const link = `${base}archives/${channel}/p${ts.replace(".", "")}`
  return threadTs === null ? link : `${link}?thread_ts=${threadTs}&cid=${channel}`
}

/** chat.postMessage's answer → published (the ts is the message's id), or why not. */
export const classifySlack = (answer: NetworkAnswer, teamUrl?: string, threadTs: string | null = null): PublishAnswer => {
  if (answer._tag === "Response" && answer.response.status === 200) {
    const posted = decodeBody(PostedMessage, answer.response)
    if (Option.isSome(posted) && posted.value.ts !== "")
      return PublishAnswer.Published({
        releaseId: posted.value.ts,
        releaseUrl: permalinkOf(teamUrl, posted.value.channel, posted.value.ts, threadTs)
      })
  }
  return failureOf(answer, "the message's ts")
}

/** Slack's text escapes: only &, < and > are written as entities (docs.slack.dev, "Formatting text"). */
export const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
export const unescapeText = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")
