import { Effect, Option, Redacted, Schema } from "effect"
import {
  ConnectFailed,
  type Connected,
  type Credentials,
  type NetworkAdapter,
  type PublishAnswer,
  type PublishRequest,
  type Quota,
  Refresh,
  SearchAnswer,
  type Statistics
} from "../adapter.js"
import { answerOf, decodeForVerify, noStatistics, readCredentials, unknownTool, networkAppConfig } from "../adapterKit.js"
import {
  type ContainerNetwork,
  type ContainerPlan,
  type ContainerStatus,
  type PublicFile,
  publicFilesOf,
  publishInSteps,
  searchWithContainer
} from "../metaContainers.js"
import {
  classifyGraph,
  connectFailedGraph,
  graphGet,
  graphPost,
  insightsAnswer,
  LongLivedToken,
  readGraph,
  refreshLongLived,
  searchListed
} from "../metaGraph.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, trimBase } from "../networkHttp.js"

/**
 * Threads (developers.facebook.com/docs/threads): OAuth on threads.net, a short-lived token
 * exchanged for a long-lived one of 60 days (`th_exchange_token`) and refreshed ahead of its
 * expiry (`th_refresh_token`). Posts are containers as on Instagram (`POST /{user}/threads`,
 * then `/threads_publish`): text only, a photo, a video, or a carousel of 2 to 20; a
 * follow-up is a reply (a container with `reply_to_id`) to the item before it.
 */
const NAME = "Threads"
const GRAPH_VERSION = "v1.0"
const HOME = "https://www.threads.net/"
const SCOPES = "threads_basic,threads_content_publish,threads_manage_replies,threads_read_replies,threads_manage_insights"
/** Long-lived tokens last 60 days; refresh a week ahead (a refresh needs a token that is still valid). */
const REFRESH_MARGIN_MS = 7 * 86_400_000

export interface ThreadsOptions {
  /** graph.threads.net */
  readonly apiUrl: string
  /** threads.net (the sign-in page) */
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({ accessToken: Schema.String, userId: Schema.String, expiresAt: Schema.String })
type Stored = typeof Stored.Type
const Token = Schema.Struct({ access_token: Schema.String })
const PublishingLimit = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      quota_usage: Schema.Number,
      config: Schema.optional(Schema.Struct({ quota_total: Schema.Number, quota_duration: Schema.optional(Schema.Number) }))
    })
  )
})
/** Threads' cap when the limit's answer does not say (posts per 24 hours). */
const DAILY_CAP = 250
const Me = Schema.Struct({
  id: Schema.String,
  username: Schema.String,
  name: Schema.optional(Schema.String),
  threads_profile_picture_url: Schema.optional(Schema.String)
})
type Me = typeof Me.Type
const Status = Schema.Struct({
  status: Schema.Literal("FINISHED", "IN_PROGRESS", "ERROR", "EXPIRED", "PUBLISHED"),
  error_message: Schema.optional(Schema.String)
})
const Permalink = Schema.Struct({ permalink: Schema.String })

export const makeThreadsAdapterWith = (options: ThreadsOptions) =>
  Effect.gen(function* () {
    const { outbound, publicMedia } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const graph = `${api}/${GRAPH_VERSION}`
    const auth = trimBase(options.authUrl)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const credentialsOf = readCredentials(Stored, NAME)
    const classify = classifyGraph(NAME, () => HOME)
    const user = (c: Stored) => `${graph}/${encodeURIComponent(c.userId)}`

    const whoIs = (token: string) =>
      Effect.gen(function* () {
        const answer = yield* graphGet(outbound, `${graph}/me?fields=id,username,name,threads_profile_picture_url`, token)
        const me = readGraph(Me, answer)
        if (Option.isNone(me)) return yield* connectFailedGraph(NAME, answer)
        return me.value
      })

    const connected = (stored: Stored, me: Me): Connected => ({
      credentials: stored,
      profile: { accountId: me.id, name: me.name ?? me.username, profile: me.username, picture: me.threads_profile_picture_url ?? null }
    })

    const exchange = (code: string, redirectUri: string) =>
      Effect.gen(function* () {
        const shortAnswer = yield* call(outbound, {
          url: `${api}/oauth/access_token`,
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body: new URLSearchParams({
            client_id: clientId ?? "",
            client_secret: clientSecret ?? "",
            grant_type: "authorization_code",
            redirect_uri: redirectUri,
            code
          }).toString()
        })
        const short = readGraph(Token, shortAnswer)
        if (Option.isNone(short)) return yield* connectFailedGraph(NAME, shortAnswer)
        const longAnswer = yield* graphGet(
          outbound,
          `${api}/access_token?${new URLSearchParams({ grant_type: "th_exchange_token", client_secret: clientSecret ?? "" }).toString()}`,
          short.value.access_token
        )
        const long = readGraph(LongLivedToken, longAnswer)
        if (Option.isNone(long)) return yield* connectFailedGraph(NAME, longAnswer)
        const me = yield* whoIs(long.value.access_token)
        return connected(
          {
            accessToken: long.value.access_token,
            userId: me.id,
            expiresAt: new Date(Date.now() + (long.value.expires_in ?? 5_184_000) * 1000).toISOString()
          },
          me
        )
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, userId and expiresAt (ISO 8601)")(input)
        if (Number.isNaN(Date.parse(given.expiresAt)))
          return yield* new ConnectFailed({ message: "Threads credentials: expiresAt is not an ISO 8601 date." })
        const me = yield* whoIs(given.accessToken)
        if (me.id !== given.userId)
          return yield* new ConnectFailed({ message: `The token belongs to the Threads user ${me.id}, not userId ${given.userId}.` })
        return connected(given, me)
      })

    const permalink = (c: Stored, id: string) =>
      Effect.map(graphGet(outbound, `${graph}/${encodeURIComponent(id)}?fields=permalink`, c.accessToken), (answer) =>
        Option.getOrElse(
          Option.map(readGraph(Permalink, answer), (p) => p.permalink),
          () => HOME
        )
      )

    /** The account's recent posts (or replies, for a follow-up) with the item's text. */
    const listRecent = (c: Stored, request: PublishRequest) =>
      Effect.map(
        graphGet(
          outbound,
          `${user(c)}/${request.item.position > 0 ? "replies" : "threads"}?fields=id,text,permalink,timestamp&limit=25`,
          c.accessToken
        ),
        (answer) => searchListed(answer, request.item.content, (_id, link) => link ?? HOME)
      )

    /** GET /integrations/{id}/health's quota: what is left of the account's 24-hour cap (`threads_publishing_limit`). */
    const quota = (credentials: Redacted.Redacted<Credentials>): Effect.Effect<Option.Option<Quota>> =>
      Effect.flatMap(
        Effect.option(credentialsOf(credentials)),
        Option.match({
          onNone: () => Effect.succeed(Option.none()),
          onSome: (c) =>
            Effect.map(graphGet(outbound, `${user(c)}/threads_publishing_limit?fields=quota_usage,config`, c.accessToken), (answer) =>
              Option.flatMap(readGraph(PublishingLimit, answer), (limit) =>
                Option.map(Option.fromNullable(limit.data[0]), (now) => {
                  const total = now.config?.quota_total ?? DAILY_CAP
                  return { remaining: Math.max(0, total - now.quota_usage), limit: total, resetsAt: null, unit: "posts in 24 hours" }
                })
              )
            )
        })
      )

    const network = (c: Stored, request: PublishRequest): ContainerNetwork => ({
      name: NAME,
      create: (fields) => graphPost(outbound, `${user(c)}/threads`, c.accessToken, fields),
      status: (id) =>
        Effect.map(graphGet(outbound, `${graph}/${encodeURIComponent(id)}?fields=status,error_message`, c.accessToken), (answer) => {
          const read = readGraph(Status, answer)
          return [Option.map(read, (s): ContainerStatus => ({ code: s.status, reason: s.error_message ?? s.status })), answer] as const
        }),
      publish: (id) => graphPost(outbound, `${user(c)}/threads_publish`, c.accessToken, { creation_id: id }),
      classify,
      permalink: (id) => permalink(c, id),
      // Threads' cap (250 posts a day) is far above a schedule's: its refusal is a plain error
      capFull: Effect.succeed(Option.none()),
      findPublished: listRecent(c, request)
    })

    const planOf = (request: PublishRequest): ContainerPlan => {
      const text = request.item.content
      // a follow-up replies to the item before it, so the replies read as a thread
      const reply: Record<string, string> = request.previousReleaseId === null ? {} : { reply_to_id: request.previousReleaseId }
      const fileFields = (file: PublicFile): Record<string, string> => ({
        ...(file.video ? { media_type: "VIDEO", video_url: file.url } : { media_type: "IMAGE", image_url: file.url }),
        ...(file.alt === "" ? {} : { alt_text: file.alt })
      })
      return {
        files: publicFilesOf(publicMedia, request),
        single: (file) => ({ ...(file === null ? { media_type: "TEXT" } : fileFields(file)), text, ...reply }),
        child: (file) => ({ ...fileFields(file), is_carousel_item: "true" }),
        parent: (childIds) => ({ media_type: "CAROUSEL", children: childIds.join(","), text, ...reply })
      }
    }

    const publish = (request: PublishRequest): Effect.Effect<PublishAnswer> =>
      answerOf(
        Effect.flatMap(credentialsOf(request.channel.credentials), (c) => publishInSteps(network(c, request), planOf(request), request.progress))
      )

    const search = (request: PublishRequest): Effect.Effect<SearchAnswer> =>
      Effect.flatMap(
        Effect.option(credentialsOf(request.channel.credentials)),
        Option.match({
          onNone: () => Effect.succeed(SearchAnswer.CannotTell({ reason: "the stored credentials cannot be read" })),
          onSome: (c) => searchWithContainer(network(c, request), request.progress, listRecent(c, request))
        })
      )

    const postStatistics = (credentials: Redacted.Redacted<Record<string, unknown>>, releaseId: string): Effect.Effect<Statistics> =>
      Effect.flatMap(
        Effect.option(credentialsOf(credentials)),
        Option.match({
          onNone: () => noStatistics(NAME),
          onSome: (c) =>
            Effect.map(
              graphGet(outbound, `${graph}/${encodeURIComponent(releaseId)}/insights?metric=views,likes,replies,reposts,quotes`, c.accessToken),
              (answer) => insightsAnswer(NAME, answer)
            )
        })
      )

    /** The user's followers now (`threads_insights` with `followers_count`, a total). */
    const channelStatistics = (credentials: Redacted.Redacted<Record<string, unknown>>): Effect.Effect<Statistics> =>
      Effect.flatMap(
        Effect.option(credentialsOf(credentials)),
        Option.match({
          onNone: () => noStatistics(NAME),
          onSome: (c) =>
            Effect.map(graphGet(outbound, `${user(c)}/threads_insights?metric=followers_count`, c.accessToken), (answer) =>
              insightsAnswer(NAME, answer)
            )
        })
      )

    const adapter: NetworkAdapter = {
      identifier: "threads",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Threads is not set up on this server (THREADS_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, scope: SCOPES, response_type: "code", state }).toString()}`
              ),
        exchange: ({ code, redirectUri }) => exchange(code, redirectUri)
      },
      verify,
      refresh: (credentials) =>
        Effect.flatMap(
          Effect.option(credentialsOf(credentials)),
          Option.match({
            onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })),
            onSome: (c) =>
              refreshLongLived(c, REFRESH_MARGIN_MS, (token) => graphGet(outbound, `${api}/refresh_access_token?grant_type=th_refresh_token`, token))
          })
        ),
      publish,
      // replies are containers too: the same steps, with reply_to_id
      publishFollowUp: publish,
      search,
      statistics: { channel: channelStatistics, post: postStatistics },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify,
      quota
    }
    return adapter
  })

export const makeThreadsAdapter = Effect.gen(function* () {
  const settings = yield* networkAppConfig("threads", { apiUrl: "https://graph.threads.net", authUrl: "https://threads.net" })
  return yield* makeThreadsAdapterWith(settings)
})
