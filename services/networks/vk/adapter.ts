import { Effect, Option, Redacted, Schema } from "effect"
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
import {
  answerOf,
  connectFailedFrom,
  decodeForVerify,
  metricToday,
  networkAppConfig,
  readAllMedia,
  readCredentials,
  unknownTool
} from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, multipart, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import {
  CommentItems,
  classifyVk,
  errorAnswer,
  errorOf,
  Groups,
  NAME,
  PostsById,
  resultOf,
  SavedPhotos,
  UploadServer,
  Uploaded,
  User,
  VK_VERSION,
  WallItems,
  wallUrl
} from "./api.js"
import { makeVkId, VkIdSession } from "./vkId.js"

/**
 * VK (dev.vk.com): a community or user token posts on a wall with wall.post (owner_id
 * negative for a community, from_group=1), photos uploaded first through
 * photos.getWallUploadServer → the upload address (multipart `photo`) →
 * photos.saveWallPhoto → `photo{owner_id}_{id}` attachments. Follow-ups are comments
 * (wall.createComment) on the post. `guid` = the item id is VK's guard against the same
 * post twice; a lost answer is also looked for with wall.get / wall.getComments.
 * Connected with a token (admin CLI `--credentials`: a community's or a user's wall), or by
 * signing in with VK ID (the user's own wall; its hour-long token refreshed ahead).
 */

export interface VkOptions {
  /** VK_API_URL (default https://api.vk.com/method): the base before method names. */
  readonly apiUrl: string
  /** VK_AUTH_URL (default https://id.vk.com): VK ID's authorize page and token endpoint. */
  readonly authUrl: string
  /** VK_CLIENT_ID: the VK ID app, for the sign-in link. */
  readonly clientId: Option.Option<string>
}

const OwnerId = Schema.Union(Schema.Number, Schema.NumberFromString).pipe(Schema.filter((n) => Number.isInteger(n) && n !== 0))
const Given = Schema.Struct({ accessToken: Schema.NonEmptyString, ownerId: OwnerId })
const Stored = Schema.Struct({ accessToken: Schema.String, ownerId: Schema.Number })
/** A channel signed in with VK ID also holds its refresh session. */
const SignedIn = Schema.extend(Stored, VkIdSession)

/** How many recent posts (and comments) a search for a lost answer reads. */
const SEARCH_COUNT = 50

export const makeVkAdapterWith = (options: VkOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const base = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const vkId = makeVkId(outbound, { authUrl: trimBase(options.authUrl), clientId: options.clientId })

    /** One API method: form-encoded, the token in the body (never in the address, which is logged). */
    const method = (token: string, name: string, params: Readonly<Record<string, string | number | undefined>>) => {
      const given = Object.entries(params).flatMap(([k, v]): Array<[string, string]> => (v === undefined ? [] : [[k, String(v)]]))
      return call(outbound, {
        url: `${base}/${name}`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams([...given, ["access_token", token], ["v", VK_VERSION]]).toString()
      })
    }

    /** A community wall is posted by the community itself. */
    const wallOf = (ownerId: number) => (ownerId < 0 ? { owner_id: ownerId, from_group: 1 } : { owner_id: ownerId })
    const groupOf = (ownerId: number): Record<string, number> => (ownerId < 0 ? { group_id: -ownerId } : {})

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Given, NAME, "accessToken and ownerId (the wall: negative for a community, e.g. -123456)")(input)
        const failedWith = (answer: NetworkAnswer) =>
          Option.match(answer._tag === "Response" ? errorOf(answer.response) : Option.none(), {
            onNone: () => connectFailedFrom(NAME, answer),
            onSome: (e) => new ConnectFailed({ message: `VK refused these credentials: ${e.error_msg} (error ${e.error_code}).` })
          })
        if (given.ownerId < 0) {
          const answer = yield* method(given.accessToken, "groups.getById", { group_id: -given.ownerId })
          const groups = resultOf(Groups, answer).pipe(Option.map((g) => ("groups" in g ? g.groups : g)))
          const group = Option.flatMap(groups, (g) => Option.fromNullable(g[0]))
          if (Option.isNone(group)) return yield* failedWith(answer)
          const g = group.value
          return {
            credentials: { accessToken: given.accessToken, ownerId: given.ownerId },
            profile: { accountId: String(given.ownerId), name: g.name, profile: g.screen_name ?? `club${g.id}`, picture: g.photo_200 ?? null }
          }
        }
        const answer = yield* method(given.accessToken, "users.get", { user_ids: given.ownerId, fields: "photo_200,screen_name" })
        const user = Option.flatMap(resultOf(Schema.Array(User), answer), (u) => Option.fromNullable(u[0]))
        if (Option.isNone(user)) return yield* failedWith(answer)
        const u = user.value
        const name = [u.first_name, u.last_name].filter((s) => s !== undefined && s !== "").join(" ") || `id${u.id}`
        return {
          credentials: { accessToken: given.accessToken, ownerId: given.ownerId },
          profile: { accountId: String(given.ownerId), name, profile: u.screen_name ?? `id${u.id}`, picture: u.photo_200 ?? null }
        }
      })

    /** A step before the post itself failed: nothing was posted, so no answer means safe to send again. */
    const beforePosting = (what: string, answer: NetworkAnswer) => {
      const said =
        answer._tag === "Failed"
          ? transportAnswer(NAME, answer.error)
          : Option.match(errorOf(answer.response), {
              onNone: () => statusAnswer(NAME, answer.response, () => ({ message: `VK refused ${what}.`, fix: "Retry the post." })),
              onSome: (e) => errorAnswer(e.error_code, e.error_msg)
            })
      return said._tag === "NoAnswer" ? PublishAnswer.FailedBeforeSending({ reason: `${what} got no answer: ${said.reason}` }) : said
    }

    /** Each photo through the wall upload server; the attachments wall.post names. */
    const uploadAll = (token: string, ownerId: number, request: PublishRequest) =>
      Effect.gen(function* () {
        const files = yield* readAllMedia(media, request.media)
        const attachments: Array<string> = []
        for (const [index, file] of files.entries()) {
          if (!file.mime.startsWith("image/")) {
            return yield* Effect.fail(
              PublishAnswer.Rejected({ message: `VK takes photos here, not ${file.mime} (${file.name}).`, fix: "Attach photos only, then retry." })
            )
          }
          const serverAnswer = yield* method(token, "photos.getWallUploadServer", groupOf(ownerId))
          const server = resultOf(UploadServer, serverAnswer)
          if (Option.isNone(server)) return yield* Effect.fail(beforePosting("the photo upload address", serverAnswer))
          const form = multipart([{ name: "photo", filename: file.name || `photo-${index}.jpg`, mime: file.mime, bytes: file.bytes }])
          const uploadAnswer = yield* call(outbound, {
            url: server.value.upload_url,
            method: "POST",
            headers: { "content-type": form.contentType, accept: "application/json" },
            body: form.body,
            timeoutMs: 120_000
          })
          const uploaded =
            uploadAnswer._tag === "Response" && uploadAnswer.response.status === 200
              ? Schema.decodeUnknownOption(Schema.parseJson(Uploaded))(uploadAnswer.response.body.toString("utf8"))
              : Option.none()
          if (Option.isNone(uploaded) || uploaded.value.photo === "[]") return yield* Effect.fail(beforePosting("the photo upload", uploadAnswer))
          const savedAnswer = yield* method(token, "photos.saveWallPhoto", { ...groupOf(ownerId), ...uploaded.value })
          const saved = resultOf(SavedPhotos, savedAnswer)
          if (Option.isNone(saved)) return yield* Effect.fail(beforePosting("saving the photo", savedAnswer))
          attachments.push(`photo${saved.value[0].owner_id}_${saved.value[0].id}`)
        }
        return attachments
      })

    const withAttachments = (attachments: ReadonlyArray<string>) => (attachments.length > 0 ? { attachments: attachments.join(",") } : {})

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const attachments = yield* uploadAll(c.accessToken, c.ownerId, request)
          const answer = yield* method(c.accessToken, "wall.post", {
            ...wallOf(c.ownerId),
            message: request.item.content,
            ...withAttachments(attachments),
            guid: request.item.id
          })
          return classifyVk(answer, c.ownerId)
        })
      )

    /** A comment on the post; a comment after another comment answers it (reply_to_comment). */
    const publishFollowUp = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const postId = request.rootReleaseId ?? request.previousReleaseId
          if (postId === null) return PublishAnswer.Rejected({ message: "A VK comment needs the post it answers.", fix: "Publish the post first." })
          const attachments = yield* uploadAll(c.accessToken, c.ownerId, request)
          const replyTo =
            request.previousReleaseId !== null && request.previousReleaseId !== postId ? { reply_to_comment: request.previousReleaseId } : {}
          const answer = yield* method(c.accessToken, "wall.createComment", {
            owner_id: c.ownerId,
            post_id: postId,
            ...(c.ownerId < 0 ? { from_group: -c.ownerId } : {}),
            message: request.item.content,
            ...withAttachments(attachments),
            ...replyTo,
            guid: request.item.id
          })
          return classifyVk(answer, c.ownerId, postId)
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const { accessToken, ownerId } = c.value
        const postId = request.previousReleaseId === null ? null : (request.rootReleaseId ?? request.previousReleaseId)
        if (postId === null) {
          const answer = yield* method(accessToken, "wall.get", { owner_id: ownerId, count: SEARCH_COUNT })
          const wall = resultOf(WallItems, answer)
          if (Option.isNone(wall)) return SearchAnswer.CannotTell({ reason: "VK did not answer with the wall's posts" })
          const found = wall.value.items.find((p) => sameText(p.text ?? "", request.item.content))
          return found === undefined
            ? SearchAnswer.NotFound()
            : SearchAnswer.Found({ releaseId: String(found.id), releaseUrl: wallUrl(ownerId, found.id) })
        }
        const answer = yield* method(accessToken, "wall.getComments", { owner_id: ownerId, post_id: postId, count: SEARCH_COUNT, sort: "desc" })
        const comments = resultOf(CommentItems, answer)
        if (Option.isNone(comments)) return SearchAnswer.CannotTell({ reason: "VK did not answer with the post's comments" })
        const found = comments.value.items.find((m) => sameText(m.text ?? "", request.item.content))
        return found === undefined
          ? SearchAnswer.NotFound()
          : SearchAnswer.Found({ releaseId: String(found.id), releaseUrl: wallUrl(ownerId, postId, found.id) })
      })

    const postStatistics = (credentials: Redacted.Redacted<Credentials>, releaseId: string) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(credentials).pipe(Effect.option)
        if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
        const answer = yield* method(c.value.accessToken, "wall.getById", { posts: `${c.value.ownerId}_${releaseId}` })
        const post = resultOf(PostsById, answer).pipe(
          Option.map((p) => ("items" in p ? p.items : p)),
          Option.flatMap((items) => Option.fromNullable(items[0]))
        )
        if (Option.isNone(post)) return Statistics.Missing({ message: "VK did not answer with the post's numbers." })
        const p = post.value
        return Statistics.Metrics({
          metrics: [
            metricToday("Views", p.views?.count ?? 0),
            metricToday("Likes", p.likes?.count ?? 0),
            metricToday("Reposts", p.reposts?.count ?? 0),
            metricToday("Comments", p.comments?.count ?? 0)
          ]
        })
      })

    const adapter: NetworkAdapter = {
      identifier: "vk",
      connect: {
        kind: "link",
        authorizeUrl: vkId.authorizeUrl,
        exchange: (input) =>
          Effect.gen(function* () {
            const session = yield* vkId.exchange(input)
            const connected = yield* verify({ accessToken: session.accessToken, ownerId: session.ownerId })
            return { ...connected, credentials: { ...connected.credentials, ...session } }
          })
      },
      verify,
      // VK ID tokens live an hour and are refreshed ahead; community tokens (admin CLI) do not expire
      shortLivedTokens: true,
      refresh: (credentials) =>
        Option.match(Schema.decodeUnknownOption(SignedIn)(Redacted.value(credentials)), {
          onNone: () => Effect.succeed(Refresh.Unchanged()),
          onSome: (signedIn) => vkId.refresh({ ...Redacted.value(credentials), ...signedIn })
        }),
      publish,
      publishFollowUp,
      search,
      statistics: {
        channel: () =>
          Effect.succeed(
            Statistics.Missing({ message: "VK's community statistics (stats.get) are not read by this service; each post's numbers are." })
          ),
        post: postStatistics
      },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: (answer) => classifyVk(answer, null)
    }
    return adapter
  })

/** The adapter with VK_API_URL, VK_AUTH_URL and VK_CLIENT_ID. */
export const makeVkAdapter = Effect.gen(function* () {
  const config = yield* networkAppConfig("vk", { apiUrl: "https://api.vk.com/method", authUrl: "https://id.vk.com" })
  return yield* makeVkAdapterWith({ apiUrl: config.apiUrl, authUrl: config.authUrl, clientId: config.clientId })
})
