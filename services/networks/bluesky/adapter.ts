import { Config, Effect, Option, type Redacted, Schema } from "effect"
import {
  type Credentials,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, metricToday, readAllMedia, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, decodeBody, excerpt, isSuccess, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import { linkFacets, parseAtUri, tidFor } from "./richText.js"

/**
 * Bluesky, any PDS (atproto.com, docs.bsky.app): a form with the handle and an app
 * password; sessions with com.atproto.server.createSession (kept in memory, renewed with
 * refreshSession), images with uploadBlob, posts with createRecord (app.bsky.feed.post,
 * link facets, replies naming the thread's root and parent). The record key is derived
 * from the item, so a post sent again cannot make a second record.
 */
const NAME = "Bluesky"
const POST = "app.bsky.feed.post"

export interface BlueskyOptions {
  /** BLUESKY_APP_URL: where releaseUrl points (default https://bsky.app). */
  readonly appUrl: string
}

const Given = Schema.Struct({ service: Schema.String, identifier: Schema.String, appPassword: Schema.String })
const Stored = Schema.Struct({
  service: Schema.String,
  identifier: Schema.String,
  appPassword: Schema.String,
  did: Schema.optional(Schema.String),
  handle: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type
const Session = Schema.Struct({ accessJwt: Schema.String, refreshJwt: Schema.String, did: Schema.String, handle: Schema.String })
type Session = typeof Session.Type
const ErrorBody = Schema.Struct({ error: Schema.String, message: Schema.optional(Schema.String) })
const Created = Schema.Struct({ uri: Schema.String, cid: Schema.String })
const Blob = Schema.Struct({ blob: Schema.Unknown })
const RecordAnswer = Schema.Struct({ uri: Schema.String, cid: Schema.String, value: Schema.Unknown })
const ReplyRef = Schema.Struct({ root: Schema.Struct({ uri: Schema.String, cid: Schema.String }) })
const PostValue = Schema.Struct({ text: Schema.String, reply: Schema.optional(ReplyRef) })
const Feed = Schema.Struct({
  feed: Schema.Array(Schema.Struct({ post: Schema.Struct({ uri: Schema.String, cid: Schema.String, record: Schema.Unknown }) }))
})
const Posts = Schema.Struct({
  posts: Schema.Array(
    Schema.Struct({
      likeCount: Schema.optional(Schema.Number),
      repostCount: Schema.optional(Schema.Number),
      replyCount: Schema.optional(Schema.Number),
      quoteCount: Schema.optional(Schema.Number)
    })
  )
})
const Profile = Schema.Struct({
  handle: Schema.String,
  displayName: Schema.optional(Schema.String),
  avatar: Schema.optional(Schema.String),
  followersCount: Schema.optional(Schema.Number),
  followsCount: Schema.optional(Schema.Number),
  postsCount: Schema.optional(Schema.Number)
})

const errorOf = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0]) =>
  Option.match(decodeBody(ErrorBody, response), {
    onNone: () => ({ error: `HTTP ${response.status}`, message: excerpt(response, 120) }),
    onSome: (e) => ({ error: e.error, message: e.message ?? e.error })
  })

const rejection = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0]) => {
  const e = errorOf(response)
  if (/grapheme|too long|length/i.test(e.message))
    return { message: `Bluesky refused the post: ${e.message}.`, fix: "Shorten the text to 300 characters, then retry." }
  if (/AuthenticationRequired|InvalidToken|AccountTakedown/i.test(e.error))
    return { message: `Bluesky refused the sign-in: ${e.message}.`, fix: "Reconnect the channel with a new app password, then retry." }
  return { message: `Bluesky refused the post: ${e.message}.`, fix: "Change the post as the message says, then retry." }
}

/** createRecord's answer: the record's uri (releaseId) and its public address. */
export const classifyBlueskyWith =
  (appUrl: string, handle: string) =>
  (answer: NetworkAnswer): PublishAnswer => {
    if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
    const { response } = answer
    const created = isSuccess(response) ? decodeBody(Created, response) : Option.none()
    if (Option.isSome(created)) {
      const at = parseAtUri(created.value.uri)
      if (at !== null)
        return PublishAnswer.Published({ releaseId: created.value.uri, releaseUrl: `${trimBase(appUrl)}/profile/${handle}/post/${at.rkey}` })
    }
    return statusAnswer(NAME, response, rejection)
  }

export const makeBlueskyAdapterWith = (options: BlueskyOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const credentialsOf = readCredentials(Stored, NAME)
    /** Sessions by service + identifier: a PDS limits createSession, so one is reused while it lasts. */
    const sessions = new Map<string, Session>()
    const xrpc = (service: string, method: string) => `${trimBase(service)}/xrpc/${method}`
    const postJson = (service: string, method: string, body: unknown, token?: string) =>
      call(outbound, {
        url: xrpc(service, method),
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
        },
        body: JSON.stringify(body)
      })
    const getJson = (service: string, method: string, query: Record<string, string>, token: string) =>
      call(outbound, {
        url: `${xrpc(service, method)}?${new URLSearchParams(query).toString()}`,
        headers: { accept: "application/json", authorization: `Bearer ${token}` }
      })
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const expired = (answer: NetworkAnswer) =>
      answer._tag === "Response" &&
      (answer.response.status === 400 || answer.response.status === 401) &&
      Option.exists(decodeBody(ErrorBody, answer.response), (e) => e.error === "ExpiredToken" || e.error === "InvalidToken")

    const createSession = (c: Pick<Stored, "service" | "identifier" | "appPassword">) =>
      Effect.map(postJson(c.service, "com.atproto.server.createSession", { identifier: c.identifier, password: c.appPassword }), (answer) => ({
        answer,
        session: read(Session, answer)
      }))

    /** A usable session: the kept one, a refreshed one, or a new one. Fails with the answer that refused it. */
    const sessionFor = (c: Stored, renew: boolean): Effect.Effect<Session, PublishAnswer> =>
      Effect.gen(function* () {
        const key = `${c.service} ${c.identifier}`
        const kept = sessions.get(key)
        if (kept !== undefined && !renew) return kept
        if (kept !== undefined) {
          const refreshed = read(Session, yield* postJson(c.service, "com.atproto.server.refreshSession", {}, kept.refreshJwt))
          if (Option.isSome(refreshed)) {
            sessions.set(key, refreshed.value)
            return refreshed.value
          }
        }
        const { answer, session } = yield* createSession(c)
        if (Option.isSome(session)) {
          sessions.set(key, session.value)
          return session.value
        }
        sessions.delete(key)
        // no session: nothing was posted
        const why = answer._tag === "Failed" ? transportAnswer(NAME, answer.error) : statusAnswer(NAME, answer.response, rejection)
        return yield* Effect.fail(
          why._tag === "NoAnswer"
            ? PublishAnswer.FailedBeforeSending({ reason: `no session: ${why.reason}` })
            : why._tag === "Rejected" && answer._tag === "Response" && answer.response.status === 401
              ? PublishAnswer.Rejected({
                  message: "Bluesky refused the handle and app password.",
                  fix: "Reconnect the channel with a new app password, then retry."
                })
              : why
        )
      })

    /** Runs a call with the session, renewing it once when the PDS says the token expired. */
    const withSession = (c: Stored, use: (s: Session) => Effect.Effect<NetworkAnswer>) =>
      Effect.gen(function* () {
        const first = yield* use(yield* sessionFor(c, false))
        if (!expired(first)) return first
        return yield* use(yield* sessionFor(c, true))
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(
          Given,
          NAME,
          "service (the PDS address, e.g. https://bsky.social), identifier (the handle) and appPassword"
        )(input)
        const { answer, session } = yield* createSession(given)
        if (Option.isNone(session)) return yield* connectFailedFrom(NAME, answer)
        const profile = read(
          Profile,
          yield* getJson(given.service, "app.bsky.actor.getProfile", { actor: session.value.did }, session.value.accessJwt)
        )
        return {
          credentials: {
            service: trimBase(given.service),
            identifier: given.identifier,
            appPassword: given.appPassword,
            did: session.value.did,
            handle: session.value.handle
          },
          profile: {
            accountId: session.value.did,
            name: Option.match(profile, { onNone: () => session.value.handle, onSome: (p) => p.displayName || p.handle }),
            profile: session.value.handle,
            picture: Option.getOrNull(Option.flatMap(profile, (p) => Option.fromNullable(p.avatar)))
          }
        }
      })

    /** A record's uri and cid (replies name both), and the root its own reply names. */
    const strongRef = (c: Stored, uri: string) =>
      Effect.gen(function* () {
        const at = parseAtUri(uri)
        if (at === null) return Option.none()
        const answer = yield* withSession(c, (s) => getJson(c.service, "com.atproto.repo.getRecord", at, s.accessJwt))
        return Option.map(read(RecordAnswer, answer), (r) => ({
          uri: r.uri,
          cid: r.cid,
          root: Option.getOrUndefined(Option.flatMap(Schema.decodeUnknownOption(PostValue)(r.value), (v) => Option.fromNullable(v.reply?.root)))
        }))
      })

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const session = yield* sessionFor(c, false)
          const classify = classifyBlueskyWith(options.appUrl, c.handle ?? session.handle)
          const files = yield* readAllMedia(media, request.media)
          const images: Array<{ alt: string; image: unknown }> = []
          for (const [index, file] of files.entries()) {
            const answer = yield* withSession(c, (s) =>
              call(outbound, {
                url: xrpc(c.service, "com.atproto.repo.uploadBlob"),
                method: "POST",
                headers: {
                  "content-type": file.mime || "application/octet-stream",
                  authorization: `Bearer ${s.accessJwt}`,
                  accept: "application/json"
                },
                body: file.bytes,
                timeoutMs: 120_000
              })
            )
            const blob = read(Blob, answer)
            if (Option.isNone(blob)) {
              const why = classify(answer)
              return why._tag === "NoAnswer" ? PublishAnswer.FailedBeforeSending({ reason: `an image upload got no answer: ${why.reason}` }) : why
            }
            images.push({ alt: request.media[index]?.alt ?? "", image: blob.value.blob })
          }
          let reply: unknown
          if (request.previousReleaseId !== null) {
            const parent = yield* strongRef(c, request.previousReleaseId)
            if (Option.isNone(parent)) {
              return PublishAnswer.FailedBeforeSending({ reason: "the post this follow-up answers could not be read from Bluesky" })
            }
            const root =
              request.rootReleaseId !== null && request.rootReleaseId !== request.previousReleaseId
                ? Option.getOrUndefined(yield* strongRef(c, request.rootReleaseId))
                : undefined
            const rootRef =
              root !== undefined ? { uri: root.uri, cid: root.cid } : (parent.value.root ?? { uri: parent.value.uri, cid: parent.value.cid })
            reply = { root: rootRef, parent: { uri: parent.value.uri, cid: parent.value.cid } }
          }
          const facets = linkFacets(request.item.content)
          const rkey = tidFor(request.item.id)
          const record = {
            $type: POST,
            text: request.item.content,
            createdAt: new Date().toISOString(),
            ...(facets.length > 0 ? { facets } : {}),
            ...(images.length > 0 ? { embed: { $type: "app.bsky.embed.images", images } } : {}),
            ...(reply === undefined ? {} : { reply })
          }
          const did = c.did ?? session.did
          const answer = yield* withSession(c, (s) =>
            postJson(c.service, "com.atproto.repo.createRecord", { repo: did, collection: POST, rkey, record }, s.accessJwt)
          )
          const outcome = classify(answer)
          if (outcome._tag !== "Rejected" || answer._tag !== "Response") return outcome
          // the same item sent before: the record with its key exists, and it is ours
          const existing = yield* strongRef(c, `at://${did}/${POST}/${rkey}`)
          return Option.isSome(existing)
            ? classify({
                _tag: "Response",
                response: { ...answer.response, status: 200, body: Buffer.from(JSON.stringify({ uri: existing.value.uri, cid: existing.value.cid })) }
              })
            : outcome
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const session = yield* sessionFor(c.value, false).pipe(Effect.option)
        if (Option.isNone(session)) return SearchAnswer.CannotTell({ reason: "no Bluesky session" })
        const renewed = yield* withSession(c.value, (s) =>
          getJson(c.value.service, "app.bsky.feed.getAuthorFeed", { actor: c.value.did ?? session.value.did, limit: "30" }, s.accessJwt)
        ).pipe(Effect.option)
        if (Option.isNone(renewed)) return SearchAnswer.CannotTell({ reason: "no Bluesky session" })
        const answer = renewed.value
        const feed = read(Feed, answer)
        if (Option.isNone(feed))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
        const found = feed.value.feed.find((f) =>
          Option.exists(Schema.decodeUnknownOption(PostValue)(f.post.record), (v) => sameText(v.text, request.item.content))
        )
        if (found === undefined) return SearchAnswer.NotFound()
        const at = parseAtUri(found.post.uri)
        return SearchAnswer.Found({
          releaseId: found.post.uri,
          releaseUrl: `${trimBase(options.appUrl)}/profile/${c.value.handle ?? session.value.handle}/post/${at?.rkey ?? ""}`
        })
      })

    const statisticsWith = (credentials: Redacted.Redacted<Credentials>, method: string, query: (s: Session, c: Stored) => Record<string, string>) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(credentials).pipe(Effect.option)
        if (Option.isNone(c)) return Option.none<NetworkAnswer>()
        const s = yield* sessionFor(c.value, false).pipe(Effect.option)
        if (Option.isNone(s)) return Option.none<NetworkAnswer>()
        return yield* withSession(c.value, (session) => getJson(c.value.service, method, query(session, c.value), session.accessJwt)).pipe(
          Effect.option
        )
      })

    const adapter: NetworkAdapter = {
      identifier: "bluesky",
      connect: { kind: "form" },
      verify,
      // the app password is kept: sessions are made and renewed when publishing
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish: send,
      publishFollowUp: send,
      search,
      statistics: {
        channel: (credentials) =>
          Effect.map(
            statisticsWith(credentials, "app.bsky.actor.getProfile", (s, c) => ({ actor: c.did ?? s.did })),
            (answer) =>
              Option.match(
                Option.flatMap(answer, (a) => read(Profile, a)),
                {
                  onNone: () => Statistics.Missing({ message: "Bluesky did not answer with the account's numbers." }),
                  onSome: (p) =>
                    Statistics.Metrics({
                      metrics: [
                        metricToday("Followers", p.followersCount ?? 0),
                        metricToday("Following", p.followsCount ?? 0),
                        metricToday("Posts", p.postsCount ?? 0)
                      ]
                    })
                }
              )
          ),
        post: (credentials, releaseId) =>
          Effect.map(
            statisticsWith(credentials, "app.bsky.feed.getPosts", () => ({ uris: releaseId })),
            (answer) =>
              Option.match(
                Option.flatMap(
                  Option.flatMap(answer, (a) => read(Posts, a)),
                  (p) => Option.fromNullable(p.posts[0])
                ),
                {
                  onNone: () => Statistics.Missing({ message: "Bluesky did not answer with the post's numbers." }),
                  onSome: (p) =>
                    Statistics.Metrics({
                      metrics: [
                        metricToday("Likes", p.likeCount ?? 0),
                        metricToday("Reposts", p.repostCount ?? 0),
                        metricToday("Replies", p.replyCount ?? 0),
                        metricToday("Quotes", p.quoteCount ?? 0)
                      ]
                    })
                }
              )
          )
      },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyBlueskyWith(options.appUrl, "")
    }
    return adapter
  })

export const makeBlueskyAdapter = Effect.gen(function* () {
  const appUrl = yield* Config.string("BLUESKY_APP_URL").pipe(Config.withDefault("https://bsky.app"), Effect.orDie)
  return yield* makeBlueskyAdapterWith({ appUrl })
})
