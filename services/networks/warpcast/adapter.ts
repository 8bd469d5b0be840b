import { Config, Effect, Option, type Redacted, Schema } from "effect"
import {
  ConnectFailed,
  type Credentials,
  type NetworkAdapter,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, metricToday, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps, PUBLIC_MEDIA_TTL_SECONDS } from "../networkDeps.js"
import { call, decodeBody, isSuccess, sameText, trimBase } from "../networkHttp.js"
import { type Cast, castUrl, classifyWarpcast, ErrorRes, Feed, NAME, OneCast, Signer, Users } from "./api.js"

/**
 * Farcaster through a hosted signer API (Neynar's: docs.neynar.com): the operator's API key
 * and an approved managed signer (`signer_uuid`) write casts for the account with
 * POST /v2/farcaster/cast (`idem` = the item id, the provider's duplicate guard), files as
 * `embeds` by their public address, follow-ups as replies (`parent` = the previous cast's
 * hash). A lost answer is also looked for in the account's casts (feed/user/casts).
 */

export interface WarpcastOptions {
  /** WARPCAST_API_URL (default https://api.neynar.com): the provider's base before /v2. */
  readonly apiUrl: string
}

const Given = Schema.Struct({ apiKey: Schema.NonEmptyString, signerUuid: Schema.NonEmptyString })
const Stored = Schema.Struct({
  apiKey: Schema.String,
  signerUuid: Schema.String,
  fid: Schema.Number,
  username: Schema.optional(Schema.NullOr(Schema.String))
})

/** How many of the account's recent casts a search reads. */
const SEARCH_LIMIT = 50

export const makeWarpcastAdapterWith = (options: WarpcastOptions) =>
  Effect.gen(function* () {
    const { outbound, publicMedia } = yield* NetworkDeps
    const base = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const headers = (apiKey: string) => ({ "x-api-key": apiKey, accept: "application/json" })
    const get = (apiKey: string, path: string, query: Readonly<Record<string, string>>) =>
      call(outbound, { url: `${base}${path}?${new URLSearchParams(query).toString()}`, headers: headers(apiKey) })
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: Effect.Effect.Success<ReturnType<typeof get>>) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()

    const userOf = (apiKey: string, fid: number) =>
      Effect.map(get(apiKey, "/v2/farcaster/user/bulk", { fids: String(fid) }), (answer) =>
        Option.flatMap(read(Users, answer), (u) => Option.fromNullable(u.users[0]))
      )

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Given, NAME, "apiKey (the provider's API key) and signerUuid (an approved managed signer)")(input)
        const answer = yield* get(given.apiKey, "/v2/farcaster/signer", { signer_uuid: given.signerUuid })
        const signer = read(Signer, answer)
        if (Option.isNone(signer)) {
          const said = answer._tag === "Response" ? Option.map(decodeBody(ErrorRes, answer.response), (e) => e.message) : Option.none()
          return yield* Option.match(said, {
            onNone: () => Effect.fail(connectFailedFrom(NAME, answer)),
            onSome: (message) => Effect.fail(new ConnectFailed({ message: `The Farcaster provider refused these credentials: ${message}.` }))
          })
        }
        const s = signer.value
        if (s.status !== "approved" || s.fid === undefined) {
          return yield* new ConnectFailed({
            message:
              `The signer is ${s.status.replace(/_/g, " ")}, not approved` +
              `${s.signer_approval_url === undefined ? "" : ` (approve it at ${s.signer_approval_url})`}: only an approved signer can cast.`
          })
        }
        const user = yield* userOf(given.apiKey, s.fid)
        const username = Option.map(user, (u) => u.username).pipe(Option.getOrNull)
        return {
          credentials: { apiKey: given.apiKey, signerUuid: given.signerUuid, fid: s.fid, username },
          profile: {
            accountId: String(s.fid),
            name: Option.flatMap(user, (u) => Option.fromNullable(u.display_name)).pipe(Option.getOrElse(() => username ?? `fid ${s.fid}`)),
            profile: username ?? `fid:${s.fid}`,
            picture: Option.flatMap(user, (u) => Option.fromNullable(u.pfp_url)).pipe(Option.getOrNull)
          }
        }
      })

    /** The files' public addresses, as the clients fetch embeds themselves. */
    const embedsOf = (request: PublishRequest) =>
      Effect.forEach(request.media, (m) =>
        publicMedia.addressOf(m, PUBLIC_MEDIA_TTL_SECONDS).pipe(
          Effect.map((url) => ({ url })),
          Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." }))
        )
      )

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const embeds = yield* embedsOf(request)
          const answer = yield* call(outbound, {
            url: `${base}/v2/farcaster/cast`,
            method: "POST",
            headers: { ...headers(c.apiKey), "content-type": "application/json" },
            body: JSON.stringify({
              signer_uuid: c.signerUuid,
              text: request.item.content,
              ...(embeds.length > 0 ? { embeds } : {}),
              ...(request.previousReleaseId === null ? {} : { parent: request.previousReleaseId, parent_author_fid: c.fid }),
              idem: request.item.id
            })
          })
          return classifyWarpcast(answer, c.username ?? null)
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const answer = yield* get(c.value.apiKey, "/v2/farcaster/feed/user/casts", {
          fid: String(c.value.fid),
          limit: String(SEARCH_LIMIT),
          include_replies: String(request.previousReleaseId !== null)
        })
        const feed = read(Feed, answer)
        if (Option.isNone(feed)) return SearchAnswer.CannotTell({ reason: "the provider did not answer with the account's casts" })
        const found = feed.value.casts.find(
          (cast: typeof Cast.Type) =>
            sameText(cast.text ?? "", request.item.content) && (request.previousReleaseId === null || cast.parent_hash === request.previousReleaseId)
        )
        return found === undefined
          ? SearchAnswer.NotFound()
          : SearchAnswer.Found({ releaseId: found.hash, releaseUrl: castUrl(c.value.username ?? null, found.hash) })
      })

    const statistics = {
      channel: (credentials: Redacted.Redacted<Credentials>) =>
        Effect.gen(function* () {
          const c = yield* credentialsOf(credentials).pipe(Effect.option)
          if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
          const user = yield* userOf(c.value.apiKey, c.value.fid)
          if (Option.isNone(user)) return Statistics.Missing({ message: "The Farcaster provider did not answer with the account's numbers." })
          return Statistics.Metrics({
            metrics: [
              metricToday("Followers", user.value.follower_count ?? 0, "People who follow the account"),
              metricToday("Following", user.value.following_count ?? 0, "Accounts it follows")
            ]
          })
        }),
      post: (credentials: Redacted.Redacted<Credentials>, releaseId: string) =>
        Effect.gen(function* () {
          const c = yield* credentialsOf(credentials).pipe(Effect.option)
          if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
          const cast = read(OneCast, yield* get(c.value.apiKey, "/v2/farcaster/cast", { identifier: releaseId, type: "hash" }))
          if (Option.isNone(cast)) return Statistics.Missing({ message: "The Farcaster provider did not answer with the cast's numbers." })
          const { reactions, replies } = cast.value.cast
          return Statistics.Metrics({
            metrics: [
              metricToday("Likes", reactions?.likes_count ?? 0),
              metricToday("Recasts", reactions?.recasts_count ?? 0),
              metricToday("Replies", replies?.count ?? 0)
            ]
          })
        })
    }

    const adapter: NetworkAdapter = {
      identifier: "warpcast",
      connect: { kind: "form" },
      verify,
      // API keys and approved signers do not expire; a revoked one answers 401/403 (reconnect)
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish: send,
      publishFollowUp: send,
      search,
      statistics,
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: (answer) => classifyWarpcast(answer)
    }
    return adapter
  })

export const makeWarpcastAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.string("WARPCAST_API_URL").pipe(Config.withDefault("https://api.neynar.com"), Effect.orDie)
  return yield* makeWarpcastAdapterWith({ apiUrl })
})
