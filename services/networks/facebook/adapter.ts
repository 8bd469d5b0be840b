import { Effect, Option, Redacted, Schema } from "effect"
import {
  type Choice,
  ConnectFailed,
  type Connected,
  type NetworkAdapter,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, readCredentials, unknownTool, networkAppConfig } from "../adapterKit.js"
import { NetworkDeps, PUBLIC_MEDIA_TTL_SECONDS } from "../networkDeps.js"
import { call, isSuccess, sameText, trimBase } from "../networkHttp.js"
import type { StoredMedia } from "../storedMedia.js"
import { classifyFacebook, facebookUrl, graphReason, graphStatusAnswer } from "./graphAnswers.js"
import { graphClient, PageCredentials, VERSION } from "./graphClient.js"
import { facebookStatistics } from "./statistics.js"

/**
 * Facebook Pages through the Graph API (developers.facebook.com/docs/pages-api): Facebook
 * Login gives a user token, exchanged for a long-lived one whose page tokens do not
 * expire; the person chooses one of their pages (GET /me/accounts) when they have several.
 * Text and links with POST /{page}/feed; photos uploaded unpublished by address to
 * /{page}/photos then one feed post with attached_media; a video with /{page}/videos
 * file_url, which Facebook fetches and processes (Pending until its status is ready);
 * follow-ups as comments (POST /{post}/comments); a story of one photo with /{page}/photo_stories.
 */
const NAME = "Facebook"
const SCOPES = "pages_show_list,pages_manage_posts,pages_read_engagement,read_insights"
/** How long a video may process before the item is checked again. */
const VIDEO_RETRY_MS = 30_000
/** Facebook processes a video within minutes; after a day of "processing" (or no status) the item stops waiting. */
const VIDEO_PATIENCE_MS = 24 * 3600_000

export interface FacebookOptions {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

/** Signed in, no page chosen yet: the long-lived user token that lists the person's pages. */
const UserCredentials = Schema.Struct({ userAccessToken: Schema.String, userId: Schema.String })

const PictureData = Schema.Struct({ data: Schema.Struct({ url: Schema.optional(Schema.String) }) })
const Picture = Schema.optional(PictureData)
const Token = Schema.Struct({ access_token: Schema.String })
const Node = Schema.Struct({ id: Schema.String, name: Schema.optional(Schema.String), picture: Picture })
const Page = Schema.Struct({ id: Schema.String, name: Schema.String, access_token: Schema.String, picture: Picture })
const Pages = Schema.Struct({ data: Schema.Array(Page) })
const Created = Schema.Struct({ id: Schema.String })
const VideoState = Schema.Struct({
  id: Schema.String,
  status: Schema.optional(Schema.Struct({ video_status: Schema.String, processing_progress: Schema.optional(Schema.Number) })),
  permalink_url: Schema.optional(Schema.String)
})
/** A video Facebook took: its id, and when it was taken (ms), to stop waiting one day. */
const VideoProgress = Schema.Struct({ videoId: Schema.String, since: Schema.optional(Schema.Number) })
type VideoProgress = typeof VideoProgress.Type
const PageVideos = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      description: Schema.optional(Schema.String),
      status: Schema.optional(Schema.Struct({ video_status: Schema.String })),
      permalink_url: Schema.optional(Schema.String)
    })
  )
})
const Posts = Schema.Struct({
  data: Schema.Array(Schema.Struct({ id: Schema.String, message: Schema.optional(Schema.String), permalink_url: Schema.optional(Schema.String) }))
})
const pictureOf = (p: typeof PictureData.Type | undefined) => p?.data.url ?? null
const isVideo = (m: StoredMedia) => m.type === "video" || m.mime.startsWith("video/")
const firstLink = (text: string) => /https?:\/\/\S+/.exec(text)?.[0]

export const makeFacebookAdapterWith = (options: FacebookOptions) =>
  Effect.gen(function* () {
    const { outbound, publicMedia } = yield* NetworkDeps
    const graph = `${trimBase(options.apiUrl)}/${VERSION}`
    const auth = trimBase(options.authUrl)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const credentialsOf = readCredentials(PageCredentials, NAME)

    const { get, post, read } = graphClient(outbound, graph)

    const pageConnection = (page: typeof Page.Type): Connected => ({
      credentials: { accessToken: page.access_token, pageId: page.id },
      profile: { accountId: page.id, name: page.name, profile: page.name, picture: pictureOf(page.picture) }
    })

    /** The pages the user token manages (GET /me/accounts, each with its own token). */
    const pagesOf = (userToken: string) =>
      Effect.gen(function* () {
        const answer = yield* get("/me/accounts", userToken, { fields: "id,name,access_token,picture", limit: "100" })
        const pages = read(Pages, answer)
        if (Option.isNone(pages)) return yield* connectFailedFrom(NAME, answer)
        if (pages.value.data.length === 0)
          return yield* new ConnectFailed({
            message: "This Facebook account manages no page this app may post to. Create a page, or allow the app on one, then connect again."
          })
        return pages.value.data
      })

    const exchange = (code: string, redirectUri: string) =>
      Effect.gen(function* () {
        const keys = { client_id: clientId ?? "", client_secret: clientSecret ?? "" }
        const short = yield* call(outbound, {
          url: `${graph}/oauth/access_token?${new URLSearchParams({ ...keys, redirect_uri: redirectUri, code }).toString()}`,
          headers: { accept: "application/json" }
        })
        const first = read(Token, short)
        if (Option.isNone(first)) return yield* connectFailedFrom(NAME, short)
        // the long-lived user token: the page tokens it gives never expire
        const long = yield* call(outbound, {
          url: `${graph}/oauth/access_token?${new URLSearchParams({ ...keys, grant_type: "fb_exchange_token", fb_exchange_token: first.value.access_token }).toString()}`,
          headers: { accept: "application/json" }
        })
        const token = read(Token, long)
        if (Option.isNone(token)) return yield* connectFailedFrom(NAME, long)
        const meAnswer = yield* get("/me", token.value.access_token, { fields: "id,name,picture" })
        const me = read(Node, meAnswer)
        if (Option.isNone(me)) return yield* connectFailedFrom(NAME, meAnswer)
        const pages = yield* pagesOf(token.value.access_token)
        if (pages.length === 1) return pageConnection(pages[0]!)
        const choices: ReadonlyArray<Choice> = pages.map((p) => ({ id: p.id, name: p.name, picture: pictureOf(p.picture) }))
        const connected: Connected = {
          credentials: { userAccessToken: token.value.access_token, userId: me.value.id },
          profile: {
            accountId: `user:${me.value.id}`,
            name: me.value.name ?? me.value.id,
            profile: me.value.name ?? me.value.id,
            picture: pictureOf(me.value.picture)
          },
          choices
        }
        return connected
      })

    const choose = (credentials: Redacted.Redacted<Record<string, unknown>>, choiceId: string) =>
      Effect.gen(function* () {
        const user = Schema.decodeUnknownOption(UserCredentials)(Redacted.value(credentials))
        if (Option.isNone(user))
          return yield* new ConnectFailed({ message: "This Facebook connection has no sign-in to choose a page with. Connect again." })
        const pages = yield* pagesOf(user.value.userAccessToken)
        const page = pages.find((p) => p.id === choiceId)
        if (page === undefined)
          return yield* new ConnectFailed({ message: "That page is not among the pages this Facebook account manages. Connect again." })
        return pageConnection(page)
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(PageCredentials, NAME, "accessToken (the page's token) and pageId")(input)
        const answer = yield* get(`/${encodeURIComponent(given.pageId)}`, given.accessToken, { fields: "id,name,picture" })
        const page = read(Node, answer)
        if (Option.isNone(page)) return yield* connectFailedFrom(NAME, answer)
        const connected: Connected = {
          credentials: { accessToken: given.accessToken, pageId: page.value.id },
          profile: {
            accountId: page.value.id,
            name: page.value.name ?? page.value.id,
            profile: page.value.name ?? page.value.id,
            picture: pictureOf(page.value.picture)
          }
        }
        return connected
      })

    const addressOf = (file: StoredMedia) =>
      publicMedia
        .addressOf(file, PUBLIC_MEDIA_TTL_SECONDS)
        .pipe(
          Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." }))
        )

    /** A photo uploaded unpublished (Facebook fetches it from its address now): its id for attached_media. */
    const uploadPhoto = (c: PageCredentials, file: StoredMedia) =>
      Effect.gen(function* () {
        const url = yield* addressOf(file)
        const answer = yield* post(`/${c.pageId}/photos`, c.accessToken, {
          url,
          published: "false",
          ...(file.alt === "" ? {} : { alt_text_custom: file.alt })
        })
        const created = read(Created, answer)
        if (Option.isSome(created)) return created.value.id
        const why = classifyFacebook(answer)
        // nothing is live yet: an unpublished photo is no post
        return yield* Effect.fail(
          why._tag === "NoAnswer" || why._tag === "Published"
            ? PublishAnswer.FailedBeforeSending({ reason: `a photo upload got no answer: ${why._tag === "NoAnswer" ? why.reason : "no id"}` })
            : why
        )
      })

    /** Where a video stands: Published when ready, Pending while processing, Rejected when Facebook gave up on it. */
    const videoAnswer = (c: PageCredentials, progress: VideoProgress) =>
      Effect.gen(function* () {
        const { videoId } = progress
        const since = progress.since ?? Date.now()
        const answer = yield* get(`/${videoId}`, c.accessToken, { fields: "id,status,permalink_url" })
        const state = read(VideoState, answer)
        const pending = (waitingFor: string) =>
          Date.now() - since > VIDEO_PATIENCE_MS
            ? PublishAnswer.Rejected({
                message: `Facebook took the video (${videoId}) a day ago and still does not say it is ready.`,
                fix: "Check the page's videos: it may be live. Post it again only if it is not."
              })
            : PublishAnswer.Pending({ progress: { videoId, since }, kind: "processing", waitingFor, retryAfterMs: VIDEO_RETRY_MS })
        if (Option.isNone(state)) return pending("Facebook to answer about the video")
        const status = state.value.status?.video_status ?? "ready"
        if (status === "ready" || status === "published")
          return PublishAnswer.Published({ releaseId: videoId, releaseUrl: state.value.permalink_url ?? facebookUrl(videoId) })
        if (status === "error" || status === "expired")
          return PublishAnswer.Rejected({
            message: `Facebook could not process the video (${status}).`,
            fix: "Check that the file is a video Facebook takes (MP4, H.264), then retry."
          })
        return pending(`Facebook to process the video (${state.value.status?.processing_progress ?? 0}%)`)
      })

    const publishVideo = (c: PageCredentials, request: PublishRequest, file: StoredMedia) =>
      Effect.gen(function* () {
        const url = yield* addressOf(file)
        const answer = yield* post(`/${c.pageId}/videos`, c.accessToken, { file_url: url, description: request.item.content })
        const created = read(Created, answer)
        if (Option.isNone(created)) return classifyFacebook(answer)
        return yield* videoAnswer(c, { videoId: created.value.id, since: Date.now() })
      })

    /** A photo story: the photo uploaded unpublished, then POST /{page}/photo_stories (docs: Page Stories API). */
    const publishStory = (c: PageCredentials, request: PublishRequest) =>
      Effect.gen(function* () {
        if (request.media.some(isVideo))
          return PublishAnswer.Rejected({
            message: "Facebook video stories are not published by this server yet.",
            fix: "Post the video as a post (post_type post), or make the story of one photo."
          })
        const [photo, ...more] = request.media
        if (photo === undefined || more.length > 0)
          return PublishAnswer.Rejected({ message: "A Facebook story is one photo.", fix: "Attach exactly one photo to the story, then retry." })
        const photoId = yield* uploadPhoto(c, photo)
        return classifyFacebook(yield* post(`/${c.pageId}/photo_stories`, c.accessToken, { photo_id: photoId }))
      })

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const progress = Schema.decodeUnknownOption(VideoProgress)(request.progress)
          // a video already given to Facebook: never a second upload, only its status
          if (Option.isSome(progress)) return yield* videoAnswer(c, progress.value)
          if (request.channel.settings["post_type"] === "story") return yield* publishStory(c, request)
          const video = request.media.find(isVideo)
          if (video !== undefined) return yield* publishVideo(c, request, video)
          const photoIds = yield* Effect.forEach(request.media, (file) => uploadPhoto(c, file))
          const link = photoIds.length === 0 ? firstLink(request.item.content) : undefined
          const attached = Object.fromEntries(photoIds.map((id, i) => [`attached_media[${i}]`, JSON.stringify({ media_fbid: id })]))
          const answer = yield* post(`/${c.pageId}/feed`, c.accessToken, {
            message: request.item.content,
            ...(link === undefined ? {} : { link }),
            ...attached
          })
          return classifyFacebook(answer)
        })
      )

    const publishFollowUp = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          // comments go on the post itself (a comment on a comment is a nested reply)
          const target = request.rootReleaseId ?? request.previousReleaseId ?? ""
          const photo = request.media.find((m) => !isVideo(m))
          const attachment: Record<string, string> = photo === undefined ? {} : { attachment_url: yield* addressOf(photo) }
          return classifyFacebook(yield* post(`/${target}/comments`, c.accessToken, { message: request.item.content, ...attachment }))
        })
      )

    /** A video whose answer was lost: the page's videos by description (one still processing is continued, never sent again). */
    const searchVideos = (c: PageCredentials, content: string) =>
      Effect.gen(function* () {
        const answer = yield* get(`/${c.pageId}/videos`, c.accessToken, { fields: "id,description,status,permalink_url", limit: "25" })
        const videos = read(PageVideos, answer)
        if (Option.isNone(videos))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : graphReason(answer.response) })
        const found = videos.value.data.find((v) => sameText(v.description ?? "", content))
        if (found === undefined) return SearchAnswer.NotFound()
        const status = found.status?.video_status ?? "ready"
        if (status === "ready" || status === "published")
          return SearchAnswer.Found({ releaseId: found.id, releaseUrl: found.permalink_url ?? facebookUrl(found.id) })
        return status === "error" || status === "expired"
          ? SearchAnswer.NotFound()
          : SearchAnswer.Unfinished({ progress: { videoId: found.id, since: Date.now() } })
      })

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = Schema.decodeUnknownOption(PageCredentials)(Redacted.value(request.channel.credentials))
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the stored credentials cannot be read" })
        const progress = Schema.decodeUnknownOption(VideoProgress)(request.progress)
        if (Option.isSome(progress)) {
          const state = yield* videoAnswer(c.value, progress.value)
          if (state._tag === "Published") return SearchAnswer.Found({ releaseId: state.releaseId, releaseUrl: state.releaseUrl })
          if (state._tag === "Pending") return SearchAnswer.Unfinished({ progress: state.progress })
          return SearchAnswer.NotFound()
        }
        // a story is not among the page's posts, and an empty text would match any photo post
        if (request.channel.settings["post_type"] === "story" || request.item.content.trim() === "")
          return SearchAnswer.CannotTell({ reason: "Facebook cannot search a page's stories or posts without text" })
        const video = request.media.find(isVideo)
        if (video !== undefined && request.item.position === 0) return yield* searchVideos(c.value, request.item.content)
        const isComment = request.item.position > 0
        const path = isComment ? `/${request.rootReleaseId ?? request.previousReleaseId ?? ""}/comments` : `/${c.value.pageId}/published_posts`
        const answer = yield* get(path, c.value.accessToken, { fields: isComment ? "id,message" : "id,message,permalink_url", limit: "25" })
        const posts = read(Posts, answer)
        if (Option.isNone(posts))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : graphReason(answer.response) })
        const found = posts.value.data.find((p) => sameText(p.message ?? "", request.item.content))
        return found === undefined
          ? SearchAnswer.NotFound()
          : SearchAnswer.Found({ releaseId: found.id, releaseUrl: found.permalink_url ?? facebookUrl(found.id) })
      })

    const adapter: NetworkAdapter = {
      identifier: "facebook",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Facebook is not set up on this server (FACEBOOK_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/${VERSION}/dialog/oauth?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, state, scope: SCOPES, response_type: "code" }).toString()}`
              ),
        exchange: ({ code, redirectUri }) => exchange(code, redirectUri)
      },
      verify,
      choose,
      // page tokens from a long-lived user token do not expire
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish,
      publishFollowUp,
      search,
      statistics: facebookStatistics(get, read),
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: (answer) =>
        answer._tag === "Response" && !isSuccess(answer.response) ? graphStatusAnswer(answer.response) : classifyFacebook(answer)
    }
    return adapter
  })

export const makeFacebookAdapter = Effect.gen(function* () {
  const options = yield* networkAppConfig("facebook", { apiUrl: "https://graph.facebook.com", authUrl: "https://www.facebook.com" })
  return yield* makeFacebookAdapterWith(options)
})
