import { Effect, Option, Schema } from "effect"
import { ConnectFailed, type NetworkAnswer, PublishAnswer, Refresh, SearchAnswer, Statistics } from "./adapter.js"
import { metricToday } from "./adapterKit.js"
import type { OutboundHttpShape } from "../platform/outbound/outboundHttp.js"
import { call, decodeBody, excerpt, isSuccess, retryAfterMs, sameText, statusAnswer, transportAnswer } from "./networkHttp.js"
import type { OutboundResponse } from "../platform/outbound/request.js"

/**
 * What Instagram (both logins) and Threads share: Meta's Graph API. Errors come as
 * `{error: {message, code, error_subcode, error_user_msg}}`; a post is a container made
 * from public media addresses, processed by the network, then published; ids arrive as `{id}`.
 */

export const GRAPH_VERSION = "v21.0"

const GraphErrorBody = Schema.Struct({
  error: Schema.Struct({
    message: Schema.String,
    code: Schema.optional(Schema.Number),
    error_subcode: Schema.optional(Schema.Number),
    error_user_title: Schema.optional(Schema.String),
    error_user_msg: Schema.optional(Schema.String)
  })
})
export type GraphError = typeof GraphErrorBody.Type.error

export const graphErrorOf = (response: OutboundResponse): Option.Option<GraphError> =>
  Option.map(decodeBody(GraphErrorBody, response), (b) => b.error)

/** Graph's throttling codes (app, user, page and business use limits). */
const THROTTLED = new Set([4, 17, 32, 613, 80001, 80002])
/** How long a Graph throttle lasts when it names no wait. */
const THROTTLE_WAIT_MS = 15 * 60_000

/** The daily publishing cap (Instagram error code 9, subcode 2207042). */
export const isCapReached = (e: GraphError) => e.code === 9 || e.error_subcode === 2207042

const Id = Schema.Struct({ id: Schema.String })

/** A Graph answer to a call that makes something (a container, a post, a comment): its id, or why not. */
export const classifyGraph =
  (networkName: string, urlOf: (id: string) => string) =>
  (answer: NetworkAnswer): PublishAnswer => {
    if (answer._tag === "Failed") return transportAnswer(networkName, answer.error)
    const { response } = answer
    if (isSuccess(response)) {
      const id = decodeBody(Id, response)
      if (Option.isSome(id) && id.value.id !== "") return PublishAnswer.Published({ releaseId: id.value.id, releaseUrl: urlOf(id.value.id) })
    }
    const error = response.status >= 400 && response.status < 500 ? graphErrorOf(response) : Option.none()
    if (Option.isSome(error)) {
      const e = error.value
      if (THROTTLED.has(e.code ?? 0)) return PublishAnswer.RateLimited({ retryAfterMs: retryAfterMs(response, THROTTLE_WAIT_MS) })
      if (e.code === 190 || e.code === 102)
        return PublishAnswer.Rejected({
          message: `${networkName} no longer accepts this channel's sign-in: ${e.message}`,
          fix: "Reconnect the channel, then retry the post."
        })
    }
    return statusAnswer(networkName, response, (r) => {
      const reason = Option.match(error, {
        onNone: () => `HTTP ${r.status}: ${excerpt(r, 120)}`,
        onSome: (e) => (e.error_user_msg === undefined ? e.message : `${e.error_user_msg} (${e.message})`)
      })
      return { message: `${networkName} refused the post: ${reason}`, fix: "Change the post as the message says, then retry." }
    })
  }

/** A call whose answer was not an id (a container, a status) as an answer that says nothing was published. */
export const nothingPublished = (answer: PublishAnswer, what: string): PublishAnswer =>
  answer._tag === "NoAnswer" || answer._tag === "Published"
    ? PublishAnswer.FailedBeforeSending({ reason: `${what} failed: ${answer._tag === "NoAnswer" ? answer.reason : "no id"}` })
    : answer

/** Reads a JSON answer of a successful call. */
export const readGraph = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer): Option.Option<A> =>
  answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()

/** A Graph GET with the token as a bearer header (never in the address, which gets logged). */
export const graphGet = (outbound: OutboundHttpShape, url: string, token: string) =>
  call(outbound, { url, headers: { authorization: `Bearer ${token}`, accept: "application/json" } })

/** A Graph POST of form fields. */
export const graphPost = (outbound: OutboundHttpShape, url: string, token: string, fields: Readonly<Record<string, string>>) =>
  call(outbound, {
    url,
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(fields).toString()
  })

/** A connect step that got no usable answer. */
export const connectFailedGraph = (networkName: string, answer: NetworkAnswer): ConnectFailed => {
  if (answer._tag === "Failed") return new ConnectFailed({ message: `${networkName} could not be reached (${answer.error._tag}).` })
  const reason = Option.match(graphErrorOf(answer.response), { onNone: () => excerpt(answer.response, 160), onSome: (e) => e.message })
  return new ConnectFailed({ message: `${networkName} refused the sign-in (${answer.response.status}): ${reason}` })
}

/** A long-lived token's answer (`{access_token, token_type, expires_in}`). */
export const LongLivedToken = Schema.Struct({ access_token: Schema.String, expires_in: Schema.optional(Schema.Number) })

/**
 * The refresh of a long-lived Meta token (Instagram Login's `ig_refresh_token`, Threads'
 * `th_refresh_token`): the token itself is exchanged for a new one while it is valid.
 */
export const refreshLongLived = (
  current: { readonly accessToken: string; readonly expiresAt: string },
  marginMs: number,
  exchange: (token: string) => Effect.Effect<NetworkAnswer>
): Effect.Effect<Refresh> =>
  Effect.gen(function* () {
    const left = Date.parse(current.expiresAt) - Date.now()
    if (Number.isFinite(left) && left > marginMs) return Refresh.Unchanged()
    const answer = yield* exchange(current.accessToken)
    if (answer._tag === "Failed") return Refresh.Unavailable({ reason: answer.error._tag })
    const { response } = answer
    if (response.status >= 500 || response.status === 429) return Refresh.Unavailable({ reason: `HTTP ${response.status}` })
    const t = readGraph(LongLivedToken, answer)
    if (Option.isNone(t)) {
      const why = Option.match(graphErrorOf(response), { onNone: () => excerpt(response, 120), onSome: (e) => e.message })
      return Refresh.Failed({ reason: `HTTP ${response.status}: ${why}` })
    }
    return Refresh.Refreshed({
      credentials: {
        ...current,
        accessToken: t.value.access_token,
        expiresAt: new Date(Date.now() + (t.value.expires_in ?? 5_184_000) * 1000).toISOString()
      }
    })
  })

/** A recent post (or comment, or reply) as Graph lists them. */
const Listed = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      caption: Schema.optional(Schema.String),
      text: Schema.optional(Schema.String),
      permalink: Schema.optional(Schema.String)
    })
  )
})

/** The account's recent posts searched for the item's text: Found, NotFound, or CannotTell when the list cannot be read. */
export const searchListed = (answer: NetworkAnswer, content: string, urlOf: (id: string, permalink: string | undefined) => string): SearchAnswer => {
  const listed = readGraph(Listed, answer)
  if (Option.isNone(listed)) {
    const why = answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}`
    return SearchAnswer.CannotTell({ reason: `the recent posts could not be read (${why})` })
  }
  const found = listed.value.data.find((m) => sameText(m.caption ?? m.text ?? "", content))
  return found === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: found.id, releaseUrl: urlOf(found.id, found.permalink) })
}

/** Graph insights (`{data: [{name, title, values: [{value}]}]}`) as today's metrics. */
const Insights = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      title: Schema.optional(Schema.String),
      description: Schema.optional(Schema.String),
      values: Schema.optional(Schema.Array(Schema.Struct({ value: Schema.Number }))),
      total_value: Schema.optional(Schema.Struct({ value: Schema.Number }))
    })
  )
})

export const insightsAnswer = (networkName: string, answer: NetworkAnswer): Statistics =>
  Option.match(readGraph(Insights, answer), {
    onNone: () =>
      Statistics.Missing({
        message: `${networkName} did not share statistics for this post (${answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}`}).`
      }),
    onSome: (insights) =>
      Statistics.Metrics({
        metrics: insights.data.map((m) =>
          metricToday(m.title ?? m.name, m.total_value?.value ?? m.values?.[0]?.value ?? 0, m.description === undefined ? undefined : m.description)
        )
      })
  })
