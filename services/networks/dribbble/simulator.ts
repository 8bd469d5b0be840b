import sharp from "sharp"
import {
  bearerOf,
  formBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Dribbble as developer.dribbble.com documents it: OAuth on dribbble.com (/oauth/authorize
 * approves at once, /oauth/token answers a token that does not expire) and API v2 under
 * /v2: GET /user, POST /shots (multipart `image`, `title`, `description`, `tags[]`; the
 * `upload` scope; an image of exactly 400×300, 800×600 or 1600×1200, GIF, JPG or PNG, at
 * most 8 MB; at most 12 tags) answering 202 Accepted with the shot's Location, the shot
 * answering 404 until it is processed (core.processingMs()), and GET /user/shots.
 * Errors are `{"message", "errors": [{"attribute", "message"}]}`; 60 requests a minute.
 */
const NETWORK = "dribbble"
const MAX_BYTES = 8 * 1024 * 1024
const SIZES = ["400x300", "800x600", "1600x1200"]

interface Player {
  readonly id: number
  readonly login: string
  readonly canUpload: boolean
  /** Requests a minute (Dribbble: 60). */
  readonly perMinute: number
}

interface SimShot {
  readonly id: number
  readonly account: string
  readonly title: string
  readonly url: string
  readonly readyAt: number
  recorded: boolean
}

const players = new WeakMap<SimCore, Map<string, Player>>()
const codes = new WeakMap<SimCore, Map<string, string>>()
const scopes = new WeakMap<SimCore, Map<string, string>>()
const calls = new WeakMap<SimCore, Map<string, Array<number>>>()
const shots = new WeakMap<SimCore, Map<number, SimShot & { readonly record: () => void }>>()
let shotCounter = 24_000_000
let playerCounter = 9_000

const message = (status: number, text: string, errors?: ReadonlyArray<{ attribute: string; message: string }>): SimResponse => ({
  status,
  headers: { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "59" },
  body: { message: text, ...(errors === undefined ? {} : { errors }) }
})
const invalid = (attribute: string, text: string) => message(422, "Validation failed.", [{ attribute, message: text }])
const badCredentials = () => message(401, "Bad credentials.")

export interface DribbbleSeed {
  readonly login?: string
  readonly canUpload?: boolean
  readonly perMinute?: number
  /** Scopes of the token (default `public upload`). */
  readonly scope?: string
}

/** A player with a token: the admin CLI's `--credentials` (accessToken). */
export const seedDribbbleAccount = (core: SimCore, input: DribbbleSeed = {}) => {
  const all = stateOf(players, core)
  const player: Player = {
    id: ++playerCounter,
    login: input.login ?? `designer${all.size + 1}`,
    canUpload: input.canUpload ?? true,
    perMinute: input.perMinute ?? 60
  }
  all.set(String(player.id), player)
  const accessToken = core.issueToken(NETWORK, String(player.id), "access", null)
  stateOf(scopes, core).set(accessToken, input.scope ?? "public upload")
  return { accessToken }
}

const userOf = (player: Player) => ({
  id: player.id,
  name: player.login.toUpperCase(),
  login: player.login,
  html_url: `https://dribbble.com/${player.login}`,
  avatar_url: `https://cdn.dribbble.example/users/${player.id}/avatar.png`,
  can_upload_shot: player.canUpload,
  pro: false,
  type: "Player"
})

const shotOf = (shot: SimShot) => ({
  id: shot.id,
  title: shot.title,
  html_url: shot.url,
  images: { normal: `https://cdn.dribbble.example/shots/${shot.id}.png` }
})

/** A shot is shown once processed: recorded then, once. */
const ready = (shot: SimShot & { readonly record: () => void }) => {
  if (Date.now() < shot.readyAt) return false
  if (!shot.recorded) {
    shot.recorded = true
    shot.record()
  }
  return true
}

const createShot = async (request: SimRequest, core: SimCore, player: Player): Promise<SimResponse> => {
  const scope = stateOf(scopes, core).get(bearerOf(request) ?? "") ?? ""
  if (!scope.split(" ").includes("upload")) return message(403, "The upload scope is required to create shots.")
  if (!player.canUpload) return message(403, "You are not allowed to upload shots.")
  const { fields, files } = parseMultipart(request.headers, request.body)
  const image = files.find((f) => f.field === "image")
  if (image === undefined) return invalid("image", "can't be blank")
  if ((fields["title"] ?? "").trim() === "") return invalid("title", "can't be blank")
  // tags[] repeats: each value read from the body (parseMultipart keeps one per name)
  const tags = [...request.body.toString("utf8").matchAll(/name="tags\[\]"\r\n\r\n([^\r]*)\r\n/g)].map((m) => m[1] ?? "")
  if (tags.length > 12) return invalid("tags", "is limited to a maximum of 12 tags")
  if (image.bytes.length > MAX_BYTES) return invalid("image", "must be no larger than 8 megabytes")
  const meta = await sharp(image.bytes)
    .metadata()
    .catch(() => undefined)
  if (meta === undefined || !["gif", "jpeg", "png"].includes(meta.format ?? "")) return invalid("image", "must be a GIF, JPG or PNG")
  if (!SIZES.includes(`${meta.width}x${meta.height}`)) return invalid("image", "must be exactly 400x300, 800x600 or 1600x1200")
  const id = ++shotCounter
  const title = fields["title"] ?? ""
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
  const url = `https://dribbble.com/shots/${id}-${slug}`
  const shot = {
    id,
    account: String(player.id),
    title,
    url,
    readyAt: Date.now() + core.processingMs(),
    recorded: false,
    record: () =>
      core.record({
        network: NETWORK,
        id: String(id),
        url,
        account: String(player.id),
        text: fields["description"] ?? "",
        replyTo: null,
        media: [{ id: `${id}-image`, mime: image.mime, size: image.bytes.length }],
        dedupeKey: null,
        extra: { title, tags }
      })
  }
  stateOf(shots, core).set(id, shot)
  ready(shot)
  return { status: 202, headers: { location: `${core.baseOf(NETWORK)}/v2/shots/${id}`, "x-ratelimit-limit": "60" }, body: "" }
}

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const { method, path, query } = request
  if (method === "GET" && path === "/oauth/authorize") {
    if ((query.get("client_id") ?? "") === "") return message(400, "client_id is required")
    const all = stateOf(players, core)
    const login = query.get("account") ?? "designer"
    if (![...all.values()].some((p) => p.login === login)) seedDribbbleAccount(core, { login })
    const playerId = [...all.values()].find((p) => p.login === login)!.id
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, `${playerId} ${query.get("scope") ?? "public"}`)
    const target = new URL(query.get("redirect_uri") ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/oauth/token") {
    const form = formBody(request)
    if ((form.get("client_id") ?? "") === "" || (form.get("client_secret") ?? "") === "")
      return { status: 401, body: { error: "invalid_client", error_description: "Client authentication failed." } }
    const granted = stateOf(codes, core).get(form.get("code") ?? "")
    if (granted === undefined)
      return { status: 400, body: { error: "invalid_grant", error_description: "The provided authorization grant is invalid or expired." } }
    stateOf(codes, core).delete(form.get("code") ?? "")
    const [playerId, ...scope] = granted.split(" ")
    const accessToken = core.issueToken(NETWORK, playerId!, "access", null)
    stateOf(scopes, core).set(accessToken, scope.join(" "))
    return {
      status: 200,
      body: { access_token: accessToken, token_type: "bearer", scope: scope.join(" "), created_at: Math.floor(Date.now() / 1000) }
    }
  }
  const playerId = core.accountOf(NETWORK, bearerOf(request))
  if (playerId === null) return badCredentials()
  const player = stateOf(players, core).get(playerId)!
  // Dribbble's limit: a minute's requests per account; the 429 names the reset time (epoch seconds)
  const recent = (stateOf(calls, core).get(playerId) ?? []).filter((t) => Date.now() - t < 60_000)
  if (recent.length >= player.perMinute) {
    return {
      status: 429,
      headers: {
        "x-ratelimit-limit": String(player.perMinute),
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(Math.ceil((recent[0]! + 60_000) / 1000))
      },
      body: { message: "API rate limit exceeded." }
    }
  }
  stateOf(calls, core).set(playerId, [...recent, Date.now()])
  if (method === "GET" && path === "/v2/user") return { status: 200, body: userOf(player) }
  if (method === "POST" && path === "/v2/shots") return createShot(request, core, player)
  const one = /^\/v2\/shots\/(\d+)$/.exec(path)
  if (method === "GET" && one !== null) {
    const shot = stateOf(shots, core).get(Number(one[1]))
    if (shot === undefined || !ready(shot)) return message(404, "Not found.")
    return { status: 200, body: shotOf(shot) }
  }
  if (method === "GET" && path === "/v2/user/shots") {
    const perPage = Math.min(100, Number(query.get("per_page") ?? 30))
    const mine = [...stateOf(shots, core).values()].filter((s) => s.account === playerId && ready(s)).reverse()
    return { status: 200, body: mine.slice(0, perPage).map(shotOf) }
  }
  return undefined
}

export const dribbbleModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({
    DRIBBBLE_API_URL: `${base}/v2`,
    DRIBBBLE_AUTH_URL: base,
    DRIBBBLE_CLIENT_ID: "sim-dribbble",
    DRIBBBLE_CLIENT_SECRET: "sim-dribbble-secret"
  }),
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && path === "/v2/shots"
      ? "publish"
      : path.startsWith("/v2/shots/") || path === "/v2/user/shots"
        ? "search"
        : path.startsWith("/oauth")
          ? "token"
          : "account",
  rejectBody: (status) =>
    message(status ?? 422, "Validation failed.", [{ attribute: "image", message: "must be exactly 400x300, 800x600 or 1600x1200" }]),
  expiredTokenBody: badCredentials,
  seed: (core, input) =>
    seedDribbbleAccount(core, {
      ...(typeof input["login"] === "string" ? { login: input["login"] } : {}),
      ...(typeof input["username"] === "string" ? { login: input["username"] } : {}),
      ...(typeof input["canUpload"] === "boolean" ? { canUpload: input["canUpload"] } : {}),
      ...(typeof input["perMinute"] === "number" ? { perMinute: input["perMinute"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [dribbbleModule]
