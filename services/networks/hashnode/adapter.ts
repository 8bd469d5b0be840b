import { Config, Effect, Option, type Redacted, Schema } from "effect"
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
import { answerOf, connectFailedFrom, decodeForVerify, metricToday, readCredentials, unknownTool } from "../adapterKit.js"
import { hashnode } from "../../../domain/networks/publishing.js"
import { checkSettings, listSetting, textSetting } from "../articleSettings.js"
import { NetworkDeps, PUBLIC_MEDIA_TTL_SECONDS } from "../networkDeps.js"
import { call, decodeBody, excerpt, retryAfterMs, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * Hashnode's GraphQL API (apidocs.hashnode.com, the schema at gql.hashnode.com): a personal
 * access token in `Authorization`; an article is `publishPost` on the channel's publication
 * with its Markdown, title, subtitle, tags (slugs), canonical URL (`originalArticleURL`),
 * series and cover (`coverImage`, an address Hashnode takes as it is). Errors come in the
 * GraphQL shape with `extensions.code`. No duplicate guard and no comments by API; a lost
 * answer is settled by the publication's recent posts, matched by title and Markdown.
 */
const NAME = "Hashnode"

export interface HashnodeOptions {
  /** HASHNODE_API_URL (default https://gql.hashnode.com). */
  readonly apiUrl: string
}

const Given = Schema.Struct({ token: Schema.String.pipe(Schema.minLength(1)), publicationId: Schema.String.pipe(Schema.minLength(1)) })
const Stored = Schema.Struct({ token: Schema.String, publicationId: Schema.String })

const GraphError = Schema.Struct({
  message: Schema.String,
  extensions: Schema.optional(Schema.Struct({ code: Schema.optional(Schema.String) }))
})
const Errors = Schema.Struct({ errors: Schema.NonEmptyArray(GraphError) })
const Data = <A, I>(data: Schema.Schema<A, I>) => Schema.Struct({ data })

const PostRef = Schema.Struct({ id: Schema.String, url: Schema.String })
const Published = Data(Schema.Struct({ publishPost: Schema.Struct({ post: PostRef }) }))
const Me = Data(
  Schema.Struct({
    me: Schema.Struct({
      id: Schema.String,
      username: Schema.String,
      name: Schema.String,
      profilePicture: Schema.optional(Schema.NullOr(Schema.String)),
      publications: Schema.Struct({
        edges: Schema.Array(Schema.Struct({ node: Schema.Struct({ id: Schema.String, title: Schema.String }) }))
      })
    })
  })
)
const RecentPosts = Data(
  Schema.Struct({
    publication: Schema.NullOr(
      Schema.Struct({
        posts: Schema.Struct({
          edges: Schema.Array(
            Schema.Struct({
              node: Schema.Struct({
                id: Schema.String,
                title: Schema.String,
                url: Schema.String,
                content: Schema.Struct({ markdown: Schema.String })
              })
            })
          )
        })
      })
    )
  })
)
const PostNumbers = Data(
  Schema.Struct({
    post: Schema.NullOr(
      Schema.Struct({ views: Schema.optional(Schema.NullOr(Schema.Number)), reactionCount: Schema.Number, responseCount: Schema.Number })
    )
  })
)
const PublicationNumbers = Data(
  Schema.Struct({
    publication: Schema.NullOr(
      Schema.Struct({
        followersCount: Schema.optional(Schema.NullOr(Schema.Number)),
        posts: Schema.Struct({ totalDocuments: Schema.optional(Schema.NullOr(Schema.Number)) })
      })
    )
  })
)

const PUBLISH = `mutation PublishPost($input: PublishPostInput!) {
  publishPost(input: $input) { post { id slug url title } }
}`
const ME = `query Me {
  me { id username name profilePicture publications(first: 50) { edges { node { id title url } } } }
}`
const RECENT = `query RecentPosts($id: ObjectId!) {
  publication(id: $id) { posts(first: 20) { edges { node { id title url content { markdown } } } } }
}`
const POST_NUMBERS = `query PostNumbers($id: ID!) {
  post(id: $id) { views reactionCount responseCount }
}`
const PUBLICATION_NUMBERS = `query PublicationNumbers($id: ObjectId!) {
  publication(id: $id) { followersCount posts(first: 1) { totalDocuments } }
}`

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

/** The first GraphQL error of a body, when it has one. */
const firstError = (response: Response) => Option.map(decodeBody(Errors, response), (e) => e.errors[0])

const rejection = (response: Response) =>
  Option.match(firstError(response), {
    onNone: () => ({ message: `Hashnode refused the article (HTTP ${response.status}).`, fix: "Change the article, then retry." }),
    onSome: (e) =>
      /pro plan/i.test(e.message)
        ? { message: `Hashnode refused the article: ${e.message}`, fix: "Upgrade the publication to Hashnode Pro, then retry." }
        : { message: `Hashnode refused the article: ${e.message}`, fix: "Change the article as the message says, then retry." }
  })

/** Hashnode's answer to publishPost: the post's id and address, or a GraphQL error with its code. */
export const classifyHashnode = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (response.status === 429) return PublishAnswer.RateLimited({ retryAfterMs: retryAfterMs(response) })
  if (response.status >= 200 && response.status < 300) {
    const post = decodeBody(Published, response)
    if (Option.isSome(post) && post.value.data.publishPost.post.id !== "") {
      const { id, url } = post.value.data.publishPost.post
      return PublishAnswer.Published({ releaseId: id, releaseUrl: url })
    }
  }
  const error = firstError(response)
  if (response.status < 500 && Option.isSome(error)) {
    const code = error.value.extensions?.code
    // Hashnode hides the details of its own failures: the post may or may not be live
    if (code === "INTERNAL_SERVER_ERROR") return PublishAnswer.NoAnswer({ reason: `Hashnode answered an internal error: ${error.value.message}` })
    if (code === "UNAUTHENTICATED") {
      return PublishAnswer.Rejected({
        message: `Hashnode no longer accepts this channel's token (${error.value.message}).`,
        fix: "Reconnect the channel with a new personal access token, then retry the post."
      })
    }
    return PublishAnswer.Rejected(rejection(response))
  }
  return statusAnswer(NAME, response, rejection)
}

const refuse = (message: string, fix: string) => Effect.fail(PublishAnswer.Rejected({ message, fix }))

/** A tag as Hashnode's slug: lower case, words joined by hyphens. */
const slugOf = (tag: string) =>
  tag
    .toLowerCase()
    .replace(/^#/, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")

/** publishPost's input from the post's settings, checked against the catalog's rules first (Hashnode would refuse them). */
const inputOf = (request: PublishRequest, publicationId: string) =>
  Effect.gen(function* () {
    const settings = request.channel.settings
    yield* checkSettings(hashnode, settings)
    const tags = listSetting(settings, "tags")
    const subtitle = textSetting(settings, "subtitle")
    const canonical = textSetting(settings, "canonical_url")
    const series = textSetting(settings, "series")
    return {
      publicationId,
      title: textSetting(settings, "title") ?? "",
      contentMarkdown: request.item.content,
      ...(subtitle === undefined ? {} : { subtitle }),
      ...(tags.length === 0 ? {} : { tags: tags.map((t) => ({ slug: slugOf(t), name: t.replace(/^#/, "") })) }),
      ...(canonical === undefined ? {} : { originalArticleURL: canonical }),
      ...(series === undefined ? {} : { seriesId: series })
    }
  })

export const makeHashnodeAdapterWith = (options: HashnodeOptions) =>
  Effect.gen(function* () {
    const { outbound, publicMedia } = yield* NetworkDeps
    const endpoint = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const graphql = (token: string, query: string, variables: Record<string, unknown> = {}) =>
      call(outbound, {
        url: endpoint,
        method: "POST",
        headers: { authorization: token, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ query, variables })
      })
    const dataOf = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && answer.response.status === 200 ? decodeBody(schema, answer.response) : Option.none()

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Given, NAME, "token (a personal access token) and publicationId")(input)
        const answer = yield* graphql(given.token, ME)
        const me = dataOf(Me, answer)
        if (Option.isNone(me)) {
          const error = answer._tag === "Response" ? firstError(answer.response) : Option.none()
          return yield* Option.match(error, {
            onNone: () => connectFailedFrom(NAME, answer),
            onSome: (e) => new ConnectFailed({ message: `Hashnode refused these credentials: ${e.message}` })
          })
        }
        const user = me.value.data.me
        const publication = user.publications.edges.find((e) => e.node.id === given.publicationId)
        if (publication === undefined) {
          const known = user.publications.edges.map((e) => `${e.node.id} ${e.node.title}`).join(", ")
          return yield* new ConnectFailed({
            message: `The publication ${given.publicationId} is not one of ${user.username}'s publications (${known || "none"}).`
          })
        }
        return {
          credentials: { token: given.token, publicationId: given.publicationId, userId: user.id, username: user.username },
          profile: { accountId: given.publicationId, name: publication.node.title, profile: user.username, picture: user.profilePicture ?? null }
        }
      })

    /** The cover by its signed public address; photos only. */
    const coverOf = (request: PublishRequest) =>
      Effect.gen(function* () {
        const [file] = request.media
        if (file === undefined) return {}
        if (file.type === "video" || file.mime.startsWith("video/")) {
          return yield* refuse("Hashnode takes a photo as the article's cover, not a video.", "Attach a photo instead, then retry.")
        }
        const address = yield* publicMedia
          .addressOf(file, PUBLIC_MEDIA_TTL_SECONDS)
          .pipe(Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, then retry." })))
        return { coverImage: address }
      })

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const input = yield* inputOf(request, c.publicationId)
          const cover = yield* coverOf(request)
          return classifyHashnode(yield* graphql(c.token, PUBLISH, { input: { ...input, ...cover } }))
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const title = textSetting(request.channel.settings, "title")
        if (title === undefined) return SearchAnswer.NotFound()
        const answer = yield* graphql(c.value.token, RECENT, { id: c.value.publicationId })
        const posts = dataOf(RecentPosts, answer)
        if (Option.isNone(posts) || posts.value.data.publication === null) {
          const why = answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status} ${excerpt(answer.response, 120)}`
          return SearchAnswer.CannotTell({ reason: `Hashnode did not answer with the publication's posts (${why})` })
        }
        const found = posts.value.data.publication.posts.edges
          .map((e) => e.node)
          .find((p) => p.title === title && sameText(p.content.markdown, request.item.content))
        return found === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: found.id, releaseUrl: found.url })
      })

    const missing = (message: string) => Statistics.Missing({ message })
    const statistics = {
      channel: (credentials: Redacted.Redacted<Credentials>) =>
        Effect.gen(function* () {
          const c = yield* credentialsOf(credentials).pipe(Effect.option)
          if (Option.isNone(c)) return missing("The channel's credentials cannot be read.")
          const numbers = dataOf(PublicationNumbers, yield* graphql(c.value.token, PUBLICATION_NUMBERS, { id: c.value.publicationId }))
          const publication = Option.flatMap(numbers, (n) => Option.fromNullable(n.data.publication))
          if (Option.isNone(publication)) return missing("Hashnode did not answer with the publication's numbers.")
          return Statistics.Metrics({
            metrics: [
              metricToday("Followers", publication.value.followersCount ?? 0, "People who follow the publication"),
              metricToday("Posts", publication.value.posts.totalDocuments ?? 0, "Posts of the publication")
            ]
          })
        }),
      post: (credentials: Redacted.Redacted<Credentials>, releaseId: string) =>
        Effect.gen(function* () {
          const c = yield* credentialsOf(credentials).pipe(Effect.option)
          if (Option.isNone(c)) return missing("The channel's credentials cannot be read.")
          const numbers = dataOf(PostNumbers, yield* graphql(c.value.token, POST_NUMBERS, { id: releaseId }))
          const post = Option.flatMap(numbers, (n) => Option.fromNullable(n.data.post))
          if (Option.isNone(post)) return missing("Hashnode did not answer with the post's numbers.")
          return Statistics.Metrics({
            metrics: [
              metricToday("Views", post.value.views ?? 0),
              metricToday("Reactions", post.value.reactionCount),
              metricToday("Comments", post.value.responseCount)
            ]
          })
        })
    }

    const adapter: NetworkAdapter = {
      identifier: "hashnode",
      connect: { kind: "form" },
      verify,
      // personal access tokens do not expire; a revoked one answers UNAUTHENTICATED (reconnect)
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish,
      // comments are not published by this server (the catalog refuses follow-ups before saving)
      publishFollowUp: () =>
        Effect.succeed(
          PublishAnswer.Rejected({
            message: "Hashnode articles take no follow-ups here.",
            fix: "Remove the follow-ups of Hashnode posts, then retry."
          })
        ),
      search,
      statistics,
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyHashnode
    }
    return adapter
  })

export const makeHashnodeAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.string("HASHNODE_API_URL").pipe(Config.withDefault("https://gql.hashnode.com"), Effect.orDie)
  return yield* makeHashnodeAdapterWith({ apiUrl })
})
