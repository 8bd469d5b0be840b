import { Effect, Option, Redacted, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import {
  ConnectFailed,
  type Connected,
  type Metric,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, readCredentials, unknownTool, networkAppConfig } from "../adapterKit.js"
import { NetworkDeps, PUBLIC_MEDIA_TTL_SECONDS } from "../networkDeps.js"
import { fromTokenAnswer, refreshOAuth, verifiedTokens, TokenAnswer } from "../oauthRefresh.js"
import {
  bearerJson,
  call,
  decodeBody,
  excerpt,
  isSuccess,
  multipart,
  retryAfterMs,
  sameText,
  statusAnswer,
  transportAnswer,
  trimBase
} from "../networkHttp.js"

/**
 * Pinterest API v5 (developers.pinterest.com/docs/api/v5): OAuth 2.0 with continuous
 * refresh tokens (every refresh answers a new refresh token), pins on a board with
 * POST /v5/pins: images by address (Pinterest fetches them), carousels of 2 to 5 images,
 * videos registered with POST /v5/media, uploaded to the answered address and pinned once
 * GET /v5/media/{id} says `succeeded` (Pending in between). No comments through the API.
 */
const NAME = "Pinterest"
const SCOPES = "boards:read,boards:write,pins:read,pins:write,user_accounts:read"
/** Access tokens last 30 days: refresh a day ahead. */
const REFRESH_MARGIN_MS = 24 * 3600_000
const TOKEN_LIFETIME_SECONDS = 30 * 86400
/** How long to wait before asking again about a video Pinterest is processing. */
const PROCESSING_RETRY_MS = 5_000

export interface PinterestOptions {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  boardId: Schema.String,
  username: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type
/** A video registered with Pinterest (POST /v5/media) and uploaded: the pin waits for its processing. */
const VideoProgress = Schema.Struct({ mediaId: Schema.String })

const Account = Schema.Struct({
  username: Schema.String,
  id: Schema.optional(Schema.String),
  business_name: Schema.optional(Schema.NullOr(Schema.String)),
  profile_image: Schema.optional(Schema.NullOr(Schema.String))
})
const Board = Schema.Struct({ id: Schema.String, name: Schema.String })
const Boards = Schema.Struct({ items: Schema.Array(Board) })
const Pin = Schema.Struct({ id: Schema.String })
const Pins = Schema.Struct({
  items: Schema.Array(Schema.Struct({ id: Schema.String, description: Schema.optional(Schema.NullOr(Schema.String)) }))
})
const MediaUpload = Schema.Struct({
  media_id: Schema.String,
  upload_url: Schema.String,
  upload_parameters: Schema.Record({ key: Schema.String, value: Schema.String })
})
const MediaStatus = Schema.Struct({ media_id: Schema.String, status: Schema.String })
const Problem = Schema.Struct({ code: Schema.optional(Schema.Number), message: Schema.String })
const DailyMetrics = Schema.Struct({
  all: Schema.Struct({
    daily_metrics: Schema.Array(
      Schema.Struct({ date: Schema.String, metrics: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Number })) })
    )
  })
})

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const reasonOf = (response: Response) =>
  Option.match(decodeBody(Problem, response), { onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`, onSome: (p) => p.message })

const rejection = (response: Response) => {
  const reason = reasonOf(response)
  if (/board/i.test(reason))
    return { message: `Pinterest refused the pin: ${reason}`, fix: "Choose one of the account's boards (the boards tool), then retry." }
  if (/fetch|image|media|video/i.test(reason))
    return { message: `Pinterest refused the pin's media: ${reason}`, fix: "Check the file opens and is a JPEG, PNG or MP4, then retry." }
  if (/description|title|length/i.test(reason))
    return { message: `Pinterest refused the pin: ${reason}`, fix: "Shorten the description to 500 characters, then retry." }
  return { message: `Pinterest refused the pin: ${reason}`, fix: "Change the pin as the message says, then retry." }
}

/** Pinterest names its wait in Retry-After or x-ratelimit-reset (seconds until the window resets). */
const rateLimitWait = (response: Response) => {
  if (response.headers["retry-after"] !== undefined) return retryAfterMs(response)
  const reset = Number(response.headers["x-ratelimit-reset"])
  return Number.isFinite(reset) && reset > 0 ? Math.max(1000, Math.ceil(reset * 1000)) : 60_000
}

export const pinUrl = (id: string) => `https://www.pinterest.com/pin/${id}/`

export const classifyPinterest = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  const pin = isSuccess(response) ? decodeBody(Pin, response) : Option.none()
  if (Option.isSome(pin) && pin.value.id !== "") return PublishAnswer.Published({ releaseId: pin.value.id, releaseUrl: pinUrl(pin.value.id) })
  if (response.status === 429) return PublishAnswer.RateLimited({ retryAfterMs: rateLimitWait(response) })
  return statusAnswer(NAME, response, rejection)
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

const isoDay = (d: Date) => d.toISOString().slice(0, 10)

/** Pinterest's daily metrics as the spec's metrics (one per metric type). */
const metricsOf = (daily: typeof DailyMetrics.Type, labels: ReadonlyArray<readonly [string, string]>): ReadonlyArray<Metric> =>
  labels.map(([key, label]) => ({
    label,
    percentageChange: 0,
    data: daily.all.daily_metrics.map((d) => ({ date: d.date, total: d.metrics?.[key] ?? 0 }))
  }))

export const makePinterestAdapterWith = (options: PinterestOptions) =>
  Effect.gen(function* () {
    const { outbound, publicMedia } = yield* NetworkDeps
    const deps = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const get = (token: string, path: string) => call(outbound, { url: `${api}${path}`, headers: bearerJson(token) })

    /** POST /v5/oauth/token with the app's Basic credentials. */
    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: `${api}/v5/oauth/token`,
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
          authorization: `Basic ${Buffer.from(`${clientId ?? ""}:${clientSecret ?? ""}`).toString("base64")}`
        },
        body: new URLSearchParams(form).toString()
      })

    const refreshStored = (c: Stored) =>
      refreshOAuth(c, {
        marginMs: REFRESH_MARGIN_MS,
        defaultLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
        // continuous refresh: every refresh answers a new refresh token as well
        exchange: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken, continuous_refresh: "true" })
      })

    const connected = (stored: Omit<Stored, "username" | "boardId">, boardId: string | undefined) =>
      Effect.gen(function* () {
        const answer = yield* get(stored.accessToken, "/v5/user_account")
        const account = read(Account, answer)
        if (Option.isNone(account)) return yield* connectFailedFrom(NAME, answer)
        const boards = read(Boards, yield* get(stored.accessToken, "/v5/boards?page_size=100"))
        if (Option.isNone(boards)) return yield* new ConnectFailed({ message: "Pinterest did not answer with the account's boards." })
        const board = boardId === undefined ? boards.value.items[0] : boards.value.items.find((b) => b.id === boardId)
        if (board === undefined) {
          return yield* new ConnectFailed({
            message:
              boardId === undefined
                ? "This Pinterest account has no board yet: create one on Pinterest, then connect again."
                : `The board ${boardId} is not one of this Pinterest account's boards (${boards.value.items.map((b) => `${b.id} ${b.name}`).join(", ")}).`
          })
        }
        const a = account.value
        const result: Connected = {
          credentials: { ...stored, boardId: board.id, username: a.username },
          profile: { accountId: a.id ?? a.username, name: a.business_name ?? a.username, profile: a.username, picture: a.profile_image ?? null },
          // the default board: a pin without its own board goes there
          defaultSettings: { board: board.id }
        }
        return result
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken, expiresAt (ISO 8601) and boardId (the default board)")(input)
        const current = yield* verifiedTokens(given, Stored, { network: "Pinterest", refusedBy: "Pinterest", refresh: refreshStored })
        return yield* connected({ accessToken: current.accessToken, refreshToken: current.refreshToken, expiresAt: current.expiresAt }, given.boardId)
      })

    /** A step before the pin that failed: nothing is pinned, so a retry is safe unless the network refused outright. */
    const beforePin = (answer: NetworkAnswer, what: string) => {
      const why = classifyPinterest(answer)
      return why._tag === "NoAnswer" || why._tag === "Published"
        ? PublishAnswer.FailedBeforeSending({ reason: `${what} failed: ${why._tag === "NoAnswer" ? why.reason : "no media id"}` })
        : why
    }

    /** Registers the video, uploads its bytes to the address Pinterest answered: its media id. */
    const uploadVideo = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const stored = request.media[0]
        if (stored === undefined)
          return yield* Effect.fail(PublishAnswer.Rejected({ message: "No video to upload.", fix: "Attach the video, then retry." }))
        const file = yield* deps.media
          .read(stored)
          .pipe(
            Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." }))
          )
        const registered = yield* call(outbound, {
          url: `${api}/v5/media`,
          method: "POST",
          headers: bearerJson(c.accessToken),
          body: JSON.stringify({ media_type: "video" })
        })
        const upload = read(MediaUpload, registered)
        if (Option.isNone(upload)) return yield* Effect.fail(beforePin(registered, "registering the video"))
        const form = multipart([
          ...Object.entries(upload.value.upload_parameters).map(([name, value]) => ({ name, value })),
          { name: "file", filename: file.name || "video.mp4", mime: file.mime, bytes: file.bytes }
        ])
        const sent = yield* call(outbound, {
          url: upload.value.upload_url,
          method: "POST",
          headers: { "content-type": form.contentType },
          body: form.body,
          timeoutMs: 300_000
        })
        if (sent._tag === "Failed" || !isSuccess(sent.response)) return yield* Effect.fail(beforePin(sent, "uploading the video"))
        return upload.value.media_id
      })

    const boardOf = (request: PublishRequest, c: Stored) => text(request.channel.settings["board"]) ?? text(c.boardId)

    const createPin = (c: Stored, request: PublishRequest, board: string, mediaSource: Record<string, unknown>) =>
      Effect.gen(function* () {
        const settings = request.channel.settings
        const title = text(settings["title"])
        const link = text(settings["link"])
        const alt = request.media[0]?.alt
        const answer = yield* call(outbound, {
          url: `${api}/v5/pins`,
          method: "POST",
          headers: bearerJson(c.accessToken),
          body: JSON.stringify({
            board_id: board,
            description: request.item.content,
            ...(title === undefined ? {} : { title: title.slice(0, 100) }),
            ...(link === undefined ? {} : { link }),
            ...(alt === undefined || alt === "" ? {} : { alt_text: alt.slice(0, 500) }),
            media_source: mediaSource
          })
        })
        return classifyPinterest(answer)
      })

    /** The video's processing: pinned when it succeeded, Pending while Pinterest works on it. */
    const pinVideo = (c: Stored, request: PublishRequest, board: string, mediaId: string) =>
      Effect.gen(function* () {
        const answer = yield* get(c.accessToken, `/v5/media/${encodeURIComponent(mediaId)}`)
        const status = read(MediaStatus, answer)
        if (Option.isNone(status)) {
          const why = classifyPinterest(answer)
          // an unreadable status is asked again later; the upload is kept
          return why._tag === "Rejected" || why._tag === "RateLimited"
            ? why
            : PublishAnswer.Pending({
                progress: { mediaId },
                kind: "processing",
                waitingFor: "Pinterest to say how the video's processing goes",
                retryAfterMs: PROCESSING_RETRY_MS
              })
        }
        if (status.value.status === "failed")
          return PublishAnswer.Rejected({
            message: "Pinterest could not process the video.",
            fix: "Check the video is an MP4 or MOV (H.264, 4 seconds to 15 minutes), then retry."
          })
        if (status.value.status !== "succeeded")
          return PublishAnswer.Pending({
            progress: { mediaId },
            kind: "processing",
            waitingFor: "Pinterest to process the video",
            retryAfterMs: PROCESSING_RETRY_MS
          })
        // the cover frame preparation made, fetched by Pinterest; else Pinterest takes the first frame
        const video = request.media.find((f) => f.type === "video" || f.mime.startsWith("video/"))
        const cover =
          video === undefined
            ? Option.none<string>()
            : yield* publicMedia.coverAddressOf(video, PUBLIC_MEDIA_TTL_SECONDS).pipe(Effect.orElseSucceed(() => Option.none<string>()))
        return yield* createPin(
          c,
          request,
          board,
          Option.match(cover, {
            onNone: () => ({ source_type: "video_id", media_id: mediaId, cover_image_key_frame_time: 0 }),
            onSome: (url) => ({ source_type: "video_id", media_id: mediaId, cover_image_url: url })
          })
        )
      })

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const board = boardOf(request, c)
          if (board === undefined)
            return PublishAnswer.Rejected({
              message: "A pin needs a board.",
              fix: "Set the post's board setting (the boards tool lists them), then retry."
            })
          const progress = request.progress === null ? Option.none() : Schema.decodeUnknownOption(VideoProgress)(request.progress)
          // a video registered and uploaded earlier: never a second upload
          if (Option.isSome(progress)) return yield* pinVideo(c, request, board, progress.value.mediaId)
          const files = request.media
          if (files.length === 0)
            return PublishAnswer.Rejected({ message: "A pin needs an image or a video.", fix: "Attach an image or a video, then retry." })
          const videos = files.filter((f) => f.type === "video" || f.mime.startsWith("video/"))
          if (videos.length > 0) {
            if (files.length > 1)
              return PublishAnswer.Rejected({ message: "A video pin takes exactly one video.", fix: "Keep only the video, then retry." })
            const mediaId = yield* uploadVideo(c, request)
            return yield* pinVideo(c, request, board, mediaId)
          }
          if (files.length > 5)
            return PublishAnswer.Rejected({ message: "A carousel pin takes 2 to 5 images.", fix: "Keep at most 5 images, then retry." })
          const addresses = yield* Effect.forEach(files, (f) =>
            publicMedia
              .addressOf(f, PUBLIC_MEDIA_TTL_SECONDS)
              .pipe(
                Effect.mapError((e) =>
                  PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." })
                )
              )
          )
          const source =
            addresses.length === 1
              ? { source_type: "image_url", url: addresses[0] }
              : { source_type: "multiple_image_urls", items: addresses.map((url) => ({ url })), index: 0 }
          return yield* createPin(c, request, board, source)
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const board = boardOf(request, c.value)
        if (board === undefined) return SearchAnswer.CannotTell({ reason: "the pin has no board" })
        const progress = request.progress === null ? Option.none() : Schema.decodeUnknownOption(VideoProgress)(request.progress)
        if (Option.isSome(progress)) {
          // a video still processing cannot have been pinned: go on from the upload
          const status = read(MediaStatus, yield* get(c.value.accessToken, `/v5/media/${encodeURIComponent(progress.value.mediaId)}`))
          if (Option.isSome(status) && status.value.status !== "succeeded" && status.value.status !== "failed")
            return SearchAnswer.Unfinished({ progress: request.progress ?? {} })
        }
        const answer = yield* get(c.value.accessToken, `/v5/boards/${encodeURIComponent(board)}/pins?page_size=50`)
        const pins = read(Pins, answer)
        if (Option.isNone(pins))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
        const found = pins.value.items.find((p) => sameText(p.description ?? "", request.item.content))
        return found === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: found.id, releaseUrl: pinUrl(found.id) })
      })

    const analytics = (
      credentials: Redacted.Redacted<Readonly<Record<string, unknown>>>,
      path: string,
      days: number,
      labels: ReadonlyArray<readonly [string, string]>
    ) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(credentials).pipe(Effect.option)
        if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
        const end = new Date()
        const start = new Date(end.getTime() - Math.max(1, days) * 86_400_000)
        const query = new URLSearchParams({ start_date: isoDay(start), end_date: isoDay(end), metric_types: labels.map(([k]) => k).join(",") })
        const daily = read(DailyMetrics, yield* get(c.value.accessToken, `${path}?${query.toString()}`))
        if (Option.isNone(daily)) return Statistics.Missing({ message: "Pinterest did not answer with the numbers." })
        return Statistics.Metrics({ metrics: metricsOf(daily.value, labels) })
      })

    const labels = [
      ["IMPRESSION", "Impressions"],
      ["SAVE", "Saves"],
      ["PIN_CLICK", "Pin clicks"],
      ["OUTBOUND_CLICK", "Outbound clicks"]
    ] as const

    const adapter: NetworkAdapter = {
      identifier: "pinterest",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Pinterest is not set up on this server (PINTEREST_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth/?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: "code", scope: SCOPES, state }).toString()}`
              ),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri, continuous_refresh: "true" })
            const t = read(TokenAnswer, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            return yield* connected(fromTokenAnswer(t.value, "", TOKEN_LIFETIME_SECONDS), undefined)
          })
      },
      verify,
      refresh: (credentials) =>
        Effect.flatMap(
          credentialsOf(credentials).pipe(Effect.option),
          Option.match({ onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })), onSome: refreshStored })
        ),
      publish,
      // Pinterest's API has no comments on pins
      publishFollowUp: () =>
        Effect.succeed(PublishAnswer.Rejected({ message: "Pinterest takes no follow-up comments through its API.", fix: "Remove the follow-up." })),
      search,
      statistics: {
        longestRangeDays: 90,
        channel: (credentials, days) => analytics(credentials, "/v5/user_account/analytics", Math.min(days, 90), labels),
        post: (credentials, releaseId) => analytics(credentials, `/v5/pins/${encodeURIComponent(releaseId)}/analytics`, 30, labels)
      },
      runTool: ({ credentials, methodName }) =>
        Effect.gen(function* () {
          if (methodName !== "boards") return yield* unknownTool(methodName, NAME, ["boards"])
          const c = yield* credentialsOf(credentials).pipe(
            Effect.mapError(() => Errors.badRequest("The channel's Pinterest connection cannot be read. Reconnect it."))
          )
          const boards = read(Boards, yield* get(c.accessToken, "/v5/boards?page_size=100"))
          if (Option.isNone(boards))
            return yield* Effect.fail(Errors.badRequest("Pinterest did not answer with the account's boards. Try again in a minute."))
          return { boards: boards.value.items.map((b) => ({ id: b.id, name: b.name, default: b.id === c.boardId })) }
        }),
      classify: classifyPinterest
    }
    return adapter
  })

export const makePinterestAdapter = Effect.gen(function* () {
  const options = yield* networkAppConfig("pinterest", { apiUrl: "https://api.pinterest.com", authUrl: "https://www.pinterest.com" })
  return yield* makePinterestAdapterWith(options)
})
