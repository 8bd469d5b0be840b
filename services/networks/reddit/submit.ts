import { Data, Option, Schema } from "effect"
import type { OutboundResponse } from "../../platform/outbound/request.js"
import { decodeBody } from "../networkHttp.js"

/** What Reddit's submit and comment answers mean, and the post's subreddit setting as the adapter reads it. */

/** One subreddit to post in: the `subreddit` setting's entry ({subreddit, title, type, url, flair_id}, or `{value: …}`). */
export interface Entry {
  readonly subreddit: string
  readonly title: string
  readonly type: string | undefined
  readonly url: string | undefined
  readonly flairId: string | undefined
  readonly flairText: string | undefined
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)
const fieldsOf = (entry: unknown): Readonly<Record<string, unknown>> => {
  if (typeof entry !== "object" || entry === null) return {}
  const value: unknown = "value" in entry ? entry.value : entry
  return typeof value === "object" && value !== null ? (value as Readonly<Record<string, unknown>>) : {}
}

/** The subreddits of the post's settings that have a subreddit and a title (rules refuse the others before saving). */
export const entriesOf = (settings: Readonly<Record<string, unknown>>): ReadonlyArray<Entry> => {
  const list = settings["subreddit"]
  if (!Array.isArray(list)) return []
  return list.flatMap((raw: unknown) => {
    const f = fieldsOf(raw)
    const subreddit = text(f["subreddit"])?.replace(/^\/?r\//i, "")
    const title = text(f["title"])
    if (subreddit === undefined || title === undefined) return []
    const flair = fieldsOf(f["flair"])
    return [
      {
        subreddit,
        title: title.slice(0, 300),
        type: text(f["type"]),
        url: text(f["url"]),
        flairId: text(f["flair_id"]) ?? text(flair["id"]),
        flairText: text(f["flair_text"]) ?? text(flair["name"])
      }
    ]
  })
}

/** A submission that is live in one subreddit. */
export const Posted = Schema.Struct({ subreddit: Schema.String, name: Schema.String, url: Schema.String })
export type Posted = typeof Posted.Type
/** A video submit Reddit took (it names the post once the video is processed): looked for, never submitted again. */
export const Awaited = Schema.Struct({ subreddit: Schema.String, since: Schema.Number })
export type Awaited = typeof Awaited.Type
/** The subreddits already posted in (a post to several is one step each), and a video submit still being processed. */
export const RedditProgress = Schema.Struct({ done: Schema.Array(Posted), awaiting: Schema.optional(Awaited) })
export type RedditProgress = typeof RedditProgress.Type

export const redditUrl = (permalink: string) => (permalink.startsWith("http") ? permalink : `https://www.reddit.com${permalink}`)

const SubmitAnswer = Schema.Struct({
  json: Schema.Struct({
    errors: Schema.Array(Schema.Array(Schema.NullOr(Schema.String))),
    data: Schema.optional(
      Schema.Struct({
        name: Schema.optional(Schema.String),
        url: Schema.optional(Schema.String),
        user_submitted_page: Schema.optional(Schema.String),
        websocket_url: Schema.optional(Schema.String),
        things: Schema.optional(
          Schema.Array(
            Schema.Struct({ kind: Schema.String, data: Schema.Struct({ name: Schema.String, permalink: Schema.optional(Schema.String) }) })
          )
        )
      })
    )
  })
})

export type Submitted = Data.TaggedEnum<{
  Posted: { readonly name: string; readonly url: string }
  /** Taken without an id (image and video posts: Reddit names them on a websocket). */
  Accepted: {}
  Refused: { readonly text: string; readonly fix: string }
  RateLimited: { readonly retryAfterMs: number }
}>
const Submitted = Data.taggedEnum<Submitted>()

/** "Take a break for 5 minutes before trying again." → its wait. */
const waitOf = (message: string) => {
  const match = /(\d+)\s*(minute|second|millisecond)/i.exec(message)
  if (match === null) return 60_000
  const n = Number(match[1])
  const unit = match[2]?.toLowerCase() ?? "minute"
  return Math.max(1000, unit === "minute" ? n * 60_000 : unit === "second" ? n * 1000 : n)
}

const fixOf = (code: string) => {
  if (/TITLE/.test(code)) return "Change the subreddit entry's title as Reddit says, then retry."
  if (/SUBREDDIT|BANNED|NO_SELFS|NO_LINKS|NO_IMAGES|NO_VIDEOS/.test(code))
    return "Check the subreddit takes this kind of post from this account, then retry."
  if (/TOO_LONG/.test(code)) return "Shorten the text, then retry."
  return "Change the post as Reddit says, then retry."
}

/** A 2xx submit or comment answer (`api_type=json`); None when it is not Reddit's shape. */
export const submitAnswerOf = (response: OutboundResponse): Option.Option<Submitted> =>
  Option.flatMap(decodeBody(SubmitAnswer, response), ({ json }): Option.Option<Submitted> => {
    const first = json.errors[0]
    if (first !== undefined) {
      const code = first[0] ?? "ERROR"
      const message = first[1] ?? code
      if (code === "RATELIMIT") return Option.some(Submitted.RateLimited({ retryAfterMs: waitOf(message) }))
      return Option.some(Submitted.Refused({ text: `${message} (${code}${first[2] ? `, ${first[2]}` : ""})`, fix: fixOf(code) }))
    }
    const thing = json.data?.things?.[0]?.data
    if (thing !== undefined) return Option.some(Submitted.Posted({ name: thing.name, url: redditUrl(thing.permalink ?? "/") }))
    const name = json.data?.name
    if (name !== undefined && name !== "") return Option.some(Submitted.Posted({ name, url: redditUrl(json.data?.url ?? "/") }))
    return json.data?.user_submitted_page !== undefined || json.data?.websocket_url !== undefined ? Option.some(Submitted.Accepted()) : Option.none()
  })
