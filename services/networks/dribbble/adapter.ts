import { Effect, Option, Redacted, Schema } from "effect"
import { ConnectFailed, type NetworkAdapter, type NetworkAnswer, PublishAnswer, type PublishRequest, Refresh, SearchAnswer } from "../adapter.js"
import {
  answerOf,
  connectFailedFrom,
  decodeForVerify,
  networkAppConfig,
  noStatistics,
  readAllMedia,
  readCredentials,
  unknownTool
} from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import {
  bearerJson,
  call,
  decodeBody,
  isSuccess,
  multipart,
  retryAfterMs,
  sameText,
  statusAnswer,
  transportAnswer,
  trimBase
} from "../networkHttp.js"
import { DribbbleError, DribbbleProgress, DribbbleToken, DribbbleUser, SHOT_SIZES, Shot, Shots } from "./api.js"

/**
 * Dribbble API v2 (developer.dribbble.com/v2): OAuth 2.0 on dribbble.com with the `public`
 * and `upload` scopes (tokens do not expire), a shot of exactly one image created with a
 * multipart POST /shots. Dribbble answers 202 Accepted with the shot's Location and
 * processes it afterwards: the address answers 404 until the shot is ready.
 *
 * Steps (docs/publishing.md, "Publishes in several steps"): the create answers the shot's
 * id, kept as progress; GET /shots/:id is asked at once and again while Dribbble processes.
 * No comments through the API, no statistics in v2.
 */
const NAME = "Dribbble"
const SCOPES = "public upload"
const PROCESSING_RETRY_MS = 5_000
/** Dribbble: "If this takes longer than five minutes, be sure to contact support"; twice that is given up. */
const PROCESSING_GIVE_UP_MS = 10 * 60_000
/** Dribbble gives a title no documented limit: this service sends the first line, at most this long. */
const TITLE_MAX = 100
/** Dribbble: "Limited to a maximum of 12 tags." */
const TAGS_MAX = 12

export interface DribbbleOptions {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({ accessToken: Schema.String, login: Schema.optional(Schema.String) })
type Stored = typeof Stored.Type

/** The shot's title (the text's first line) and tags (its hashtags). */
export const shotFields = (content: string) => ({
  title: (content.split("\n").find((line) => line.trim() !== "") ?? "").trim().slice(0, TITLE_MAX),
  tags: [...new Set([...content.matchAll(/(?:^|\s)#([\p{L}\p{N}_-]+)/gu)].map((m) => m[1]!.toLowerCase()))].slice(0, TAGS_MAX)
})

/** Dribbble's refusal in its own words: the message and each field's complaint. */
const rejection = (response: Extract<NetworkAnswer, { _tag: "Response" }>["response"]) =>
  Option.match(decodeBody(DribbbleError, response), {
    onNone: () => ({ message: `Dribbble refused the shot (HTTP ${response.status}).`, fix: "Check the shot against Dribbble's rules, then retry." }),
    onSome: (e) => {
      const details = (e.errors ?? []).map((x) => (x.attribute === undefined ? x.message : `${x.attribute} ${x.message}`)).join("; ")
      return {
        message: `Dribbble refused the shot: ${e.message}${details === "" ? "" : ` (${details})`}`,
        fix:
          response.status === 403
            ? "Only Dribbble accounts that may upload shots can post: check the account on Dribbble."
            : /image/i.test(details)
              ? "Use a 400×300, 800×600 or 1600×1200 GIF, JPG or PNG of at most 8 MB, then retry."
              : "Change the shot as the message says, then retry."
      }
    }
  })

/** 429: Retry-After, else the reset time Dribbble gives in X-RateLimit-Reset (epoch seconds). */
const rateLimitWait = (response: Extract<NetworkAnswer, { _tag: "Response" }>["response"]) => {
  const reset = Number(response.headers["x-ratelimit-reset"])
  const fromReset = Number.isFinite(reset) && reset > 0 ? Math.max(1000, reset * 1000 - Date.now()) : 60_000
  return retryAfterMs(response, fromReset)
}

const classifyDribbble = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  if (answer.response.status === 429) return PublishAnswer.RateLimited({ retryAfterMs: rateLimitWait(answer.response) })
  return statusAnswer(NAME, answer.response, rejection)
}

/** The shot's id from the Location Dribbble answers with the 202 (`…/shots/:id`). */
const shotIdOf = (answer: NetworkAnswer) => {
  if (answer._tag !== "Response" || answer.response.status !== 202) return undefined
  const location = answer.response.headers["location"]
  const text = Array.isArray(location) ? location[0] : location
  return text === undefined ? undefined : /\/shots\/(\d+)\/?$/.exec(text)?.[1]
}

export const makeDribbbleAdapterWith = (options: DribbbleOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const get = (accessToken: string, path: string) => call(outbound, { url: `${api}${path}`, headers: bearerJson(accessToken) })

    const connected = (accessToken: string) =>
      Effect.gen(function* () {
        const answer = yield* get(accessToken, "/user")
        const user = read(DribbbleUser, answer)
        if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
        const u = user.value
        // only players and teams may create shots: a connection that could never post is refused now
        if (u.can_upload_shot === false) {
          return yield* new ConnectFailed({ message: `The Dribbble account ${u.login} may not upload shots, so nothing could be posted to it.` })
        }
        return {
          credentials: { accessToken, login: u.login },
          profile: { accountId: String(u.id), name: u.name ?? u.login, profile: u.login, picture: u.avatar_url ?? null }
        }
      })

    /** The shot's state: Published when Dribbble shows it, Pending while it answers 404 (processing), given up after a while. */
    const settle = (c: Stored, progress: DribbbleProgress) =>
      Effect.gen(function* () {
        const answer = yield* get(c.accessToken, `/shots/${progress.shotId}`)
        const shot = read(Shot, answer)
        if (Option.isSome(shot)) return PublishAnswer.Published({ releaseId: String(shot.value.id), releaseUrl: shot.value.html_url })
        if (answer._tag === "Response" && answer.response.status === 404 && Date.now() - progress.since > PROCESSING_GIVE_UP_MS) {
          return PublishAnswer.Rejected({
            message: `Dribbble took the shot but has not shown it after ${PROCESSING_GIVE_UP_MS / 60_000} minutes of processing.`,
            fix: "Check the account's shots on Dribbble (and ask Dribbble's support), then retry if it is not there."
          })
        }
        // the shot went to Dribbble: anything else is asked again later, never sent twice
        return PublishAnswer.Pending({ progress, kind: "processing", waitingFor: "Dribbble to process the shot", retryAfterMs: PROCESSING_RETRY_MS })
      })

    const start = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const image = request.media[0]
        if (request.media.length !== 1 || image === undefined || image.type !== "image") {
          return PublishAnswer.Rejected({ message: "A Dribbble shot is exactly one image.", fix: "Attach one image (GIF, JPG or PNG), then retry." })
        }
        // sizes as stored (0: not known, Dribbble checks)
        if (image.width > 0 && image.height > 0 && !SHOT_SIZES.some(([w, h]) => w === image.width && h === image.height)) {
          return PublishAnswer.Rejected({
            message: `The image is ${image.width}×${image.height}; Dribbble takes only 400×300, 800×600 or 1600×1200.`,
            fix: "Crop or scale the image to one of those sizes, upload it again, then retry."
          })
        }
        const { tags, title } = shotFields(request.item.content)
        if (title === "")
          return PublishAnswer.Rejected({ message: "A Dribbble shot needs a title: the text's first line.", fix: "Write a first line, then retry." })
        const [file] = yield* readAllMedia(media, [image])
        const form = multipart([
          { name: "image", filename: file!.name, mime: file!.mime, bytes: file!.bytes },
          { name: "title", value: title },
          { name: "description", value: request.item.content },
          ...tags.map((tag) => ({ name: "tags[]", value: tag }))
        ])
        const answer = yield* call(outbound, {
          url: `${api}/shots`,
          method: "POST",
          headers: { authorization: `Bearer ${c.accessToken}`, "content-type": form.contentType, accept: "application/json" },
          body: form.body
        })
        const shotId = shotIdOf(answer)
        if (shotId === undefined) {
          const why = classifyDribbble(answer)
          // a 202 without a usable Location: the shot was taken, its id is not known
          return answer._tag === "Response" && answer.response.status === 202
            ? PublishAnswer.NoAnswer({ reason: "Dribbble accepted the shot without its address" })
            : why
        }
        return yield* settle(c, { shotId, since: Date.now() })
      })

    const progressOf = (request: PublishRequest) =>
      Option.flatMap(Option.fromNullable(request.progress), Schema.decodeUnknownOption(DribbbleProgress))

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const progress = progressOf(request)
          return Option.isNone(progress) ? yield* start(c, request) : yield* settle(c, progress.value)
        })
      )

    /**
     * A lost answer. With the shot's id: its address (Found, or Unfinished while it answers
     * 404). Without: the account's shots by title; a shot Dribbble is still processing is not
     * listed yet, so not finding it cannot tell.
     */
    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const progress = progressOf(request)
        if (Option.isSome(progress)) {
          const found = yield* settle(c.value, progress.value)
          if (found._tag === "Published") return SearchAnswer.Found({ releaseId: found.releaseId, releaseUrl: found.releaseUrl })
          return found._tag === "Pending" ? SearchAnswer.Unfinished({ progress: progress.value }) : SearchAnswer.NotFound()
        }
        const shots = read(Shots, yield* get(c.value.accessToken, "/user/shots?per_page=30"))
        if (Option.isNone(shots)) return SearchAnswer.CannotTell({ reason: "Dribbble did not list the account's shots" })
        const { title } = shotFields(request.item.content)
        const match = shots.value.find((s) => sameText(s.title ?? "", title))
        return match === undefined
          ? SearchAnswer.CannotTell({ reason: "not among the account's shots; Dribbble may still be processing it" })
          : SearchAnswer.Found({ releaseId: String(match.id), releaseUrl: match.html_url })
      })

    const adapter: NetworkAdapter = {
      identifier: "dribbble",
      // Dribbble's tokens do not expire and there is no refresh token
      tokensNeverExpire: true,
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Dribbble is not set up on this server (DRIBBBLE_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, scope: SCOPES, state }).toString()}`
              ),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* call(outbound, {
              url: `${auth}/oauth/token`,
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
              body: new URLSearchParams({ client_id: clientId ?? "", client_secret: clientSecret ?? "", code, redirect_uri: redirectUri }).toString()
            })
            const t = read(DribbbleToken, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            if (t.value.scope !== undefined && !t.value.scope.split(/[\s,]+/).includes("upload")) {
              return yield* new ConnectFailed({
                message: "Dribbble did not grant the upload scope: shots cannot be posted. Sign in again and allow uploads."
              })
            }
            return yield* connected(t.value.access_token)
          })
      },
      verify: (input) => Effect.flatMap(decodeForVerify(Stored, NAME, "accessToken")(input), (given) => connected(given.accessToken)),
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish,
      publishFollowUp: () =>
        Effect.succeed(
          PublishAnswer.Rejected({
            message: "Dribbble shots take no follow-up comments through the API.",
            fix: "Remove the follow-ups for this channel."
          })
        ),
      search,
      statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyDribbble
    }
    return adapter
  })

export const makeDribbbleAdapter = Effect.gen(function* () {
  const env = yield* networkAppConfig("dribbble", { apiUrl: "https://api.dribbble.com/v2", authUrl: "https://dribbble.com" })
  return yield* makeDribbbleAdapterWith(env)
})
