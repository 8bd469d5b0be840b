import { Config, Effect, Option, Redacted, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import { ConnectFailed, type NetworkAdapter, type NetworkAnswer, PublishAnswer, type PublishRequest, Refresh } from "../adapter.js"
import {
  answerOf,
  cannotSearch,
  connectFailedFrom,
  decodeForVerify,
  noStatistics,
  readAllMedia,
  readCredentials,
  unknownTool
} from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, decodeBody, multipart, rateLimitedFor, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * Discord (discord.com/developers/docs): the bot posts with POST /channels/{id}/messages,
 * with `nonce` = the item and `enforce_nonce: true`, so a message sent again within a few
 * minutes is answered with the first one instead of a copy. Follow-ups reply with
 * message_reference. Connecting: the bot's OAuth link adds it to a server (the channel is
 * picked per post with the `channel` setting), or the admin CLI gives a bot token and a
 * channel id. No search.
 */
const NAME = "Discord"

export interface DiscordOptions {
  /** DISCORD_API_URL (default https://discord.com/api/v10). */
  readonly apiUrl: string
  /** DISCORD_AUTH_URL (default https://discord.com; with DISCORD_API_URL set, its origin). */
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
  /** DISCORD_BOT_TOKEN_ID: the bot token of the server's Discord app. */
  readonly botToken: Option.Option<Redacted.Redacted>
}

const Given = Schema.Struct({ botToken: Schema.String, channelId: Schema.String })
const Stored = Schema.Struct({
  botToken: Schema.String,
  channelId: Schema.optional(Schema.String),
  guildId: Schema.optional(Schema.NullOr(Schema.String))
})
const Message = Schema.Struct({ id: Schema.String, channel_id: Schema.String, guild_id: Schema.optional(Schema.String) })
const User = Schema.Struct({ id: Schema.String, username: Schema.String })
const Channel = Schema.Struct({
  id: Schema.String,
  name: Schema.optional(Schema.NullOr(Schema.String)),
  type: Schema.Number,
  guild_id: Schema.optional(Schema.String)
})
const ErrorBody = Schema.Struct({ message: Schema.String, code: Schema.optional(Schema.Number), retry_after: Schema.optional(Schema.Number) })
const TokenAnswer = Schema.Struct({
  access_token: Schema.String,
  guild: Schema.optional(Schema.Struct({ id: Schema.String, name: Schema.String, icon: Schema.optional(Schema.NullOr(Schema.String)) }))
})

/** A nonce is at most 25 characters: the item id without dashes, cut. */
export const discordNonce = (itemId: string) => itemId.replace(/-/g, "").slice(0, 25)

const rejection = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0]) => {
  const reason = Option.match(decodeBody(ErrorBody, response), { onNone: () => `HTTP ${response.status}`, onSome: (e) => e.message })
  if (response.status === 403 || /missing (access|permissions)/i.test(reason)) {
    return {
      message: `Discord refused the post: ${reason}.`,
      fix: "Give the bot permission to send messages and attach files in the channel, then retry."
    }
  }
  if (/unknown channel/i.test(reason)) {
    return {
      message: `Discord refused the post: ${reason}.`,
      fix: "Set the post's channel setting to a channel the channels tool lists, then retry."
    }
  }
  if (/2000|length/i.test(reason)) return { message: `Discord refused the post: ${reason}.`, fix: "Shorten the text to 1980 characters, then retry." }
  return { message: `Discord refused the post: ${reason}.`, fix: "Change the post as the message says, then retry." }
}

export const classifyDiscord = (answer: NetworkAnswer, guildId: string | null = null): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  const message = response.status === 200 ? decodeBody(Message, response) : Option.none()
  if (Option.isSome(message)) {
    const m = message.value
    return PublishAnswer.Published({
      releaseId: m.id,
      releaseUrl: `https://discord.com/channels/${m.guild_id ?? guildId ?? "@me"}/${m.channel_id}/${m.id}`
    })
  }
  if (response.status === 429) {
    const wait = Option.flatMap(decodeBody(ErrorBody, response), (e) => Option.fromNullable(e.retry_after))
    return rateLimitedFor(response, wait)
  }
  return statusAnswer(NAME, response, rejection)
}

export const makeDiscordAdapterWith = (options: DiscordOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const base = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const bot = (token: string) => ({ authorization: `Bot ${token}`, accept: "application/json" })
    const get = (token: string, path: string) => call(outbound, { url: `${base}${path}`, headers: bot(token) })
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && answer.response.status === 200 ? decodeBody(schema, answer.response) : Option.none()

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Given, NAME, "botToken (the bot's token) and channelId (the channel to post in)")(input)
        const meAnswer = yield* get(given.botToken, "/users/@me")
        const me = read(User, meAnswer)
        if (Option.isNone(me)) return yield* connectFailedFrom(NAME, meAnswer)
        const channelAnswer = yield* get(given.botToken, `/channels/${encodeURIComponent(given.channelId)}`)
        const channel = read(Channel, channelAnswer)
        if (Option.isNone(channel))
          return yield* new ConnectFailed({ message: `The bot cannot see the Discord channel ${given.channelId}: add the bot to its server.` })
        const name = `#${channel.value.name ?? channel.value.id}`
        return {
          credentials: { botToken: given.botToken, channelId: channel.value.id, guildId: channel.value.guild_id ?? null },
          profile: { accountId: `${me.value.id}:${channel.value.id}`, name, profile: channel.value.name ?? channel.value.id, picture: null },
          // posts go to this channel unless their `channel` setting names another
          defaultSettings: { channel: channel.value.id }
        }
      })

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const setting = request.channel.settings["channel"]
          const channelId = typeof setting === "string" && setting.trim() !== "" ? setting.trim() : c.channelId
          if (channelId === undefined) {
            return PublishAnswer.Rejected({
              message: "The post does not say which Discord channel to post in.",
              fix: "Set the post's channel setting to a channel id from the channels tool, then retry."
            })
          }
          const files = yield* readAllMedia(media, request.media)
          const payload = {
            content: request.item.content,
            nonce: discordNonce(request.item.id),
            enforce_nonce: true,
            allowed_mentions: { parse: [] },
            ...(request.previousReleaseId === null
              ? {}
              : { message_reference: { message_id: request.previousReleaseId, fail_if_not_exists: false } }),
            ...(files.length === 0
              ? {}
              : { attachments: files.map((f, id) => ({ id, filename: f.name || `file${id}`, description: request.media[id]?.alt ?? "" })) })
          }
          const url = `${base}/channels/${encodeURIComponent(channelId)}/messages`
          const answer =
            files.length === 0
              ? yield* call(outbound, {
                  url,
                  method: "POST",
                  headers: { ...bot(c.botToken), "content-type": "application/json" },
                  body: JSON.stringify(payload)
                })
              : yield* Effect.suspend(() => {
                  const form = multipart([
                    { name: "payload_json", value: JSON.stringify(payload) },
                    ...files.map((f, i) => ({ name: `files[${i}]`, filename: f.name || `file${i}`, mime: f.mime, bytes: f.bytes }))
                  ])
                  return call(outbound, {
                    url,
                    method: "POST",
                    headers: { ...bot(c.botToken), "content-type": form.contentType },
                    body: form.body,
                    timeoutMs: 120_000
                  })
                })
          return classifyDiscord(answer, c.guildId ?? null)
        })
      )

    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const serverBot = Option.getOrUndefined(Option.map(options.botToken, Redacted.value))

    const adapter: NetworkAdapter = {
      identifier: "discord",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Discord is not set up on this server (DISCORD_CLIENT_ID)." }))
            : Effect.succeed(
                `${trimBase(options.authUrl)}/oauth2/authorize?${new URLSearchParams({
                  client_id: clientId,
                  scope: "bot identify guilds",
                  permissions: "52224", // view channel, send messages, attach files, read message history
                  response_type: "code",
                  redirect_uri: redirectUri,
                  state
                }).toString()}`
              ),
        exchange: ({ code, query, redirectUri }) =>
          Effect.gen(function* () {
            if (clientId === undefined || clientSecret === undefined || serverBot === undefined) {
              return yield* new ConnectFailed({
                message: "Discord is not set up on this server (DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET, DISCORD_BOT_TOKEN_ID)."
              })
            }
            const answer = yield* call(outbound, {
              url: `${base}/oauth2/token`,
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
              body: new URLSearchParams({
                grant_type: "authorization_code",
                code,
                redirect_uri: redirectUri,
                client_id: clientId,
                client_secret: clientSecret
              }).toString()
            })
            const token = read(TokenAnswer, answer)
            if (Option.isNone(token)) return yield* connectFailedFrom(NAME, answer)
            const guildId = token.value.guild?.id ?? query["guild_id"]
            if (guildId === undefined)
              return yield* new ConnectFailed({
                message: "Discord did not say which server the bot was added to. Start connecting again and pick a server."
              })
            const name = token.value.guild?.name ?? `Server ${guildId}`
            return {
              credentials: { botToken: serverBot, guildId },
              profile: { accountId: `guild:${guildId}`, name, profile: name, picture: null }
            }
          })
      },
      verify,
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish: send,
      publishFollowUp: send,
      search: () => cannotSearch(NAME),
      statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
      runTool: ({ credentials, methodName }) =>
        Effect.gen(function* () {
          if (methodName !== "channels") return yield* unknownTool(methodName, NAME, ["channels"])
          const c = yield* credentialsOf(credentials).pipe(
            Effect.mapError(() => Errors.badRequest("The channel's Discord connection cannot be read. Reconnect it."))
          )
          let guildId = c.guildId ?? undefined
          if (guildId === undefined && c.channelId !== undefined) {
            guildId = Option.getOrUndefined(
              Option.flatMap(read(Channel, yield* get(c.botToken, `/channels/${encodeURIComponent(c.channelId)}`)), (ch) =>
                Option.fromNullable(ch.guild_id)
              )
            )
          }
          if (guildId === undefined)
            return yield* Effect.fail(Errors.badRequest("Discord did not say which server this channel is in. Reconnect it."))
          const list = read(Schema.Array(Channel), yield* get(c.botToken, `/guilds/${encodeURIComponent(guildId)}/channels`))
          if (Option.isNone(list))
            return yield* Effect.fail(Errors.badRequest("Discord did not answer with the server's channels. Try again in a minute."))
          // text and announcement channels: where a bot message can go
          return { channels: list.value.filter((ch) => ch.type === 0 || ch.type === 5).map((ch) => ({ id: ch.id, name: ch.name ?? ch.id })) }
        }),
      classify: (answer) => classifyDiscord(answer)
    }
    return adapter
  })

export const makeDiscordAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.option(Config.string("DISCORD_API_URL")).pipe(Effect.orDie)
  const authUrl = yield* Config.option(Config.string("DISCORD_AUTH_URL")).pipe(Effect.orDie)
  const keys = yield* Config.all({
    clientId: Config.option(Config.string("DISCORD_CLIENT_ID")),
    clientSecret: Config.option(Config.redacted("DISCORD_CLIENT_SECRET")),
    botToken: Config.option(Config.redacted("DISCORD_BOT_TOKEN_ID"))
  }).pipe(Effect.orDie)
  const api = Option.getOrElse(apiUrl, () => "https://discord.com/api/v10")
  const auth = Option.getOrElse(authUrl, () =>
    Option.isSome(apiUrl) ? new URL(api).origin + new URL(api).pathname.replace(/\/$/, "") : "https://discord.com"
  )
  return yield* makeDiscordAdapterWith({ apiUrl: api, authUrl: auth, ...keys })
})
