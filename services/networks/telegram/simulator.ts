import {
  jsonBody,
  parseMultipart,
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * The Telegram Bot API as the adapter uses it: getMe, getChat, getChatMember,
 * sendMessage, sendPhoto, sendMediaGroup (multipart with attach://), under /bot<token>/.
 */
const NETWORK = "telegram"

interface Chat {
  readonly id: number
  readonly title: string
  readonly username: string | null
}
interface Bot {
  readonly id: number
  readonly token: string
  readonly chats: Set<number>
}

const bots = new WeakMap<SimCore, Map<string, Bot>>()
const chats = new WeakMap<SimCore, Map<number, Chat>>()
const counters = new WeakMap<SimCore, Map<number, number>>()

export const seedTelegramChat = (core: SimCore, input: { readonly title?: string; readonly username?: string | null } = {}) => {
  const allChats = stateOf(chats, core)
  const chat: Chat = { id: -1001000000000 - allChats.size - 1, title: input.title ?? `Chat ${allChats.size + 1}`, username: input.username ?? null }
  allChats.set(chat.id, chat)
  const allBots = stateOf(bots, core)
  const bot: Bot = {
    id: 7000000 + allBots.size + 1,
    token: `${7000000 + allBots.size + 1}:${core.newId()}${core.newId()}`,
    chats: new Set([chat.id])
  }
  allBots.set(bot.token, bot)
  return { botToken: bot.token, chatId: chat.id }
}

const ok = (result: unknown): SimResponse => ({ status: 200, body: { ok: true, result } })
const fail = (code: number, description: string): SimResponse => ({ status: code, body: { ok: false, error_code: code, description } })

const fieldsOf = (request: SimRequest): { readonly fields: Record<string, unknown>; readonly files: ReturnType<typeof parseMultipart>["files"] } => {
  if ((request.headers["content-type"] ?? "").startsWith("multipart/")) {
    const { fields, files } = parseMultipart(request.headers, request.body)
    return { fields, files }
  }
  const body = jsonBody(request)
  return { fields: typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}, files: [] }
}

const replyOf = (fields: Record<string, unknown>): number | null => {
  const raw = fields["reply_parameters"]
  const parsed = typeof raw === "string" ? (JSON.parse(raw) as unknown) : raw
  if (typeof parsed === "object" && parsed !== null && "message_id" in parsed) return Number((parsed as { message_id: unknown }).message_id)
  return null
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const match = /^\/bot([^/]+)\/(\w+)$/.exec(request.path)
  if (match === null || request.method !== "POST") return undefined
  const bot = stateOf(bots, core).get(match[1]!)
  if (bot === undefined) return fail(401, "Unauthorized")
  const { fields, files } = fieldsOf(request)
  const name = match[2]!
  if (name === "getMe") return ok({ id: bot.id, is_bot: true, first_name: "Scheduler bot", username: `bot${bot.id}` })
  const chatId = Number(fields["chat_id"])
  const chat = stateOf(chats, core).get(chatId)
  if (chat === undefined || !bot.chats.has(chat.id)) return fail(400, "Bad Request: chat not found")
  if (name === "getChat")
    return ok({ id: chat.id, type: "channel", title: chat.title, ...(chat.username === null ? {} : { username: chat.username }) })
  if (name === "getChatMember") return ok({ status: "administrator", can_post_messages: true, user: { id: bot.id } })
  const next = () => {
    const all = stateOf(counters, core)
    const n = (all.get(chat.id) ?? 0) + 1
    all.set(chat.id, n)
    return n
  }
  const replyTo = replyOf(fields)
  const record = (text: string, media: ReadonlyArray<{ id: string; mime: string; size: number }>) => {
    const id = next()
    core.record({
      network: NETWORK,
      id: String(id),
      url: chat.username === null ? `https://t.me/c/${String(chat.id).replace(/^-100/, "")}/${id}` : `https://t.me/${chat.username}/${id}`,
      account: String(chat.id),
      text,
      replyTo: replyTo === null ? null : String(replyTo),
      media,
      dedupeKey: null,
      extra: {}
    })
    return {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat.id, type: "channel", title: chat.title, ...(chat.username === null ? {} : { username: chat.username }) },
      text
    }
  }
  if (name === "sendMessage") {
    const text = typeof fields["text"] === "string" ? fields["text"] : ""
    if (text === "") return fail(400, "Bad Request: message text is empty")
    if ([...text].length > 4096) return fail(400, "Bad Request: message is too long")
    return ok(record(text, []))
  }
  if (name === "sendPhoto") {
    const photo = files.find((f) => f.field === "photo")
    if (photo === undefined) return fail(400, "Bad Request: there is no photo in the request")
    const caption = typeof fields["caption"] === "string" ? fields["caption"] : ""
    if ([...caption].length > 1024) return fail(400, "Bad Request: message caption is too long")
    return ok(record(caption, [{ id: core.newId(), mime: photo.mime, size: photo.bytes.length }]))
  }
  if (name === "sendMediaGroup") {
    const items = JSON.parse(String(fields["media"] ?? "[]")) as Array<{ media: string; caption?: string }>
    const attached = items.map((i) => files.find((f) => `attach://${f.field}` === i.media))
    if (items.length < 2 || attached.some((f) => f === undefined)) return fail(400, "Bad Request: wrong media group")
    // one message per file; the caption travels with the first
    const messages = attached.map((f, i) =>
      record(i === 0 ? (items[0]?.caption ?? "") : "", [{ id: core.newId(), mime: f!.mime, size: f!.bytes.length }])
    )
    return ok(messages)
  }
  return fail(404, "Not Found: method not found")
}

export const telegramModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ TELEGRAM_API_URL: base }),
  handle,
  opOf: ({ path }) => (/\/send\w+$/.test(path) ? "publish" : "account"),
  rejectBody: (status) => fail(status ?? 400, "Bad Request: message is too long"),
  expiredTokenBody: () => fail(401, "Unauthorized"),
  seed: (core, input) =>
    seedTelegramChat(core, {
      ...(typeof input["title"] === "string" ? { title: input["title"] } : {}),
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [telegramModule]
