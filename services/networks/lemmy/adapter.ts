import { Effect, Option, type Redacted, Ref, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import {
  ConnectFailed,
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
import { call, decodeBody, excerpt, isSuccess, multipart, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import type { OutboundResponse } from "../../platform/outbound/request.js"
import { commentReleaseId, type Entry, entriesOf, LemmyProgress, parseReleaseId, type Posted } from "./communities.js"

/**
 * Lemmy, any instance (join-lemmy.org/docs, lemmy-js-client 0.19): signs in with
 * POST /api/v3/user/login (username and password → a JWT, sent as `Authorization: Bearer`;
 * a refused JWT is replaced by signing in again with the stored password), posts with
 * POST /api/v3/post to each community of the post's `subreddit` setting, uploads an image
 * through pict-rs (POST /pictrs/image, multipart `images[]`), answers with comments
 * (POST /api/v3/comment, post_id and parent_id) and finds a lost post in the account's own
 * recent posts and comments (GET /api/v3/user?username=…&sort=New).
 */
const NAME = "Lemmy"
const TOOLS = ["subreddits", "communities"]

const Given = Schema.Struct({ instance: Schema.String, username: Schema.String, password: Schema.String })
const Stored = Schema.Struct({
  instance: Schema.String,
  username: Schema.String,
  password: Schema.String,
  jwt: Schema.optional(Schema.String),
  personId: Schema.optional(Schema.Number)
})
type Stored = typeof Stored.Type

const Login = Schema.Struct({ jwt: Schema.optional(Schema.NullOr(Schema.String)) })
const Person = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  display_name: Schema.optional(Schema.NullOr(Schema.String)),
  avatar: Schema.optional(Schema.NullOr(Schema.String)),
  actor_id: Schema.optional(Schema.String)
})
const PostData = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  body: Schema.optional(Schema.NullOr(Schema.String)),
  url: Schema.optional(Schema.NullOr(Schema.String)),
  community_id: Schema.Number,
  ap_id: Schema.String
})
const Counts = Schema.Struct({
  score: Schema.optional(Schema.Number),
  upvotes: Schema.optional(Schema.Number),
  downvotes: Schema.optional(Schema.Number),
  comments: Schema.optional(Schema.Number)
})
const PostView = Schema.Struct({ post: PostData, counts: Schema.optional(Counts) })
const CommentView = Schema.Struct({
  comment: Schema.Struct({ id: Schema.Number, content: Schema.String, post_id: Schema.Number, ap_id: Schema.String }),
  counts: Schema.optional(Counts)
})
const PostResponse = Schema.Struct({ post_view: PostView })
const CommentResponse = Schema.Struct({ comment_view: CommentView })
const PersonDetails = Schema.Struct({
  person_view: Schema.Struct({
    person: Person,
    counts: Schema.optional(Schema.Struct({ post_count: Schema.optional(Schema.Number), comment_count: Schema.optional(Schema.Number) }))
  }),
  posts: Schema.Array(PostView),
  comments: Schema.Array(CommentView)
})
const Community = Schema.Struct({
  community: Schema.Struct({ id: Schema.Number, name: Schema.String, title: Schema.String, actor_id: Schema.optional(Schema.String) }),
  counts: Schema.optional(Schema.Struct({ subscribers: Schema.optional(Schema.Number) }))
})
const CommunityResponse = Schema.Struct({ community_view: Community })
const Communities = Schema.Struct({ communities: Schema.Array(Community) })
const Uploaded = Schema.Struct({ msg: Schema.String, files: Schema.optional(Schema.Array(Schema.Struct({ file: Schema.String }))) })
const ErrorBody = Schema.Struct({ error: Schema.String })

/** An instance address: origin and path, no trailing slash. */
const instanceOf = (text: string): Option.Option<string> => {
  try {
    const url = new URL(text.includes("://") ? text : `https://${text}`)
    if (url.protocol !== "https:" && url.protocol !== "http:") return Option.none()
    return Option.some(trimBase(`${url.origin}${url.pathname}`))
  } catch {
    return Option.none()
  }
}

/** Lemmy's error code of an answer (`{"error": "…"}`), if it has one. */
const errorOf = (response: OutboundResponse) => Option.map(decodeBody(ErrorBody, response), (b) => b.error)

/** The JWT was refused: it expired, or the session was logged out (Lemmy answers 401 or `not_logged_in`). */
const isAuthRefusal = (answer: NetworkAnswer) =>
  answer._tag === "Response" &&
  (answer.response.status === 401 ||
    Option.exists(errorOf(answer.response), (e) => e === "not_logged_in" || e === "incorrect_login" || e === "invalid_auth_token"))

const rejection = (response: OutboundResponse) => {
  const reason = Option.getOrElse(errorOf(response), () => `HTTP ${response.status}: ${excerpt(response, 120)}`)
  // signing in again with the stored password failed too: the password changed or the account is gone
  if (reason === "incorrect_login" || reason === "not_logged_in")
    return {
      message: `Lemmy no longer accepts this channel's sign-in (${reason}).`,
      fix: "Reconnect the channel with the account's current password, then retry."
    }
  if (/banned|not_a_moderator|only_mods_can_post/.test(reason))
    return { message: `Lemmy refused the post: ${reason}.`, fix: "Check the account may post in the community, then retry." }
  if (/couldnt_find|not_found|deleted|locked/.test(reason))
    return {
      message: `Lemmy refused the post: ${reason}.`,
      fix: "Check the community (or the post a comment answers) still exists and is open, then retry."
    }
  if (/too_long|invalid_post_title|invalid_body|invalid_url/.test(reason))
    return { message: `Lemmy refused the post: ${reason}.`, fix: "Shorten or correct the title, text or link as the message says, then retry." }
  if (reason === "rate_limit_error") return { message: "Lemmy refused the post: too many posts for now.", fix: "Wait a few minutes, then retry." }
  return { message: `Lemmy refused the post: ${reason}.`, fix: "Change the post as the message says, then retry." }
}

/** Lemmy's answer to POST /api/v3/post or /api/v3/comment. */
export const classifyLemmy = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (isSuccess(response)) {
    const post = decodeBody(PostResponse, response)
    if (Option.isSome(post))
      return PublishAnswer.Published({ releaseId: String(post.value.post_view.post.id), releaseUrl: post.value.post_view.post.ap_id })
    const comment = decodeBody(CommentResponse, response)
    if (Option.isSome(comment)) {
      const c = comment.value.comment_view.comment
      return PublishAnswer.Published({ releaseId: commentReleaseId(c.post_id, c.id), releaseUrl: c.ap_id })
    }
  }
  // Lemmy's rate limiter answers 429 or 400 rate_limit_error
  if (Option.exists(errorOf(response), (e) => e === "rate_limit_error")) return PublishAnswer.RateLimited({ retryAfterMs: 60_000 })
  return statusAnswer(NAME, response, rejection)
}

export interface LemmyOptions {
  /** How many of the account's newest posts and comments a search reads. */
  readonly searchLimit?: number
}

export const makeLemmyAdapterWith = (options: LemmyOptions = {}) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const credentialsOf = readCredentials(Stored, NAME)
    // JWTs got by signing in again after a refusal: adapters never write credentials, so they are kept here
    const renewed = yield* Ref.make(new Map<string, string>())
    const keyOf = (c: Stored) => `${c.instance} ${c.username}`

    const login = (instance: string, username: string, password: string) =>
      Effect.map(
        call(outbound, {
          url: `${instance}/api/v3/user/login`,
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ username_or_email: username, password })
        }),
        (answer) => ({
          answer,
          jwt:
            answer._tag === "Response" && isSuccess(answer.response)
              ? Option.flatMap(decodeBody(Login, answer.response), (l) => Option.fromNullable(l.jwt))
              : Option.none<string>()
        })
      )

    const authHeaders = (jwt: string, json = true): Record<string, string> => ({
      authorization: `Bearer ${jwt}`,
      // pict-rs behind Lemmy reads the session from the `jwt` cookie
      cookie: `jwt=${jwt}`,
      accept: "application/json",
      ...(json ? { "content-type": "application/json" } : {})
    })

    /** A call with the channel's JWT; refused, it signs in again with the stored password and calls once more. */
    const authed = (c: Stored, request: (jwt: string) => Parameters<typeof call>[1]) =>
      Effect.gen(function* () {
        const known = (yield* Ref.get(renewed)).get(keyOf(c)) ?? c.jwt
        if (known !== undefined) {
          const first = yield* call(outbound, request(known))
          if (!isAuthRefusal(first)) return first
        }
        const fresh = yield* login(c.instance, c.username, c.password)
        if (Option.isNone(fresh.jwt)) return fresh.answer
        const jwt = fresh.jwt.value
        yield* Ref.update(renewed, (m) => new Map(m).set(keyOf(c), jwt))
        return yield* call(outbound, request(jwt))
      })

    const get = (c: Stored, path: string) => authed(c, (jwt) => ({ url: `${c.instance}${path}`, headers: authHeaders(jwt) }))
    const postJson = (c: Stored, path: string, body: unknown) =>
      authed(c, (jwt) => ({ url: `${c.instance}${path}`, method: "POST", headers: authHeaders(jwt), body: JSON.stringify(body) }))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()

    const personOf = (c: Stored, limit: number) =>
      Effect.map(get(c, `/api/v3/user?${new URLSearchParams({ username: c.username, sort: "New", limit: String(limit) }).toString()}`), (a) =>
        read(PersonDetails, a)
      )

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Given, NAME, "instance (the server's address), username and password")(input)
        const instance = instanceOf(given.instance)
        if (Option.isNone(instance)) return yield* new ConnectFailed({ message: `Lemmy instance ${given.instance} is not an address.` })
        const signedIn = yield* login(instance.value, given.username, given.password)
        if (Option.isNone(signedIn.jwt)) {
          if (signedIn.answer._tag === "Response" && isSuccess(signedIn.answer.response))
            return yield* new ConnectFailed({
              message: "Lemmy signed in without a session: the account must confirm its email or be approved first."
            })
          return yield* connectFailedFrom(NAME, signedIn.answer)
        }
        const stored: Stored = { instance: instance.value, username: given.username, password: given.password, jwt: signedIn.jwt.value }
        const details = yield* personOf(stored, 1)
        if (Option.isNone(details)) return yield* new ConnectFailed({ message: "Lemmy did not answer with the account after signing in." })
        const person = details.value.person_view.person
        return {
          credentials: { ...stored, personId: person.id },
          profile: {
            accountId: `${instance.value}#${person.id}`,
            name: person.display_name || person.name,
            profile: person.name,
            picture: person.avatar ?? null
          }
        }
      })

    /** A community id from the entry: digits as they are, a name through GET /api/v3/community?name=. */
    const communityId = (c: Stored, entry: Entry) =>
      Effect.gen(function* () {
        if (/^\d+$/.test(entry.community)) return Number(entry.community)
        const answer = yield* get(c, `/api/v3/community?${new URLSearchParams({ name: entry.community }).toString()}`)
        const found = read(CommunityResponse, answer)
        if (Option.isSome(found)) return found.value.community_view.community.id
        if (answer._tag === "Failed" || answer.response.status >= 500 || answer.response.status === 429)
          return yield* Effect.fail(PublishAnswer.FailedBeforeSending({ reason: `the community ${entry.community} could not be looked up` }))
        const missing = answer.response.status === 404 || Option.exists(errorOf(answer.response), (e) => e === "couldnt_find_community")
        return yield* Effect.fail(
          missing
            ? PublishAnswer.Rejected({
                message: `Lemmy has no community ${entry.community} on this instance.`,
                fix: "Pick the community with the communities tool (its id), then retry."
              })
            : PublishAnswer.Rejected(rejection(answer.response))
        )
      })

    /** The item's image uploaded to pict-rs: its address on the instance. Nothing is posted before it. */
    const upload = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const files = yield* readAllMedia(media, request.media.slice(0, 1))
        const file = files[0]
        if (file === undefined) return Option.none<string>()
        const form = multipart([{ name: "images[]", filename: file.name || "image", mime: file.mime, bytes: file.bytes }])
        const answer = yield* authed(c, (jwt) => ({
          url: `${c.instance}/pictrs/image`,
          method: "POST",
          headers: { ...authHeaders(jwt, false), "content-type": form.contentType },
          body: form.body,
          timeoutMs: 120_000
        }))
        const uploaded = read(Uploaded, answer)
        const name = Option.flatMap(uploaded, (u) => (u.msg === "ok" ? Option.fromNullable(u.files?.[0]?.file) : Option.none()))
        if (Option.isSome(name)) return Option.some(`${c.instance}/pictrs/image/${encodeURIComponent(name.value)}`)
        if (answer._tag === "Failed")
          return yield* Effect.fail(PublishAnswer.FailedBeforeSending({ reason: `the image upload got no answer (${answer.error._tag})` }))
        const reason = Option.match(uploaded, {
          onNone: () => `HTTP ${answer.response.status}: ${excerpt(answer.response, 120)}`,
          onSome: (u) => u.msg
        })
        return yield* Effect.fail(
          answer.response.status >= 500 || answer.response.status === 429
            ? PublishAnswer.FailedBeforeSending({ reason: `the image upload failed: ${reason}` })
            : PublishAnswer.Rejected({
                message: `Lemmy's image host refused the file: ${reason}.`,
                fix: "Use a smaller JPEG or PNG image, then retry."
              })
        )
      })

    const postIn = (c: Stored, request: PublishRequest, entry: Entry, image: Option.Option<string>) =>
      Effect.gen(function* () {
        const community_id = yield* communityId(c, entry)
        const alt = request.media[0]?.alt
        const url = entry.url ?? Option.getOrUndefined(image)
        return classifyLemmy(
          yield* postJson(c, "/api/v3/post", {
            name: entry.title,
            community_id,
            ...(request.item.content.trim() === "" ? {} : { body: request.item.content }),
            ...(url === undefined ? {} : { url }),
            // a link post with an image shows the image as its thumbnail
            ...(entry.url !== undefined && Option.isSome(image) ? { custom_thumbnail: image.value } : {}),
            ...(Option.isSome(image) && alt !== undefined && alt !== "" ? { alt_text: alt } : {})
          })
        )
      })

    const progressOf = (request: PublishRequest) =>
      Option.match(request.progress === null ? Option.none() : Schema.decodeUnknownOption(LemmyProgress)(request.progress), {
        onNone: (): ReadonlyArray<Posted> => [],
        onSome: (p) => p.done
      })
    const nextOf = (entries: ReadonlyArray<Entry>, done: ReadonlyArray<Posted>) => entries.find((e) => !done.some((d) => d.community === e.community))

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const entries = entriesOf(request.channel.settings)
          if (entries.length === 0)
            return PublishAnswer.Rejected({
              message: "A Lemmy post needs a community and a title.",
              fix: "Fill the subreddit setting with {subreddit: the community, title} (the communities tool lists them), then retry."
            })
          const done = progressOf(request)
          const next = nextOf(entries, done)
          const first = done[0]
          if (next === undefined)
            return first === undefined
              ? PublishAnswer.Rejected({ message: "Nothing to post.", fix: "Fill the subreddit setting." })
              : PublishAnswer.Published({ releaseId: first.id, releaseUrl: first.url })
          const answer = yield* postIn(c, request, next, yield* upload(c, request))
          if (answer._tag !== "Published") return answer
          const posted = [...done, { community: next.community, id: answer.releaseId, url: answer.releaseUrl }]
          const head = posted[0] ?? { id: answer.releaseId, url: answer.releaseUrl }
          // each further community is its own step: a retry never posts twice where it is live
          return posted.length < entries.length
            ? PublishAnswer.Pending({
                progress: { done: posted },
                kind: "processing",
                waitingFor: `Lemmy: ${entries.length - posted.length} more community(ies) to post in`,
                retryAfterMs: 2_000
              })
            : PublishAnswer.Published({ releaseId: head.id, releaseUrl: head.url })
        })
      )

    const publishFollowUp = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const parent = parseReleaseId(request.previousReleaseId ?? request.rootReleaseId ?? "")
          if (parent === null)
            return PublishAnswer.Rejected({ message: "A Lemmy comment needs the post it answers.", fix: "Publish the post first." })
          const image = yield* upload(c, request)
          const alt = request.media[0]?.alt ?? ""
          const content = Option.match(image, { onNone: () => request.item.content, onSome: (u) => `${request.item.content}\n\n![${alt}](${u})` })
          return classifyLemmy(
            yield* postJson(c, "/api/v3/comment", {
              content,
              post_id: parent.postId,
              ...(parent.commentId === null ? {} : { parent_id: parent.commentId })
            })
          )
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const details = yield* personOf(c.value, options.searchLimit ?? 20)
        if (Option.isNone(details)) return SearchAnswer.CannotTell({ reason: "Lemmy did not list the account's posts" })
        const content = request.item.content
        if (request.previousReleaseId !== null) {
          const parent = parseReleaseId(request.previousReleaseId)
          const found = details.value.comments.find(
            (v) => v.comment.post_id === parent?.postId && sameText(v.comment.content.split("\n\n![")[0] ?? "", content)
          )
          return found === undefined
            ? SearchAnswer.NotFound()
            : SearchAnswer.Found({ releaseId: commentReleaseId(found.comment.post_id, found.comment.id), releaseUrl: found.comment.ap_id })
        }
        const entries = entriesOf(request.channel.settings)
        const done = progressOf(request)
        const next = nextOf(entries, done)
        if (next === undefined) {
          const first = done[0]
          return first === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: first.id, releaseUrl: first.url })
        }
        const found = details.value.posts.find(
          (v) =>
            v.post.name === next.title &&
            sameText(v.post.body ?? "", content) &&
            (!/^\d+$/.test(next.community) || v.post.community_id === Number(next.community))
        )
        if (found === undefined) return done.length === 0 ? SearchAnswer.NotFound() : SearchAnswer.Unfinished({ progress: { done } })
        const posted = [...done, { community: next.community, id: String(found.post.id), url: found.post.ap_id }]
        const head = posted[0] ?? posted[posted.length - 1]!
        return posted.length < entries.length
          ? SearchAnswer.Unfinished({ progress: { done: posted } })
          : SearchAnswer.Found({ releaseId: head.id, releaseUrl: head.url })
      })

    const withCredentials = (credentials: Redacted.Redacted<Credentials>, f: (c: Stored) => Effect.Effect<Statistics>) =>
      Effect.flatMap(
        credentialsOf(credentials).pipe(Effect.option),
        (c): Effect.Effect<Statistics> =>
          Option.isNone(c) ? Effect.succeed(Statistics.Missing({ message: "The channel's credentials cannot be read." })) : f(c.value)
      )

    const communitiesTool = (c: Stored, data: Readonly<Record<string, unknown>>) =>
      Effect.gen(function* () {
        const name = typeof data["name"] === "string" ? data["name"].trim().replace(/^!/, "") : ""
        if (name !== "") {
          const one = read(CommunityResponse, yield* get(c, `/api/v3/community?${new URLSearchParams({ name }).toString()}`))
          return Option.match(one, { onNone: () => [], onSome: (r) => [r.community_view] })
        }
        const all = read(Communities, yield* get(c, "/api/v3/community/list?type_=All&sort=TopAll&limit=50"))
        if (Option.isNone(all)) return yield* Effect.fail(Errors.badRequest("Lemmy did not list its communities. Try again in a minute."))
        return all.value.communities
      })

    const adapter: NetworkAdapter = {
      identifier: "lemmy",
      connect: { kind: "form" },
      verify,
      // the JWT is renewed with the stored password when Lemmy refuses it (at use): nothing to refresh ahead
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish,
      publishFollowUp,
      search,
      statistics: {
        channel: (credentials) =>
          withCredentials(credentials, (c) =>
            Effect.map(personOf(c, 1), (details) =>
              Option.match(details, {
                onNone: () => Statistics.Missing({ message: "Lemmy did not answer with the account's numbers." }),
                onSome: (d) =>
                  Statistics.Metrics({
                    metrics: [
                      metricToday("Posts", d.person_view.counts?.post_count ?? 0, "Posts the account has made"),
                      metricToday("Comments", d.person_view.counts?.comment_count ?? 0, "Comments the account has made")
                    ]
                  })
              })
            )
          ),
        post: (credentials, releaseId) =>
          withCredentials(credentials, (c) =>
            Effect.gen(function* () {
              const id = parseReleaseId(releaseId)
              if (id === null) return Statistics.Missing({ message: "This is not a Lemmy post id." })
              const path = id.commentId === null ? `/api/v3/post?id=${id.postId}` : `/api/v3/comment?id=${id.commentId}`
              const answer = yield* get(c, path)
              const counts = Option.orElse(
                Option.map(read(PostResponse, answer), (r) => r.post_view.counts),
                () => Option.map(read(CommentResponse, answer), (r) => r.comment_view.counts)
              )
              if (Option.isNone(counts)) return Statistics.Missing({ message: "Lemmy did not answer with the post's numbers." })
              const n = counts.value ?? {}
              return Statistics.Metrics({
                metrics: [
                  metricToday("Score", n.score ?? 0),
                  metricToday("Upvotes", n.upvotes ?? 0),
                  metricToday("Downvotes", n.downvotes ?? 0),
                  ...(id.commentId === null ? [metricToday("Comments", n.comments ?? 0)] : [])
                ]
              })
            })
          )
      },
      runTool: ({ credentials, data, methodName }) =>
        Effect.gen(function* () {
          if (!TOOLS.includes(methodName)) return yield* unknownTool(methodName, NAME, TOOLS)
          const c = yield* credentialsOf(credentials).pipe(
            Effect.mapError(() => Errors.badRequest("The channel's Lemmy connection cannot be read. Reconnect it."))
          )
          const shape = (v: typeof Community.Type) => ({
            id: v.community.id,
            subreddit: String(v.community.id),
            name: v.community.name,
            title: v.community.title,
            subscribers: v.counts?.subscribers ?? 0
          })
          if (methodName === "communities") return { communities: (yield* communitiesTool(c, data)).map(shape) }
          const word = typeof data["word"] === "string" ? data["word"].trim() : ""
          if (word === "") return yield* Effect.fail(Errors.badRequest("The subreddits tool needs a word to search for."))
          const query = new URLSearchParams({ q: word, type_: "Communities", listing_type: "All", sort: "TopAll", limit: "10" })
          const found = read(Communities, yield* get(c, `/api/v3/search?${query.toString()}`))
          if (Option.isNone(found)) return yield* Effect.fail(Errors.badRequest("Lemmy did not answer the search. Try again in a minute."))
          return { subreddits: found.value.communities.map(shape) }
        }),
      classify: classifyLemmy
    }
    return adapter
  })

export const makeLemmyAdapter = makeLemmyAdapterWith()
