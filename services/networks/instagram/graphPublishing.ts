import { Effect, Option, type Redacted, Schema } from "effect"
import {
  type Credentials,
  type NetworkAdapter,
  PublishAnswer,
  type Quota,
  type PublishRequest,
  SearchAnswer,
  type Statistics,
  Statistics as StatisticsAnswer
} from "../adapter.js"
import { answerOf, metricToday, noStatistics, unknownTool } from "../adapterKit.js"
import {
  type ContainerNetwork,
  type ContainerPlan,
  type ContainerStatus,
  publicFilesOf,
  publishInSteps,
  type PublicFile,
  searchWithContainer
} from "../metaContainers.js"
import { classifyGraph, graphGet, graphPost, insightsAnswer, readGraph, searchListed } from "../metaGraph.js"
import type { NetworkDeps } from "../networkDeps.js"

/**
 * Publishing to an Instagram professional account, the same with both logins (only the
 * host differs: graph.facebook.com or graph.instagram.com): containers from public media
 * addresses (`POST /{ig-user}/media`: a photo, a reel, a story, or a carousel of up to 10
 * items), the container's `status_code`, the account's `content_publishing_limit` read
 * before `POST /{ig-user}/media_publish`, follow-ups as comments (`POST /{media}/comments`),
 * a lost answer found among the account's recent media by its caption.
 */

/** What publishing needs of a channel's credentials. */
export interface InstagramAccount {
  readonly accessToken: string
  readonly igUserId: string
}

const HOME = "https://www.instagram.com/"

const Status = Schema.Struct({
  status_code: Schema.Literal("FINISHED", "IN_PROGRESS", "ERROR", "EXPIRED", "PUBLISHED"),
  status: Schema.optional(Schema.String)
})
const Permalink = Schema.Struct({ permalink: Schema.String })
const AccountNumbers = Schema.Struct({
  followers_count: Schema.optional(Schema.Number),
  follows_count: Schema.optional(Schema.Number),
  media_count: Schema.optional(Schema.Number)
})
const Limit = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      quota_usage: Schema.Number,
      config: Schema.optional(Schema.Struct({ quota_total: Schema.Number, quota_duration: Schema.optional(Schema.Number) }))
    })
  )
})

/** Instagram's cap when the limit's answer does not say (posts per 24 hours). */
const DEFAULT_CAP = 50

export const makeInstagramPublishing = (input: {
  readonly name: string
  /** `https://graph.facebook.com/v21.0` or `https://graph.instagram.com/v21.0`. */
  readonly graph: string
  readonly deps: typeof NetworkDeps.Service
}) => {
  const { name, graph, deps } = input
  const { outbound, publicMedia } = deps
  const classify = classifyGraph(name, () => HOME)

  const permalink = (c: InstagramAccount, id: string) =>
    Effect.map(graphGet(outbound, `${graph}/${encodeURIComponent(id)}?fields=permalink`, c.accessToken), (answer) =>
      Option.getOrElse(
        Option.map(readGraph(Permalink, answer), (p) => p.permalink),
        () => HOME
      )
    )

  const listRecent = (c: InstagramAccount, content: string) =>
    Effect.map(
      graphGet(outbound, `${graph}/${encodeURIComponent(c.igUserId)}/media?fields=id,caption,permalink,timestamp&limit=25`, c.accessToken),
      (answer) => searchListed(answer, content, (_id, link) => link ?? HOME)
    )

  /** The account's publishing limit now (`content_publishing_limit`): posts published in the last 24 hours and the cap. */
  const limitOf = (c: InstagramAccount) =>
    Effect.map(
      graphGet(outbound, `${graph}/${encodeURIComponent(c.igUserId)}/content_publishing_limit?fields=quota_usage,config`, c.accessToken),
      (answer) => Option.flatMap(readGraph(Limit, answer), (limit) => Option.fromNullable(limit.data[0]))
    )

  /** GET /integrations/{id}/health's quota: what is left of the 24-hour cap. */
  const quota = (c: InstagramAccount): Effect.Effect<Option.Option<Quota>> =>
    Effect.map(
      limitOf(c),
      Option.map((now) => {
        const total = now.config?.quota_total ?? DEFAULT_CAP
        return { remaining: Math.max(0, total - now.quota_usage), limit: total, resetsAt: null, unit: "posts in 24 hours" }
      })
    )

  const network = (c: InstagramAccount, request: PublishRequest): ContainerNetwork => ({
    name,
    create: (fields) => graphPost(outbound, `${graph}/${encodeURIComponent(c.igUserId)}/media`, c.accessToken, fields),
    status: (id) =>
      Effect.map(graphGet(outbound, `${graph}/${encodeURIComponent(id)}?fields=status_code,status`, c.accessToken), (answer) => {
        const read = readGraph(Status, answer)
        return [Option.map(read, (s): ContainerStatus => ({ code: s.status_code, reason: s.status ?? s.status_code })), answer] as const
      }),
    publish: (id) => graphPost(outbound, `${graph}/${encodeURIComponent(c.igUserId)}/media_publish`, c.accessToken, { creation_id: id }),
    classify,
    permalink: (id) => permalink(c, id),
    capFull: Effect.map(
      limitOf(c),
      Option.flatMap((now) => {
        const total = now.config?.quota_total ?? DEFAULT_CAP
        return now.quota_usage >= total
          ? Option.some(
              `${name}'s cap of ${total} published posts per 24 hours is full (${now.quota_usage} published); the post goes out when it frees`
            )
          : Option.none()
      })
    ),
    findPublished: listRecent(c, request.item.content)
  })

  const filesOf = (request: PublishRequest) => publicFilesOf(publicMedia, request)

  const planOf = (request: PublishRequest): ContainerPlan => {
    const story = request.channel.settings["post_type"] === "story"
    const caption = request.item.content
    // alt_text is taken for photos only (feed posts and carousel items)
    const altOf = (file: PublicFile): Record<string, string> => (file.video || file.alt === "" ? {} : { alt_text: file.alt })
    const fileFields = (file: PublicFile): Record<string, string> => (file.video ? { video_url: file.url } : { image_url: file.url })
    return {
      files: Effect.flatMap(filesOf(request), (files) =>
        files.length === 0
          ? Effect.fail(
              PublishAnswer.Rejected({ message: `${name} needs a photo or a video in every post.`, fix: "Attach a photo or a video, then retry." })
            )
          : story && files.length > 1
            ? Effect.fail(
                PublishAnswer.Rejected({ message: `An ${name} story takes 1 photo or video.`, fix: "Keep one file, or post it as a feed post." })
              )
            : Effect.succeed(files)
      ),
      single: (file): Record<string, string> =>
        file === null
          ? { caption }
          : story
            ? { media_type: "STORIES", ...fileFields(file) }
            : file.video
              ? { media_type: "REELS", video_url: file.url, caption }
              : { image_url: file.url, caption, ...altOf(file) },
      child: (file): Record<string, string> => ({
        is_carousel_item: "true",
        ...(file.video ? { media_type: "VIDEO", video_url: file.url } : { image_url: file.url, ...altOf(file) })
      }),
      parent: (childIds) => ({ media_type: "CAROUSEL", children: childIds.join(","), caption })
    }
  }

  const publish = (c: InstagramAccount, request: PublishRequest) => publishInSteps(network(c, request), planOf(request), request.progress)

  /** A follow-up is a comment on the post (a comment on a comment would be a nested reply). */
  const publishFollowUp = (c: InstagramAccount, request: PublishRequest) =>
    Effect.gen(function* () {
      const target = request.rootReleaseId ?? request.previousReleaseId ?? ""
      const answer = classify(
        yield* graphPost(outbound, `${graph}/${encodeURIComponent(target)}/comments`, c.accessToken, { message: request.item.content })
      )
      if (answer._tag !== "Published") return answer
      return PublishAnswer.Published({ releaseId: answer.releaseId, releaseUrl: yield* permalink(c, target) })
    })

  const search = (c: InstagramAccount, request: PublishRequest): Effect.Effect<SearchAnswer> => {
    if (request.item.position > 0) {
      const target = request.rootReleaseId ?? request.previousReleaseId ?? ""
      return Effect.gen(function* () {
        const answer = yield* graphGet(outbound, `${graph}/${encodeURIComponent(target)}/comments?fields=id,text,timestamp`, c.accessToken)
        const found = searchListed(answer, request.item.content, () => HOME)
        return found._tag === "Found" ? SearchAnswer.Found({ releaseId: found.releaseId, releaseUrl: yield* permalink(c, target) }) : found
      })
    }
    return searchWithContainer(network(c, request), request.progress, listRecent(c, request.item.content))
  }

  const postStatistics = (c: InstagramAccount, releaseId: string): Effect.Effect<Statistics> =>
    Effect.map(graphGet(outbound, `${graph}/${encodeURIComponent(releaseId)}/insights?metric=likes,comments,reach,saved`, c.accessToken), (answer) =>
      insightsAnswer(name, answer)
    )

  /** The account's own numbers now (Instagram keeps no daily history of them for this app). */
  const channelStatistics = (c: InstagramAccount): Effect.Effect<Statistics> =>
    Effect.map(
      graphGet(outbound, `${graph}/${encodeURIComponent(c.igUserId)}?fields=followers_count,follows_count,media_count`, c.accessToken),
      (answer) =>
        Option.match(readGraph(AccountNumbers, answer), {
          onNone: () => StatisticsAnswer.Missing({ message: `${name} did not answer with the account's numbers.` }),
          onSome: (n) =>
            StatisticsAnswer.Metrics({
              metrics: [
                metricToday("Followers", n.followers_count ?? 0),
                metricToday("Following", n.follows_count ?? 0),
                metricToday("Posts", n.media_count ?? 0)
              ]
            })
        })
    )

  return { publish, publishFollowUp, search, postStatistics, channelStatistics, classify, quota }
}

/**
 * The publishing half of both Instagram adapters (Facebook Login and Instagram Login): the
 * same Graph calls on their own host, with each login's stored credentials.
 */
export const instagramAdapterMethods = <C extends InstagramAccount>(
  name: string,
  credentialsOf: (credentials: Redacted.Redacted<Credentials>) => Effect.Effect<C, PublishAnswer>,
  publishing: ReturnType<typeof makeInstagramPublishing>
): Pick<NetworkAdapter, "publish" | "publishFollowUp" | "search" | "statistics" | "runTool" | "classify" | "quota"> => {
  const withAccount = (request: PublishRequest, f: (c: C) => Effect.Effect<PublishAnswer>) =>
    answerOf(Effect.flatMap(credentialsOf(request.channel.credentials), f))
  const readable = <A>(credentials: Redacted.Redacted<Credentials>, onNone: () => Effect.Effect<A>, onSome: (c: C) => Effect.Effect<A>) =>
    Effect.flatMap(Effect.option(credentialsOf(credentials)), Option.match({ onNone, onSome }))
  return {
    publish: (request) => withAccount(request, (c) => publishing.publish(c, request)),
    publishFollowUp: (request) => withAccount(request, (c) => publishing.publishFollowUp(c, request)),
    search: (request) =>
      readable(
        request.channel.credentials,
        () => Effect.succeed(SearchAnswer.CannotTell({ reason: "the stored credentials cannot be read" })),
        (c) => publishing.search(c, request)
      ),
    statistics: {
      channel: (credentials) =>
        readable(
          credentials,
          () => noStatistics(name),
          (c) => publishing.channelStatistics(c)
        ),
      post: (credentials, releaseId) =>
        readable(
          credentials,
          () => noStatistics(name),
          (c) => publishing.postStatistics(c, releaseId)
        )
    },
    runTool: ({ methodName }) => unknownTool(methodName, name, []),
    quota: (credentials) =>
      readable(
        credentials,
        () => Effect.succeed(Option.none()),
        (c) => publishing.quota(c)
      ),
    classify: publishing.classify
  }
}
