import {
  formBody,
  jsonBody,
  parseMultipart,
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Discord's API as the adapter uses it: /users/@me, /channels/{id}, /guilds/{id}/channels,
 * POST /channels/{id}/messages (JSON or payload_json + files[n]; `nonce` with
 * `enforce_nonce` answers the first message again), and the OAuth bot flow
 * (/oauth2/authorize approves at once; /oauth2/token answers the guild).
 */
const NETWORK = "discord"

interface Guild {
  readonly id: string
  readonly name: string
  readonly channels: Map<string, string>
}

const guilds = new WeakMap<SimCore, Map<string, Guild>>()
const botTokens = new WeakMap<SimCore, Map<string, string>>()
const nonces = new WeakMap<SimCore, Map<string, string>>()
const codes = new WeakMap<SimCore, Map<string, string>>()

const snowflake = (core: SimCore) =>
  String(
    1100000000000000000n +
      BigInt(core.posts.length * 1000 + stateOf(guilds, core).size * 10 + Math.floor(Math.random() * 1000)) +
      BigInt(Date.now() % 1e6) * 1000n
  )

/** The bot token every seeded guild accepts (the server's DISCORD_BOT_TOKEN_ID in a test). */
export const DISCORD_SIM_BOT_TOKEN = "sim-bot-token"

export const seedDiscordChannel = (core: SimCore, input: { readonly guildName?: string; readonly channelName?: string } = {}) => {
  const all = stateOf(guilds, core)
  const guild: Guild = { id: snowflake(core) + all.size, name: input.guildName ?? `Server ${all.size + 1}`, channels: new Map() }
  const channelId = snowflake(core) + "1"
  guild.channels.set(channelId, input.channelName ?? "general")
  guild.channels.set(snowflake(core) + "2", "announcements")
  all.set(guild.id, guild)
  stateOf(botTokens, core).set(DISCORD_SIM_BOT_TOKEN, "bot")
  return { botToken: DISCORD_SIM_BOT_TOKEN, channelId, guildId: guild.id }
}

const channelOf = (core: SimCore, id: string) => {
  for (const g of stateOf(guilds, core).values()) {
    const name = g.channels.get(id)
    if (name !== undefined) return { guild: g, id, name }
  }
  return undefined
}

const unauthorized: SimResponse = { status: 401, body: { message: "401: Unauthorized", code: 0 } }

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/oauth2/authorize") {
    const target = new URL(request.query.get("redirect_uri") ?? "")
    const guild = stateOf(guilds, core).values().next().value ?? stateOf(guilds, core).get(seedDiscordChannel(core).guildId)!
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, guild.id)
    target.searchParams.set("code", code)
    target.searchParams.set("state", request.query.get("state") ?? "")
    target.searchParams.set("guild_id", guild.id)
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/oauth2/token") {
    const form = formBody(request)
    const guildId = stateOf(codes, core).get(form.get("code") ?? "")
    if (guildId === undefined || form.get("client_secret") === null) return { status: 400, body: { error: "invalid_grant" } }
    stateOf(codes, core).delete(form.get("code") ?? "")
    const guild = stateOf(guilds, core).get(guildId)!
    return {
      status: 200,
      body: { access_token: `user-${core.newId()}`, token_type: "Bearer", guild: { id: guild.id, name: guild.name, icon: null } }
    }
  }
  const auth = request.headers["authorization"]
  const token = typeof auth === "string" && auth.startsWith("Bot ") ? auth.slice(4) : undefined
  if (token === undefined || !stateOf(botTokens, core).has(token)) return unauthorized
  if (method === "GET" && path === "/users/@me") return { status: 200, body: { id: "900000000000000001", username: "scheduler-bot", bot: true } }
  const guildChannels = /^\/guilds\/([^/]+)\/channels$/.exec(path)
  if (method === "GET" && guildChannels !== null) {
    const guild = stateOf(guilds, core).get(guildChannels[1]!)
    if (guild === undefined) return { status: 404, body: { message: "Unknown Guild", code: 10004 } }
    return {
      status: 200,
      body: [...guild.channels]
        .map(([id, name]) => ({ id, name, type: 0, guild_id: guild.id }))
        .concat([{ id: "1", name: "Voice", type: 2, guild_id: guild.id }])
    }
  }
  const oneChannel = /^\/channels\/([^/]+)$/.exec(path)
  if (method === "GET" && oneChannel !== null) {
    const found = channelOf(core, oneChannel[1]!)
    return found === undefined
      ? { status: 404, body: { message: "Unknown Channel", code: 10003 } }
      : { status: 200, body: { id: found.id, name: found.name, type: 0, guild_id: found.guild.id } }
  }
  const messages = /^\/channels\/([^/]+)\/messages$/.exec(path)
  if (method === "POST" && messages !== null) {
    const found = channelOf(core, messages[1]!)
    if (found === undefined) return { status: 404, body: { message: "Unknown Channel", code: 10003 } }
    const multipart = (request.headers["content-type"] ?? "").startsWith("multipart/")
    const parsed = multipart ? parseMultipart(request.headers, request.body) : { fields: {} as Record<string, string>, files: [] }
    const raw: unknown = multipart ? JSON.parse(parsed.fields["payload_json"] ?? "{}") : jsonBody(request)
    const payload = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
    const content = typeof payload["content"] === "string" ? payload["content"] : ""
    const nonce = typeof payload["nonce"] === "string" ? payload["nonce"] : null
    if (nonce !== null && payload["enforce_nonce"] === true) {
      const earlier = stateOf(nonces, core).get(`${found.id}:${nonce}`)
      if (earlier !== undefined) return { status: 200, body: { id: earlier, channel_id: found.id, guild_id: found.guild.id, content, nonce } }
    }
    if (content === "" && parsed.files.length === 0) return { status: 400, body: { message: "Cannot send an empty message", code: 50006 } }
    if ([...content].length > 2000)
      return {
        status: 400,
        body: {
          message: "Invalid Form Body",
          code: 50035,
          errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } }
        }
      }
    const reference = payload["message_reference"]
    const replyTo =
      typeof reference === "object" && reference !== null && "message_id" in reference
        ? String((reference as { message_id: unknown }).message_id)
        : null
    const id = snowflake(core)
    core.record({
      network: NETWORK,
      id,
      url: `https://discord.com/channels/${found.guild.id}/${found.id}/${id}`,
      account: found.id,
      text: content,
      replyTo,
      media: parsed.files.map((f) => ({ id: `${id}-${f.field}`, mime: f.mime, size: f.bytes.length })),
      dedupeKey: nonce,
      extra: {}
    })
    if (nonce !== null) stateOf(nonces, core).set(`${found.id}:${nonce}`, id)
    return { status: 200, body: { id, channel_id: found.id, guild_id: found.guild.id, content, nonce } }
  }
  return undefined
}

export const discordModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({
    DISCORD_API_URL: base,
    DISCORD_CLIENT_ID: "sim-client",
    DISCORD_CLIENT_SECRET: "sim-secret",
    DISCORD_BOT_TOKEN_ID: "sim-bot-token"
  }),
  handle,
  opOf: ({ method, path }) => (method === "POST" && /\/messages$/.test(path) ? "publish" : path.startsWith("/oauth2") ? "token" : "account"),
  rejectBody: (status) => ({ status: status ?? 403, body: { message: "Missing Permissions", code: 50013 } }),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedDiscordChannel(core, {
      ...(typeof input["guildName"] === "string" ? { guildName: input["guildName"] } : {}),
      ...(typeof input["channelName"] === "string" ? { channelName: input["channelName"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [discordModule]
