import {
  bearerOf,
  formBody,
  jsonBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Pinterest API v5 as its reference documents it (developers.pinterest.com/docs/api/v5):
 * GET /oauth/ (the sign-in page, approved at once), POST /v5/oauth/token (HTTP Basic app
 * credentials; `continuous_refresh=true` answers a new refresh token on every refresh),
 * GET /v5/user_account, GET /v5/boards, GET /v5/boards/{id}/pins, POST /v5/pins with
 * media_source image_url / multiple_image_urls (fetched from the given address, as
 * Pinterest does) or video_id (with cover_image_url, fetched too, or cover_image_key_frame_time), POST /v5/media (register) + the multipart POST to its
 * upload_url + GET /v5/media/{id} (registered → processing → succeeded), pin and account
 * analytics. Errors are `{code, message}`.
 */
const NETWORK = "pinterest"
const DAY = 86_400_000

interface Account {
  readonly id: string
  readonly username: string
  readonly boards: Array<{ readonly id: string; readonly name: string }>
}

interface Upload {
  readonly account: string
  uploadedAt: number | null
  size: number
  mime: string
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
const codes = new WeakMap<SimCore, Map<string, { readonly account: string; readonly redirectUri: string }>>()
const uploads = new WeakMap<SimCore, Map<string, Upload>>()
const boardOfPin = new WeakMap<SimCore, Map<string, string>>()

const error = (status: number, code: number, message: string): SimResponse => ({ status, body: { code, message } })
const unauthorized = error(401, 2, "Authentication failed.")

const tokensFor = (core: SimCore, account: string, ttlMs = 30 * DAY) => ({
  access_token: core.issueToken(NETWORK, account, "access", ttlMs),
  refresh_token: core.issueToken(NETWORK, account, "refresh", null),
  response_type: "authorization_code",
  token_type: "bearer",
  expires_in: Math.floor(ttlMs / 1000),
  refresh_token_expires_in: 365 * 86400,
  scope: "boards:read,pins:read,pins:write,user_accounts:read"
})

export const seedPinterestAccount = (
  core: SimCore,
  input: { readonly username?: string; readonly expiresInMs?: number; readonly boards?: number } = {}
) => {
  const all = stateOf(accounts, core)
  const id = `${5000 + all.size}${core.newId().slice(-6)}`
  const username = input.username ?? `pinner${all.size + 1}`
  const boards = Array.from({ length: input.boards ?? 2 }, (_, i) => ({ id: `${id}0${i + 1}`, name: i === 0 ? "Ideas" : `Board ${i + 1}` }))
  all.set(id, { id, username, boards })
  const ttl = Math.max(1, input.expiresInMs ?? 30 * DAY)
  const t = tokensFor(core, id, ttl)
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token,
    expiresAt: new Date(Date.now() + ttl).toISOString(),
    boardId: boards[0]?.id ?? ""
  }
}

/** The status Pinterest reports for an upload: processed `processingMs` after its bytes arrived. */
const statusOf = (upload: Upload, core: SimCore) =>
  upload.uploadedAt === null ? "registered" : Date.now() - upload.uploadedAt >= core.processingMs() ? "succeeded" : "processing"

const basicClient = (request: SimRequest) => {
  const header = request.headers["authorization"]
  const match = typeof header === "string" ? /^Basic\s+(.+)$/i.exec(header) : null
  const [id = "", secret = ""] = Buffer.from(match?.[1] ?? "", "base64")
    .toString("utf8")
    .split(":")
  return id !== "" && secret !== ""
}

const token = (request: SimRequest, core: SimCore): SimResponse => {
  if (!basicClient(request)) return error(401, 1, "Authentication failed: the client_id and client_secret must be sent with HTTP Basic.")
  const form = formBody(request)
  if (form.get("grant_type") === "authorization_code") {
    const code = stateOf(codes, core).get(form.get("code") ?? "")
    if (code === undefined || code.redirectUri !== form.get("redirect_uri")) return error(400, 1, "Invalid authorization code.")
    stateOf(codes, core).delete(form.get("code") ?? "")
    return { status: 200, body: tokensFor(core, code.account) }
  }
  if (form.get("grant_type") === "refresh_token") {
    const found = core.tokens.get(form.get("refresh_token") ?? "")
    if (found === undefined || found.network !== NETWORK || found.kind !== "refresh") return error(400, 1, "Invalid refresh token.")
    const t = tokensFor(core, found.account)
    // without continuous_refresh the refresh token is not renewed
    if (form.get("continuous_refresh") !== "true") return { status: 200, body: { ...t, refresh_token: undefined } }
    return { status: 200, body: t }
  }
  return error(400, 1, "Unsupported grant_type.")
}

type Source = {
  source_type?: string
  url?: string
  items?: Array<{ url?: string }>
  media_id?: string
  cover_image_url?: string
  cover_image_key_frame_time?: number
}

const createPin = async (request: SimRequest, core: SimCore, account: Account): Promise<SimResponse> => {
  const raw = jsonBody(request)
  const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
  const boardId = typeof body["board_id"] === "string" ? body["board_id"] : ""
  if (boardId === "") return error(400, 1, "Invalid parameters: board_id is required.")
  if (!account.boards.some((b) => b.id === boardId)) return error(404, 40, "Board not found.")
  const description = typeof body["description"] === "string" ? body["description"] : ""
  if ([...description].length > 500) return error(400, 1, "Invalid parameters: description is longer than 500 characters.")
  const source = (typeof body["media_source"] === "object" && body["media_source"] !== null ? body["media_source"] : {}) as Source
  const media: Array<{ id: string; mime: string; size: number; alt?: string }> = []
  if (source.source_type === "image_url" || source.source_type === "multiple_image_urls") {
    const urls = source.source_type === "image_url" ? [source.url ?? ""] : (source.items ?? []).map((i) => i.url ?? "")
    if (source.source_type === "multiple_image_urls" && (urls.length < 2 || urls.length > 5))
      return error(400, 1, "Invalid parameters: a carousel takes 2 to 5 images.")
    for (const url of urls) {
      const fetched = await core.fetchMedia(url)
      if (!fetched.ok) return error(400, 2976, `Sorry, we could not fetch the image. (${fetched.reason})`)
      if (!fetched.mime.startsWith("image/")) return error(400, 2977, "Sorry, the media is not an image.")
      media.push({ id: core.newId(), mime: fetched.mime, size: fetched.bytes.length })
    }
  } else if (source.source_type === "video_id") {
    const upload = stateOf(uploads, core).get(source.media_id ?? "")
    if (upload === undefined || upload.account !== account.id) return error(404, 2980, "Media not found.")
    if (statusOf(upload, core) !== "succeeded") return error(400, 2981, "The video is not processed yet. Check the media status first.")
    if (source.cover_image_url === undefined && source.cover_image_key_frame_time === undefined)
      return error(400, 1, "Invalid parameters: a video pin needs cover_image_url or cover_image_key_frame_time.")
    media.push({ id: source.media_id ?? "", mime: upload.mime, size: upload.size })
    // the cover is fetched from its address, as an image_url pin's image is
    if (source.cover_image_url !== undefined) {
      const cover = await core.fetchMedia(source.cover_image_url)
      if (!cover.ok) return error(400, 2976, `Sorry, we could not fetch the cover image. (${cover.reason})`)
      if (!cover.mime.startsWith("image/")) return error(400, 2977, "Sorry, the cover is not an image.")
      media.push({ id: core.newId(), mime: cover.mime, size: cover.bytes.length })
    }
  } else {
    return error(400, 1, "Invalid parameters: media_source is required.")
  }
  if (typeof body["alt_text"] === "string" && media[0] !== undefined) media[0] = { ...media[0], alt: body["alt_text"] }
  const id = `${900000000000 + core.posts.length}${core.newId().slice(-4).replace(/\D/g, "1")}`
  stateOf(boardOfPin, core).set(id, boardId)
  core.record({
    network: NETWORK,
    id,
    url: `https://www.pinterest.com/pin/${id}/`,
    account: account.id,
    text: description,
    replyTo: null,
    media,
    dedupeKey: null,
    extra: {
      board_id: boardId,
      title: body["title"],
      link: body["link"],
      source_type: source.source_type,
      ...(source.cover_image_url === undefined ? {} : { cover_image_url: source.cover_image_url })
    }
  })
  return { status: 201, body: { id, board_id: boardId, description, title: body["title"] ?? null, created_at: new Date().toISOString() } }
}

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const { method, path } = request
  if (method === "GET" && (path === "/oauth" || path === "/oauth/")) {
    const all = stateOf(accounts, core)
    const account = all.keys().next().value ?? ""
    if (account === "") seedPinterestAccount(core, { username: "pinner" })
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { account: all.keys().next().value ?? "", redirectUri: request.query.get("redirect_uri") ?? "" })
    const target = new URL(request.query.get("redirect_uri") ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", request.query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/v5/oauth/token") return token(request, core)
  const upload = /^\/media-uploads\/([^/]+)$/.exec(path)
  if (method === "POST" && upload !== null) {
    // the S3-style form Pinterest's upload_url takes: upload_parameters, then the file
    const found = stateOf(uploads, core).get(upload[1] ?? "")
    if (found === undefined) return { status: 404, body: "<Error><Code>NoSuchUpload</Code></Error>" }
    const { fields, files } = parseMultipart(request.headers, request.body)
    const file = files.find((f) => f.field === "file")
    if (fields["key"] !== upload[1] || fields["policy"] === undefined || file === undefined)
      return { status: 400, body: "<Error><Code>InvalidArgument</Code><Message>POST requires the policy fields and a file</Message></Error>" }
    Object.assign(found, { uploadedAt: Date.now(), size: file.bytes.length, mime: file.mime })
    return { status: 204 }
  }
  const accountId = core.accountOf(NETWORK, bearerOf(request))
  if (accountId === null) return unauthorized
  const account = stateOf(accounts, core).get(accountId)
  if (account === undefined) return unauthorized
  if (method === "GET" && path === "/v5/user_account")
    return {
      status: 200,
      body: {
        account_type: "BUSINESS",
        id: account.id,
        username: account.username,
        business_name: null,
        profile_image: `https://i.pinimg.com/${account.id}.jpg`
      }
    }
  if (method === "GET" && path === "/v5/boards")
    return { status: 200, body: { items: account.boards.map((b) => ({ ...b, description: "", privacy: "PUBLIC" })), bookmark: null } }
  const boardPins = /^\/v5\/boards\/([^/]+)\/pins$/.exec(path)
  if (method === "GET" && boardPins !== null) {
    const board = decodeURIComponent(boardPins[1] ?? "")
    if (!account.boards.some((b) => b.id === board)) return error(404, 40, "Board not found.")
    const placed = stateOf(boardOfPin, core)
    const items = core
      .visiblePosts(NETWORK, account.id)
      .filter((p) => placed.get(p.id) === board)
      .reverse()
      .map((p) => ({ id: p.id, board_id: board, description: p.text, created_at: p.at.toISOString() }))
    return { status: 200, body: { items, bookmark: null } }
  }
  if (method === "POST" && path === "/v5/pins") return createPin(request, core, account)
  if (method === "POST" && path === "/v5/media") {
    const raw = jsonBody(request)
    const type = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)["media_type"] : undefined
    if (type !== "video") return error(400, 1, "Invalid parameters: media_type must be video.")
    const mediaId = `${core.newId()}`
    stateOf(uploads, core).set(mediaId, { account: account.id, uploadedAt: null, size: 0, mime: "" })
    return {
      status: 201,
      body: {
        media_id: mediaId,
        media_type: "video",
        upload_url: `${core.baseOf(NETWORK)}/media-uploads/${mediaId}`,
        upload_parameters: {
          key: mediaId,
          policy: "eyJleHBpcmF0aW9uIjoi",
          "x-amz-algorithm": "AWS4-HMAC-SHA256",
          "x-amz-signature": "sig",
          "Content-Type": "multipart/form-data"
        }
      }
    }
  }
  const media = /^\/v5\/media\/([^/]+)$/.exec(path)
  if (method === "GET" && media !== null) {
    const found = stateOf(uploads, core).get(media[1] ?? "")
    if (found === undefined || found.account !== account.id) return error(404, 2980, "Media not found.")
    return { status: 200, body: { media_id: media[1], media_type: "video", status: statusOf(found, core) } }
  }
  const analytics = /^\/v5\/(?:pins\/([^/]+)|user_account)\/analytics$/.exec(path)
  if (method === "GET" && analytics !== null) {
    if (analytics[1] !== undefined && !core.posts.some((p) => p.network === NETWORK && p.id === analytics[1])) return error(404, 50, "Pin not found.")
    const types = (request.query.get("metric_types") ?? "IMPRESSION").split(",")
    const date = request.query.get("end_date") ?? new Date().toISOString().slice(0, 10)
    const metrics = Object.fromEntries(types.map((t, i) => [t, 10 * (i + 1)]))
    return { status: 200, body: { all: { daily_metrics: [{ data_status: "READY", date, metrics }], summary_metrics: metrics } } }
  }
  return undefined
}

export const pinterestModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ PINTEREST_API_URL: base, PINTEREST_AUTH_URL: base, PINTEREST_CLIENT_ID: "sim-client", PINTEREST_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && path === "/v5/pins"
      ? "publish"
      : path.startsWith("/v5/media") || path.startsWith("/media-uploads")
        ? "media"
        : method === "GET" && /^\/v5\/boards\/[^/]+\/pins$/.test(path)
          ? "search"
          : path.startsWith("/v5/oauth") || path.startsWith("/oauth")
            ? "token"
            : "account",
  rejectBody: (status) => error(status ?? 400, 1, "Invalid parameters: description is longer than 500 characters."),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedPinterestAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(typeof input["boards"] === "number" ? { boards: input["boards"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [pinterestModule]
