import { Config, Effect, Option, Schema } from "effect"
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
 * Telegram Bot API (core.telegram.org/bots/api): a bot posts in a chat or channel it was
 * added to. Text alone → sendMessage; one photo → sendPhoto (caption up to 1024
 * characters, a longer text follows as a reply message); several → sendMediaGroup.
 * Follow-ups reply with reply_parameters. Telegram has no duplicate guard and no search.
 */
const NAME = "Telegram"
const CAPTION_LIMIT = 1024

export interface TelegramOptions {
  /** TELEGRAM_API_URL (default https://api.telegram.org). */
  readonly apiUrl: string
}

const ChatId = Schema.Union(Schema.String, Schema.Number)
const Given = Schema.Struct({ botToken: Schema.String, chatId: ChatId })
const Stored = Schema.Struct({
  botToken: Schema.String,
  chatId: ChatId,
  chatUsername: Schema.optional(Schema.NullOr(Schema.String))
})

const Ok = <A, I>(result: Schema.Schema<A, I>) => Schema.Struct({ ok: Schema.Literal(true), result })
const Failure = Schema.Struct({
  ok: Schema.Literal(false),
  error_code: Schema.optional(Schema.Number),
  description: Schema.optional(Schema.String),
  parameters: Schema.optional(Schema.Struct({ retry_after: Schema.optional(Schema.Number) }))
})
const Message = Schema.Struct({ message_id: Schema.Number, chat: Schema.Struct({ id: Schema.Number, username: Schema.optional(Schema.String) }) })
const Bot = Schema.Struct({ id: Schema.Number, username: Schema.optional(Schema.String), first_name: Schema.optional(Schema.String) })
const Chat = Schema.Struct({
  id: Schema.Number,
  type: Schema.String,
  title: Schema.optional(Schema.String),
  username: Schema.optional(Schema.String),
  first_name: Schema.optional(Schema.String)
})
const Member = Schema.Struct({ status: Schema.String, can_post_messages: Schema.optional(Schema.Boolean) })
// made once: a schema made per answer would compile its decoder per answer (a burst's CPU)
const SentOne = Ok(Message)
const SentGroup = Ok(Schema.NonEmptyArray(Message))

/** https://t.me/<username>/<id> for public chats; t.me/c/<id without -100>/<id> for private channels. */
export const telegramMessageUrl = (chatId: number, username: string | null | undefined, messageId: number) =>
  username ? `https://t.me/${username}/${messageId}` : `https://t.me/c/${String(chatId).replace(/^-100/, "")}/${messageId}`

const reasonOf = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0]) =>
  Option.match(decodeBody(Failure, response), {
    onNone: () => `HTTP ${response.status}`,
    onSome: (f) => f.description ?? `error ${f.error_code ?? response.status}`
  })

const rejection = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0]) => {
  const reason = reasonOf(response)
  if (/too long/i.test(reason))
    return { message: `Telegram refused the post: ${reason}.`, fix: "Shorten the text to 4096 characters (1024 with a photo), then retry." }
  if (/chat not found|not enough rights|bot was kicked|need administrator/i.test(reason)) {
    return { message: `Telegram refused the post: ${reason}.`, fix: "Add the bot to the chat as an administrator that may post, then retry." }
  }
  return { message: `Telegram refused the post: ${reason}.`, fix: "Change the post as the message says, then retry." }
}

/** The answer of sendMessage / sendPhoto (one message) or sendMediaGroup (the first message counts). */
export const classifyTelegram = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  const one = decodeBody(SentOne, response)
  const group = Option.isSome(one) ? Option.none() : decodeBody(SentGroup, response)
  const message = Option.isSome(one) ? Option.some(one.value.result) : Option.map(group, (g) => g.result[0])
  if (response.status === 200 && Option.isSome(message)) {
    const m = message.value
    return PublishAnswer.Published({ releaseId: String(m.message_id), releaseUrl: telegramMessageUrl(m.chat.id, m.chat.username, m.message_id) })
  }
  if (response.status === 429) {
    const wait = Option.flatMap(decodeBody(Failure, response), (f) => Option.fromNullable(f.parameters?.retry_after))
    return rateLimitedFor(response, wait)
  }
  return statusAnswer(NAME, response, rejection)
}

export const makeTelegramAdapterWith = (options: TelegramOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const base = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const method = (token: string, name: string) => `${base}/bot${token}/${name}`
    const json = (token: string, name: string, body: unknown) =>
      call(outbound, {
        url: method(token, name),
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body)
      })
    const result = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && answer.response.status === 200
        ? Option.map(decodeBody(Ok(schema), answer.response), (r) => r.result)
        : Option.none()

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Given, NAME, "botToken (from @BotFather) and chatId (the chat's id or @username)")(input)
        const meAnswer = yield* json(given.botToken, "getMe", {})
        const bot = result(Bot, meAnswer)
        if (Option.isNone(bot)) return yield* connectFailedFrom(NAME, meAnswer)
        const chatAnswer = yield* json(given.botToken, "getChat", { chat_id: given.chatId })
        const chat = result(Chat, chatAnswer)
        if (Option.isNone(chat)) {
          return yield* new ConnectFailed({ message: `Telegram does not let the bot see the chat ${given.chatId}: add the bot to it first.` })
        }
        const memberAnswer = yield* json(given.botToken, "getChatMember", { chat_id: chat.value.id, user_id: bot.value.id })
        const member = result(Member, memberAnswer)
        const canPost = Option.match(member, {
          onNone: () => false,
          onSome: (m) =>
            m.status === "creator" ||
            (m.status === "administrator" && (chat.value.type !== "channel" || m.can_post_messages !== false)) ||
            (m.status === "member" && chat.value.type !== "channel")
        })
        if (!canPost)
          return yield* new ConnectFailed({
            message: `The bot cannot post in ${chat.value.title ?? given.chatId}: make it an administrator that may post messages.`
          })
        const name = chat.value.title ?? chat.value.first_name ?? String(chat.value.id)
        return {
          credentials: {
            botToken: given.botToken,
            chatId: chat.value.id,
            chatUsername: chat.value.username ?? null,
            botUsername: bot.value.username ?? null
          },
          profile: { accountId: `${bot.value.id}:${chat.value.id}`, name, profile: chat.value.username ?? name, picture: null }
        }
      })

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const files = yield* readAllMedia(media, request.media)
          const replyTo =
            request.previousReleaseId === null
              ? {}
              : { reply_parameters: { message_id: Number(request.previousReleaseId), allow_sending_without_reply: true } }
          const text = request.item.content
          if (files.length === 0) {
            return classifyTelegram(yield* json(c.botToken, "sendMessage", { chat_id: c.chatId, text, ...replyTo }))
          }
          const captionFits = [...text].length <= CAPTION_LIMIT
          const caption = captionFits ? text : ""
          const parts: Array<Parameters<typeof multipart>[0][number]> = [{ name: "chat_id", value: String(c.chatId) }]
          if (request.previousReleaseId !== null) parts.push({ name: "reply_parameters", value: JSON.stringify(replyTo.reply_parameters) })
          let name: string
          if (files.length === 1) {
            const file = files[0]!
            name = "sendPhoto"
            parts.push({ name: "photo", filename: file.name || "photo", mime: file.mime, bytes: file.bytes }, { name: "caption", value: caption })
          } else {
            name = "sendMediaGroup"
            const items = files.map((f, i) => ({
              type: f.mime.startsWith("video/") ? "video" : "photo",
              media: `attach://file${i}`,
              ...(i === 0 && caption !== "" ? { caption } : {})
            }))
            parts.push(
              { name: "media", value: JSON.stringify(items) },
              ...files.map((f, i) => ({ name: `file${i}`, filename: f.name || `file${i}`, mime: f.mime, bytes: f.bytes }))
            )
          }
          const form = multipart(parts)
          const answer = classifyTelegram(
            yield* call(outbound, {
              url: method(c.botToken, name),
              method: "POST",
              headers: { "content-type": form.contentType, accept: "application/json" },
              body: form.body,
              timeoutMs: 120_000
            })
          )
          if (captionFits || answer._tag !== "Published") return answer
          // the text did not fit in a caption: it follows as a reply to the photo; the photo is the release
          yield* json(c.botToken, "sendMessage", { chat_id: c.chatId, text, reply_parameters: { message_id: Number(answer.releaseId) } })
          return answer
        })
      )

    const adapter: NetworkAdapter = {
      identifier: "telegram",
      connect: { kind: "form" },
      verify,
      // bot tokens do not expire; a revoked one answers 401 (reconnect)
      tokensNeverExpire: true,
      refresh: () => Effect.succeed(Refresh.Unchanged()),
      publish: send,
      publishFollowUp: send,
      search: () => cannotSearch(NAME),
      statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyTelegram
    }
    return adapter
  })

export const makeTelegramAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.string("TELEGRAM_API_URL").pipe(Config.withDefault("https://api.telegram.org"), Effect.orDie)
  return yield* makeTelegramAdapterWith({ apiUrl })
})
