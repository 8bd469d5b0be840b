import {
  bearerOf,
  formBody,
  jsonBody,
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Slack's Web API as docs.slack.dev documents it, every method under /api/<method> answering
 * HTTP 200 with `{ok: true, …}` or `{ok: false, error}` (a rate limit is 429 with
 * Retry-After): oauth.v2.access (HTTP Basic app credentials; `incoming_webhook.channel_id`
 * is the channel picked on the consent page, GET /oauth/v2/authorize approving at once),
 * auth.test, conversations.info, conversations.list, conversations.history (newest first,
 * thread replies left out), conversations.replies (the parent, then its replies),
 * chat.postMessage (`thread_ts`; `not_in_channel` for a private channel the app was not
 * invited to; `msg_too_long` over 40000 characters), and the external upload flow:
 * files.getUploadURLExternal → POST of the bytes to the upload address →
 * files.completeUploadExternal (`channel_id`, `initial_comment`, `thread_ts`), whose answer
 * names the files but not the message they were shared in.
 */
const NETWORK = "slack"
const MAX_TEXT = 40_000

interface Channel {
  readonly id: string
  readonly name: string
  readonly isPrivate: boolean
  readonly botIsMember: boolean
}

interface Team {
  readonly id: string
  readonly name: string
  readonly domain: string
  readonly botId: string
  readonly botUserId: string
  readonly channels: Map<string, Channel>
}

interface Upload {
  readonly team: string
  readonly filename: string
  readonly length: number
  readonly alt: string | null
  bytes: Buffer | null
  mime: string
}

const teams = new WeakMap<SimCore, Map<string, Team>>()
const botTokens = new WeakMap<SimCore, Map<string, string>>()
const codes = new WeakMap<SimCore, Map<string, { readonly team: string; readonly channel: string; readonly redirectUri: string }>>()
const uploads = new WeakMap<SimCore, Map<string, Upload>>()
/** The message ts of each shared file. */
const shares = new WeakMap<SimCore, Map<string, string>>()

const fail = (error: string): SimResponse => ({ status: 200, body: { ok: false, error } })
let clock = 0
/** A message ts: seconds since the epoch, a dot, six digits, unique per message. */
const newTs = () => {
  clock = Math.max(clock + 1, Date.now() * 1000)
  return `${Math.floor(clock / 1e6)}.${String(clock % 1e6).padStart(6, "0")}`
}
const upperId = (core: SimCore, prefix: string) =>
  `${prefix}${core
    .newId()
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "")
    .slice(-10)}`

export const seedSlackWorkspace = (core: SimCore, input: { readonly name?: string; readonly channelName?: string } = {}) => {
  const all = stateOf(teams, core)
  const name = input.name ?? `Team ${all.size + 1}`
  const team: Team = {
    id: upperId(core, "T"),
    name,
    domain: name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
    botId: upperId(core, "B"),
    botUserId: upperId(core, "U"),
    channels: new Map()
  }
  const general: Channel = { id: upperId(core, "C"), name: input.channelName ?? "general", isPrivate: false, botIsMember: false }
  const secret: Channel = { id: upperId(core, "G"), name: "secret", isPrivate: true, botIsMember: false }
  team.channels.set(general.id, general)
  team.channels.set(secret.id, secret)
  all.set(team.id, team)
  const botToken = `xoxb-${team.id}-${core.newId()}`
  stateOf(botTokens, core).set(botToken, team.id)
  return { botToken, channelId: general.id }
}

const argsOf = (request: SimRequest): Record<string, unknown> => {
  if (request.method === "GET") return Object.fromEntries(request.query)
  if ((request.headers["content-type"] ?? "").startsWith("application/json")) {
    const raw = jsonBody(request)
    return typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
  }
  return Object.fromEntries(formBody(request))
}

const str = (value: unknown) => (typeof value === "string" ? value : "")
const shownText = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

/** The channel a message can go to, or Slack's error for it. */
const postable = (team: Team, channelId: string): Channel | SimResponse => {
  const channel = team.channels.get(channelId)
  if (channel === undefined) return fail("channel_not_found")
  if (channel.isPrivate && !channel.botIsMember) return fail("not_in_channel")
  return channel
}

const threadOk = (core: SimCore, channel: string, threadTs: string) =>
  core.posts.some((p) => p.network === NETWORK && p.account === channel && p.id === threadTs && p.replyTo === null)

const record = (core: SimCore, team: Team, channel: string, text: string, threadTs: string, files: ReadonlyArray<{ id: string; upload: Upload }>) => {
  const ts = newTs()
  core.record({
    network: NETWORK,
    id: ts,
    url: `https://${team.domain}.slack.com/archives/${channel}/p${ts.replace(".", "")}`,
    account: channel,
    text: shownText(text),
    replyTo: threadTs === "" ? null : threadTs,
    media: files.map((f) => ({
      id: f.id,
      mime: f.upload.mime,
      size: f.upload.bytes?.length ?? 0,
      ...(f.upload.alt === null ? {} : { alt: f.upload.alt })
    })),
    dedupeKey: null,
    extra: { raw: text, user: team.botUserId, bot_id: team.botId }
  })
  for (const f of files) stateOf(shares, core).set(f.id, ts)
  return ts
}

const messageOf = (p: {
  id: string
  text: string
  replyTo: string | null
  media: ReadonlyArray<{ id: string }>
  extra: Readonly<Record<string, unknown>>
}) => ({
  type: "message",
  ts: p.id,
  text: str(p.extra["raw"]),
  user: p.extra["user"],
  bot_id: p.extra["bot_id"],
  ...(p.replyTo === null ? {} : { thread_ts: p.replyTo }),
  ...(p.media.length === 0 ? {} : { files: p.media.map((m) => ({ id: m.id })) })
})

const methods: Record<string, (core: SimCore, team: Team, args: Record<string, unknown>) => SimResponse> = {
  "auth.test": (_core, team) => ({
    status: 200,
    body: {
      ok: true,
      url: `https://${team.domain}.slack.com/`,
      team: team.name,
      user: "scheduler",
      team_id: team.id,
      user_id: team.botUserId,
      bot_id: team.botId
    }
  }),
  "conversations.info": (_core, team, args) => {
    const channel = team.channels.get(str(args["channel"]))
    if (channel === undefined || (channel.isPrivate && !channel.botIsMember)) return fail("channel_not_found")
    return {
      status: 200,
      body: { ok: true, channel: { id: channel.id, name: channel.name, is_private: channel.isPrivate, is_member: channel.botIsMember } }
    }
  },
  "conversations.list": (_core, team) => ({
    status: 200,
    body: {
      ok: true,
      channels: [...team.channels.values()]
        .filter((c) => !c.isPrivate || c.botIsMember)
        .map((c) => ({ id: c.id, name: c.name, is_private: c.isPrivate, is_member: c.botIsMember })),
      response_metadata: { next_cursor: "" }
    }
  }),
  "conversations.history": (core, team, args) => {
    const channel = team.channels.get(str(args["channel"]))
    if (channel === undefined) return fail("channel_not_found")
    const limit = Number(str(args["limit"]) || "100")
    const messages = core
      .visiblePosts(NETWORK, channel.id)
      .filter((p) => p.replyTo === null)
      .reverse()
      .slice(0, limit)
      .map(messageOf)
    return { status: 200, body: { ok: true, messages, has_more: false } }
  },
  "conversations.replies": (core, team, args) => {
    const channel = team.channels.get(str(args["channel"]))
    if (channel === undefined) return fail("channel_not_found")
    const ts = str(args["ts"])
    const thread = core.visiblePosts(NETWORK, channel.id).filter((p) => p.id === ts || p.replyTo === ts)
    if (!thread.some((p) => p.id === ts)) return fail("thread_not_found")
    return { status: 200, body: { ok: true, messages: thread.map(messageOf), has_more: false } }
  },
  "chat.postMessage": (core, team, args) => {
    const channel = postable(team, str(args["channel"]))
    if (!("id" in channel)) return channel
    const text = str(args["text"])
    if (text === "") return fail("no_text")
    if ([...text].length > MAX_TEXT) return fail("msg_too_long")
    const threadTs = str(args["thread_ts"])
    if (threadTs !== "" && !threadOk(core, channel.id, threadTs)) return fail("thread_not_found")
    const ts = record(core, team, channel.id, text, threadTs, [])
    return {
      status: 200,
      body: {
        ok: true,
        channel: channel.id,
        ts,
        message: { type: "message", text, user: team.botUserId, bot_id: team.botId, ts, ...(threadTs === "" ? {} : { thread_ts: threadTs }) }
      }
    }
  },
  "files.getUploadURLExternal": (core, team, args) => {
    const filename = str(args["filename"])
    const length = Number(str(args["length"]))
    if (filename === "" || !Number.isInteger(length) || length <= 0) return fail("invalid_arguments")
    const fileId = upperId(core, "F")
    stateOf(uploads, core).set(fileId, { team: team.id, filename, length, alt: str(args["alt_txt"]) || null, bytes: null, mime: "" })
    return { status: 200, body: { ok: true, upload_url: `${core.baseOf(NETWORK)}/upload/v1/${fileId}`, file_id: fileId } }
  },
  "files.completeUploadExternal": (core, team, args) => {
    const files = Array.isArray(args["files"]) ? (args["files"] as ReadonlyArray<unknown>) : []
    const found: Array<{ id: string; upload: Upload }> = []
    for (const entry of files) {
      const id = typeof entry === "object" && entry !== null && "id" in entry ? String(entry.id) : ""
      const upload = stateOf(uploads, core).get(id)
      if (upload === undefined || upload.team !== team.id || upload.bytes === null) return fail("file_not_found")
      if (stateOf(shares, core).has(id)) return fail("file_uploads_already_completed")
      found.push({ id, upload })
    }
    if (found.length === 0) return fail("invalid_arguments")
    const channelId = str(args["channel_id"])
    if (channelId !== "") {
      const channel = postable(team, channelId)
      if (!("id" in channel)) return channel
      const threadTs = str(args["thread_ts"])
      if (threadTs !== "" && !threadOk(core, channel.id, threadTs)) return fail("thread_not_found")
      record(core, team, channel.id, str(args["initial_comment"]), threadTs, found)
    }
    return { status: 200, body: { ok: true, files: found.map((f) => ({ id: f.id, title: f.upload.filename })) } }
  }
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/oauth/v2/authorize") {
    const all = stateOf(teams, core)
    if (all.size === 0) seedSlackWorkspace(core, { name: "Acme" })
    const team = all.values().next().value
    const channel = team === undefined ? undefined : [...team.channels.values()].find((c) => !c.isPrivate)
    const redirectUri = request.query.get("redirect_uri") ?? ""
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { team: team?.id ?? "", channel: channel?.id ?? "", redirectUri })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("state", request.query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  const uploadTo = /^\/upload\/v1\/([A-Z0-9]+)$/.exec(path)
  if (method === "POST" && uploadTo !== null) {
    const upload = stateOf(uploads, core).get(uploadTo[1] ?? "")
    if (upload === undefined) return { status: 404, body: "Not Found" }
    if (request.body.length !== upload.length) return { status: 400, body: `Expected ${upload.length} bytes` }
    Object.assign(upload, { bytes: Buffer.from(request.body), mime: request.headers["content-type"] ?? "application/octet-stream" })
    return { status: 200, headers: { "content-type": "text/plain" }, body: `OK - ${request.body.length}` }
  }
  const api = /^\/api\/([A-Za-z0-9.]+)$/.exec(path)
  if (api === null) return undefined
  const name = api[1] ?? ""
  if (name === "oauth.v2.access") {
    const basic = /^Basic\s+(.+)$/i.exec(request.headers["authorization"] ?? "")
    const [id = "", secret = ""] = Buffer.from(basic?.[1] ?? "", "base64")
      .toString("utf8")
      .split(":")
    if (id === "" || secret === "") return fail("invalid_client_id")
    const form = formBody(request)
    const code = stateOf(codes, core).get(form.get("code") ?? "")
    if (code === undefined) return fail("invalid_code")
    if (code.redirectUri !== (form.get("redirect_uri") ?? "")) return fail("bad_redirect_uri")
    stateOf(codes, core).delete(form.get("code") ?? "")
    const team = stateOf(teams, core).get(code.team)
    if (team === undefined) return fail("invalid_code")
    const botToken = `xoxb-${team.id}-${core.newId()}`
    stateOf(botTokens, core).set(botToken, team.id)
    const channel = team.channels.get(code.channel)
    return {
      status: 200,
      body: {
        ok: true,
        access_token: botToken,
        token_type: "bot",
        scope: "chat:write,chat:write.public,files:write,channels:read,groups:read,channels:history,groups:history,incoming-webhook",
        bot_user_id: team.botUserId,
        app_id: "A0SIMULATED",
        team: { id: team.id, name: team.name },
        enterprise: null,
        authed_user: { id: "U0PERSON" },
        ...(channel === undefined
          ? {}
          : {
              incoming_webhook: {
                channel: `#${channel.name}`,
                channel_id: channel.id,
                configuration_url: `https://${team.domain}.slack.com/services/B1`,
                url: "https://hooks.slack.com/services/T/B/X"
              }
            })
      }
    }
  }
  const teamId = stateOf(botTokens, core).get(bearerOf(request) ?? "")
  const team = teamId === undefined ? undefined : stateOf(teams, core).get(teamId)
  if (team === undefined) return fail(bearerOf(request) === undefined ? "not_authed" : "invalid_auth")
  const run = methods[name]
  return run === undefined ? fail("unknown_method") : run(core, team, argsOf(request))
}

export const slackModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ SLACK_API_URL: `${base}/api`, SLACK_AUTH_URL: base, SLACK_CLIENT_ID: "sim-client", SLACK_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) =>
    path === "/api/chat.postMessage" || path === "/api/files.completeUploadExternal"
      ? "publish"
      : path === "/api/files.getUploadURLExternal" || path.startsWith("/upload/")
        ? "media"
        : path === "/api/conversations.history" || path === "/api/conversations.replies"
          ? "search"
          : path === "/api/oauth.v2.access" || (method === "GET" && path.startsWith("/oauth"))
            ? "token"
            : "account",
  rejectBody: () => fail("msg_too_long"),
  expiredTokenBody: () => fail("token_expired"),
  searchUnavailableBody: () => fail("internal_error"),
  seed: (core, input) =>
    seedSlackWorkspace(core, {
      ...(typeof input["name"] === "string" ? { name: input["name"] } : {}),
      ...(typeof input["channelName"] === "string" ? { channelName: input["channelName"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [slackModule]
