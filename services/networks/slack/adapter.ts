import { Effect, Option, Redacted, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import {
  ConnectFailed,
  type Connected,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer
} from "../adapter.js"
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
import { call, decodeBody, excerpt, isSuccess, sameText, trimBase } from "../networkHttp.js"
import { classifySlack, escapeText, failureOf, permalinkOf, unescapeText } from "./answers.js"

/**
 * Slack's Web API (docs.slack.dev): the app is installed with OAuth v2 (`/oauth/v2/authorize`,
 * `oauth.v2.access`; the `incoming-webhook` scope makes the person pick the channel), its bot
 * token does not expire (token rotation off). A post is `chat.postMessage` in the channel; files
 * go by the external upload flow (`files.getUploadURLExternal`, the bytes to the answered
 * address, `files.completeUploadExternal` with `channel_id`, the text as `initial_comment`),
 * whose answer names no message, so the message is then looked up in the channel's history.
 * Follow-ups reply in the post's thread (`thread_ts`). No duplicate guard: a lost answer is
 * settled by `conversations.history` / `conversations.replies`.
 */
const NAME = "Slack"
const SCOPES = "chat:write,chat:write.public,files:write,channels:read,groups:read,channels:history,groups:history,incoming-webhook"
/** How soon to look again for the message of files Slack is still sharing. */
const SHARING_RETRY_MS = 3_000
/** How long a shared upload may stay without its message before the item is given up as unknown. */
const SHARING_GIVE_UP_MS = 10 * 60_000

export interface SlackOptions {
  /** SLACK_API_URL: the Web API as documented before method names (https://slack.com/api). */
  readonly apiUrl: string
  /** SLACK_AUTH_URL: the sign-in page's base (https://slack.com). */
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Given = Schema.Struct({ botToken: Schema.String, channelId: Schema.String })
const Stored = Schema.Struct({
  botToken: Schema.String,
  channelId: Schema.optional(Schema.String),
  teamUrl: Schema.optional(Schema.String),
  botId: Schema.optional(Schema.String),
  botUserId: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type
/** Files shared by files.completeUploadExternal whose message is looked up in the channel. */
const SharedFiles = Schema.Struct({ fileIds: Schema.NonEmptyArray(Schema.String), channel: Schema.String, since: Schema.Number })
type SharedFiles = typeof SharedFiles.Type

const Ok = <F extends Schema.Struct.Fields>(fields: F) => Schema.Struct({ ok: Schema.Literal(true), ...fields })
const AuthTest = Ok({
  url: Schema.String,
  team: Schema.String,
  team_id: Schema.String,
  user_id: Schema.String,
  bot_id: Schema.optional(Schema.String)
})
const ChannelInfo = Ok({ channel: Schema.Struct({ id: Schema.String, name: Schema.optional(Schema.String) }) })
const Channels = Ok({
  channels: Schema.Array(
    Schema.Struct({ id: Schema.String, name: Schema.String, is_private: Schema.optional(Schema.Boolean), is_member: Schema.optional(Schema.Boolean) })
  )
})
const OAuthAccess = Ok({
  access_token: Schema.String,
  bot_user_id: Schema.optional(Schema.String),
  team: Schema.Struct({ id: Schema.String, name: Schema.String }),
  incoming_webhook: Schema.optional(Schema.Struct({ channel: Schema.optional(Schema.String), channel_id: Schema.String }))
})
const UploadUrl = Ok({ upload_url: Schema.String, file_id: Schema.String })
const Completed = Ok({ files: Schema.NonEmptyArray(Schema.Struct({ id: Schema.String })) })
const Messages = Ok({
  messages: Schema.Array(
    Schema.Struct({
      ts: Schema.String,
      text: Schema.optional(Schema.String),
      user: Schema.optional(Schema.String),
      bot_id: Schema.optional(Schema.String),
      thread_ts: Schema.optional(Schema.String),
      files: Schema.optional(Schema.Array(Schema.Struct({ id: Schema.String })))
    })
  )
})
type Message = (typeof Messages.Type)["messages"][number]

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

export const makeSlackAdapterWith = (options: SlackOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && answer.response.status === 200 ? decodeBody(schema, answer.response) : Option.none()
    const bearer = (token: string) => ({ authorization: `Bearer ${token}`, accept: "application/json" })
    /** A reading method, its arguments in the query. */
    const get = (token: string, method: string, args: Record<string, string> = {}) =>
      call(outbound, { url: `${api}/${method}?${new URLSearchParams(args).toString()}`, headers: bearer(token) })
    /** A writing method, its arguments as JSON. */
    const post = (token: string, method: string, args: Record<string, unknown>) =>
      call(outbound, {
        url: `${api}/${method}`,
        method: "POST",
        headers: { ...bearer(token), "content-type": "application/json; charset=utf-8" },
        body: JSON.stringify(args)
      })

    /** Who the bot token is (auth.test) and the channel it posts in (conversations.info). */
    const connected = (botToken: string, channelId: string | undefined) =>
      Effect.gen(function* () {
        const answer = yield* get(botToken, "auth.test")
        const me = read(AuthTest, answer)
        if (Option.isNone(me)) {
          const refused = answer._tag === "Response" ? decodeBody(Schema.Struct({ error: Schema.String }), answer.response) : Option.none()
          if (Option.isSome(refused)) return yield* new ConnectFailed({ message: `Slack refused the bot token: ${refused.value.error}.` })
          return yield* connectFailedFrom(NAME, answer)
        }
        const channel =
          channelId === undefined ? Option.none() : read(ChannelInfo, yield* get(botToken, "conversations.info", { channel: channelId }))
        if (channelId !== undefined && Option.isNone(channel))
          return yield* new ConnectFailed({
            message: `The Slack app cannot see the channel ${channelId}: invite it to the channel, then connect again.`
          })
        const name = Option.match(channel, { onNone: () => me.value.team, onSome: (c) => `#${c.channel.name ?? c.channel.id}` })
        const result: Connected = {
          credentials: {
            botToken,
            ...(channelId === undefined ? {} : { channelId }),
            teamUrl: me.value.url,
            botUserId: me.value.user_id,
            ...(me.value.bot_id === undefined ? {} : { botId: me.value.bot_id })
          },
          profile: { accountId: `${me.value.team_id}:${channelId ?? me.value.user_id}`, name, profile: me.value.team, picture: null },
          // posts go to this channel unless their `channel` setting names another
          ...(channelId === undefined ? {} : { defaultSettings: { channel: channelId } })
        }
        return result
      })

    const verify = (input: unknown) =>
      Effect.flatMap(decodeForVerify(Given, NAME, "botToken (the app's xoxb- bot token) and channelId (the channel to post in)")(input), (given) =>
        connected(given.botToken, given.channelId)
      )

    const channelOf = (request: PublishRequest, c: Stored) => text(request.channel.settings["channel"]) ?? c.channelId
    /** Slack threads have one level: every follow-up replies to the post itself. */
    const threadOf = (request: PublishRequest) => (request.previousReleaseId === null ? null : (request.rootReleaseId ?? request.previousReleaseId))

    /** The channel's recent messages, or the thread's when the item is a follow-up. */
    const recent = (c: Stored, channel: string, threadTs: string | null) =>
      Effect.map(
        threadTs === null
          ? get(c.botToken, "conversations.history", { channel, limit: "100" })
          : get(c.botToken, "conversations.replies", { channel, ts: threadTs, limit: "200" }),
        (answer) => ({ answer, messages: Option.map(read(Messages, answer), (m) => m.messages) })
      )

    const isOurs = (c: Stored, m: Message) => (c.botId !== undefined && m.bot_id === c.botId) || (c.botUserId !== undefined && m.user === c.botUserId)

    /** The message files.completeUploadExternal made: Published once the channel shows it, Pending while Slack shares. */
    const messageOfFiles = (c: Stored, shared: SharedFiles, threadTs: string | null) =>
      Effect.gen(function* () {
        const { answer, messages } = yield* recent(c, shared.channel, threadTs)
        if (Option.isNone(messages)) {
          const why = failureOf(answer, "the channel's messages")
          if (why._tag === "Rejected" || why._tag === "RateLimited") return why
        }
        const found = Option.getOrElse(messages, () => []).find((m) => m.files?.some((f) => f.id === shared.fileIds[0]) === true)
        if (found !== undefined)
          return PublishAnswer.Published({ releaseId: found.ts, releaseUrl: permalinkOf(c.teamUrl, shared.channel, found.ts, threadTs) })
        if (Date.now() - shared.since > SHARING_GIVE_UP_MS)
          return PublishAnswer.NoAnswer({ reason: "Slack took the files but their message did not show in the channel" })
        return PublishAnswer.Pending({
          progress: shared,
          kind: "processing",
          waitingFor: "Slack to share the files in the channel",
          retryAfterMs: SHARING_RETRY_MS
        })
      })

    /** Each file to the address Slack gives it (files.getUploadURLExternal), then shared with the text as one message. */
    const sendFiles = (c: Stored, request: PublishRequest, channel: string, threadTs: string | null) =>
      Effect.gen(function* () {
        const files = yield* readAllMedia(media, request.media)
        const ids: Array<string> = []
        for (const [i, file] of files.entries()) {
          const alt = request.media[i]?.alt ?? ""
          const reserved = yield* call(outbound, {
            url: `${api}/files.getUploadURLExternal`,
            method: "POST",
            headers: { ...bearer(c.botToken), "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({
              filename: file.name || `file${i}`,
              length: String(file.bytes.length),
              ...(alt === "" ? {} : { alt_txt: alt.slice(0, 1000) })
            }).toString()
          })
          const upload = read(UploadUrl, reserved)
          // nothing is shared before completeUploadExternal: a failure here is safe to try again
          if (Option.isNone(upload)) return yield* Effect.fail(beforeSharing(failureOf(reserved, "an upload address")))
          const sent = yield* call(outbound, {
            url: upload.value.upload_url,
            method: "POST",
            headers: { "content-type": file.mime || "application/octet-stream" },
            body: file.bytes,
            timeoutMs: 300_000
          })
          if (sent._tag === "Failed" || !isSuccess(sent.response))
            return yield* Effect.fail(
              beforeSharing(
                sent._tag === "Failed"
                  ? failureOf(sent, "")
                  : PublishAnswer.NoAnswer({ reason: `the upload answered ${sent.response.status}: ${excerpt(sent.response)}` })
              )
            )
          ids.push(upload.value.file_id)
        }
        const [first, ...rest] = ids
        if (first === undefined) return PublishAnswer.Rejected({ message: "No file to send.", fix: "Attach the files again, then retry." })
        const completed = yield* post(c.botToken, "files.completeUploadExternal", {
          files: ids.map((id, i) => ({ id, title: files[i]?.name ?? id })),
          channel_id: channel,
          ...(request.item.content.trim() === "" ? {} : { initial_comment: escapeText(request.item.content) }),
          ...(threadTs === null ? {} : { thread_ts: threadTs })
        })
        if (Option.isNone(read(Completed, completed))) return failureOf(completed, "the shared files")
        return yield* messageOfFiles(c, { fileIds: [first, ...rest], channel, since: Date.now() }, threadTs)
      })

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const threadTs = threadOf(request)
          const progress = request.progress === null ? Option.none() : Schema.decodeUnknownOption(SharedFiles)(request.progress)
          // the files were shared already: only their message is looked for, never a second upload
          if (Option.isSome(progress)) return yield* messageOfFiles(c, progress.value, threadTs)
          const channel = channelOf(request, c)
          if (channel === undefined)
            return PublishAnswer.Rejected({
              message: "The post does not say which Slack channel to post in.",
              fix: "Set the post's channel setting to a channel id from the channels tool, then retry."
            })
          if (request.media.length > 0) return yield* sendFiles(c, request, channel, threadTs)
          const answer = yield* post(c.botToken, "chat.postMessage", {
            channel,
            text: escapeText(request.item.content),
            ...(threadTs === null ? {} : { thread_ts: threadTs })
          })
          return classifySlack(answer, c.teamUrl, threadTs)
        })
      )

    /** A lost answer: the channel's (or thread's) recent messages of this bot with the item's text, or its shared files. */
    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const threadTs = threadOf(request)
        const progress = request.progress === null ? Option.none() : Schema.decodeUnknownOption(SharedFiles)(request.progress)
        const channel = Option.match(progress, { onNone: () => channelOf(request, c.value), onSome: (p) => p.channel })
        if (channel === undefined) return SearchAnswer.CannotTell({ reason: "the post names no channel" })
        const { answer, messages } = yield* recent(c.value, channel, threadTs)
        if (Option.isNone(messages))
          return SearchAnswer.CannotTell({
            reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}: ${excerpt(answer.response, 80)}`
          })
        const found = Option.match(progress, {
          onNone: () =>
            messages.value.find((m) => isOurs(c.value, m) && m.ts !== threadTs && sameText(unescapeText(m.text ?? ""), request.item.content)),
          onSome: (p) => messages.value.find((m) => m.files?.some((f) => f.id === p.fileIds[0]) === true)
        })
        if (found !== undefined)
          return SearchAnswer.Found({ releaseId: found.ts, releaseUrl: permalinkOf(c.value.teamUrl, channel, found.ts, threadTs) })
        // shared files show in the channel a moment later: still looked for, never uploaded again
        if (Option.isSome(progress))
          return Date.now() - progress.value.since > SHARING_GIVE_UP_MS
            ? SearchAnswer.CannotTell({ reason: "Slack took the files but their message did not show" })
            : SearchAnswer.Unfinished({ progress: progress.value })
        // a lost files.completeUploadExternal may still be shared later: only a text message is surely absent
        return request.media.length > 0 ? SearchAnswer.CannotTell({ reason: "Slack may still be sharing the files" }) : SearchAnswer.NotFound()
      })

    const adapter: NetworkAdapter = {
      identifier: "slack",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Slack is not set up on this server (SLACK_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth/v2/authorize?${new URLSearchParams({ client_id: clientId, scope: SCOPES, redirect_uri: redirectUri, state }).toString()}`
              ),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            if (clientId === undefined || clientSecret === undefined)
              return yield* new ConnectFailed({ message: "Slack is not set up on this server (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET)." })
            const answer = yield* call(outbound, {
              url: `${api}/oauth.v2.access`,
              method: "POST",
              headers: {
                "content-type": "application/x-www-form-urlencoded",
                accept: "application/json",
                authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`
              },
              body: new URLSearchParams({ code, redirect_uri: redirectUri }).toString()
            })
            const access = read(OAuthAccess, answer)
            if (Option.isNone(access)) {
              const refused = answer._tag === "Response" ? decodeBody(Schema.Struct({ error: Schema.String }), answer.response) : Option.none()
              if (Option.isSome(refused)) return yield* new ConnectFailed({ message: `Slack refused the sign-in: ${refused.value.error}.` })
              return yield* connectFailedFrom(NAME, answer)
            }
            // the channel the person picked on Slack's consent page (incoming-webhook scope)
            return yield* connected(access.value.access_token, access.value.incoming_webhook?.channel_id)
          })
      },
      verify,
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish: send,
      publishFollowUp: send,
      search,
      statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
      runTool: ({ credentials, methodName }) =>
        Effect.gen(function* () {
          if (methodName !== "channels") return yield* unknownTool(methodName, NAME, ["channels"])
          const c = yield* credentialsOf(credentials).pipe(
            Effect.mapError(() => Errors.badRequest("The channel's Slack connection cannot be read. Reconnect it."))
          )
          const list = read(
            Channels,
            yield* get(c.botToken, "conversations.list", { types: "public_channel,private_channel", exclude_archived: "true", limit: "200" })
          )
          if (Option.isNone(list))
            return yield* Effect.fail(Errors.badRequest("Slack did not answer with the workspace's channels. Try again in a minute."))
          // public channels take the app's messages (chat:write.public); private ones only once it is invited
          return {
            channels: list.value.channels.filter((ch) => ch.is_private !== true || ch.is_member === true).map((ch) => ({ id: ch.id, name: ch.name }))
          }
        }),
      classify: (answer) => classifySlack(answer)
    }
    return adapter
  })

/** A step before the files were shared failed: nothing is in the channel, so a retry is safe unless Slack refused outright. */
const beforeSharing = (why: PublishAnswer): PublishAnswer =>
  why._tag === "NoAnswer" ? PublishAnswer.FailedBeforeSending({ reason: `uploading the files failed: ${why.reason}` }) : why

export const makeSlackAdapter = Effect.gen(function* () {
  const options = yield* networkAppConfig("slack", { apiUrl: "https://slack.com/api", authUrl: "https://slack.com" })
  return yield* makeSlackAdapterWith(options)
})
