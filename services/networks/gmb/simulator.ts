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
 * Google Business Profile as Google documents it, every API under one prefix:
 * GET /o/oauth2/v2/auth (approved at once; a refresh token only with access_type=offline),
 * POST /token (client_id and client_secret in the form; a refresh answers no new refresh
 * token), GET /v1/accounts (Account Management API), GET /v1/accounts/{a}/locations with a
 * required readMask (Business Information API), POST and GET /v4/accounts/{a}/locations/{l}/localPosts
 * (My Business API v4: summary up to 1500 characters, STANDARD / EVENT / OFFER, callToAction,
 * media fetched from its sourceUrl). Errors are Google's `{error: {code, message, status}}`.
 */
const NETWORK = "gmb"
const HOUR = 3600_000

interface Person {
  readonly id: string
  readonly accounts: ReadonlyArray<{
    readonly name: string
    readonly accountName: string
    readonly locations: ReadonlyArray<{ name: string; title: string }>
  }>
}

const people = new WeakMap<SimCore, Map<string, Person>>()
const codes = new WeakMap<SimCore, Map<string, { readonly person: string; readonly redirectUri: string; readonly offline: boolean }>>()
const latest = new WeakMap<SimCore, Map<"person", string>>()
const localPosts = new WeakMap<
  SimCore,
  Map<string, { readonly location: string; readonly summary: string; readonly searchUrl: string; readonly topicType: string }>
>()

const googleError = (code: number, status: string, message: string): SimResponse => ({ status: code, body: { error: { code, message, status } } })
const unauthenticated = googleError(
  401,
  "UNAUTHENTICATED",
  "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
)

const tokensFor = (core: SimCore, person: string, ttlMs = HOUR, withRefresh = true) => ({
  access_token: core.issueToken(NETWORK, person, "access", ttlMs),
  expires_in: Math.floor(ttlMs / 1000),
  scope: "https://www.googleapis.com/auth/business.manage",
  token_type: "Bearer",
  ...(withRefresh ? { refresh_token: core.issueToken(NETWORK, person, "refresh", null) } : {})
})

/** A Google account managing `locations` locations under one business account; the `--credentials` of its first location. */
export const seedGmbAccount = (core: SimCore, input: { readonly name?: string; readonly locations?: number; readonly expiresInMs?: number } = {}) => {
  const id = core.newId().slice(-8)
  const accountName = `accounts/1${id.replace(/\D/g, "7")}`
  const person: Person = {
    id,
    accounts: [
      {
        name: accountName,
        accountName: input.name ?? "Corner Bakery",
        locations: Array.from({ length: input.locations ?? 1 }, (_, i) => ({
          name: `locations/2${i}${id.replace(/\D/g, "3")}`,
          title: `${input.name ?? "Corner Bakery"} ${i + 1}`
        }))
      }
    ]
  }
  stateOf(people, core).set(id, person)
  stateOf(latest, core).set("person", id)
  const ttl = Math.max(1, input.expiresInMs ?? HOUR)
  const t = tokensFor(core, id, ttl)
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token,
    expiresAt: new Date(Date.now() + ttl).toISOString(),
    location: `${accountName}/${person.accounts[0]?.locations[0]?.name ?? ""}`
  }
}

const token = (request: SimRequest, core: SimCore): SimResponse => {
  const form = formBody(request)
  if ((form.get("client_id") ?? "") === "" || (form.get("client_secret") ?? "") === "")
    return { status: 401, body: { error: "invalid_client", error_description: "The OAuth client was not found." } }
  if (form.get("grant_type") === "authorization_code") {
    const code = stateOf(codes, core).get(form.get("code") ?? "")
    if (code === undefined || code.redirectUri !== form.get("redirect_uri"))
      return { status: 400, body: { error: "invalid_grant", error_description: "Bad Request" } }
    stateOf(codes, core).delete(form.get("code") ?? "")
    return { status: 200, body: tokensFor(core, code.person, HOUR, code.offline) }
  }
  if (form.get("grant_type") === "refresh_token") {
    const found = core.tokens.get(form.get("refresh_token") ?? "")
    if (found === undefined || found.network !== NETWORK || found.kind !== "refresh")
      return { status: 400, body: { error: "invalid_grant", error_description: "Token has been expired or revoked." } }
    return { status: 200, body: tokensFor(core, found.account, HOUR, false) }
  }
  return { status: 400, body: { error: "unsupported_grant_type" } }
}

type Body = {
  summary?: string
  topicType?: string
  languageCode?: string
  callToAction?: { actionType?: string; url?: string }
  event?: { title?: string; schedule?: { startDate?: unknown; endDate?: unknown } }
  offer?: Record<string, unknown>
  media?: Array<{ mediaFormat?: string; sourceUrl?: string }>
}

const createPost = async (request: SimRequest, core: SimCore, location: string): Promise<SimResponse> => {
  const raw = jsonBody(request)
  const body = (typeof raw === "object" && raw !== null ? raw : {}) as Body
  const summary = body.summary ?? ""
  const invalid = (message: string) => googleError(400, "INVALID_ARGUMENT", message)
  if ([...summary].length > 1500) return invalid("Request contains an invalid argument. summary: must be at most 1500 characters.")
  const topic = body.topicType ?? "STANDARD"
  if (!["STANDARD", "EVENT", "OFFER"].includes(topic)) return invalid(`Invalid value at 'local_post.topic_type' (${topic})`)
  if (
    topic !== "STANDARD" &&
    (body.event?.title === undefined || body.event.schedule?.startDate === undefined || body.event.schedule.endDate === undefined)
  )
    return invalid("Request contains an invalid argument. event: title and schedule are required.")
  if (body.callToAction !== undefined && body.callToAction.actionType !== "CALL" && body.callToAction.url === undefined)
    return invalid("Request contains an invalid argument. call_to_action.url is required.")
  if ((body.media ?? []).length > 1) return invalid("Request contains an invalid argument. Only one media item is allowed.")
  const media: Array<{ id: string; mime: string; size: number }> = []
  for (const m of body.media ?? []) {
    const fetched = await core.fetchMedia(m.sourceUrl ?? "")
    if (!fetched.ok) return invalid(`Request contains an invalid argument. Unable to fetch media from the sourceUrl (${fetched.reason}).`)
    const kind = fetched.mime.startsWith("video/") ? "VIDEO" : "PHOTO"
    if (kind !== m.mediaFormat) return invalid(`Request contains an invalid argument. media_format ${m.mediaFormat} does not match the file.`)
    media.push({ id: core.newId(), mime: fetched.mime, size: fetched.bytes.length })
  }
  const id = `${core.newId().replace(/\D/g, "1")}${core.posts.length}`
  const name = `${location}/localPosts/${id}`
  const searchUrl = `https://local.google.com/place?id=${id}&use=posts&lpsid=${id}`
  stateOf(localPosts, core).set(name, { location, summary, searchUrl, topicType: topic })
  core.record({
    network: NETWORK,
    id: name,
    url: searchUrl,
    account: location,
    text: summary,
    replyTo: null,
    media,
    dedupeKey: null,
    extra: { topicType: topic, callToAction: body.callToAction, event: body.event, offer: body.offer, languageCode: body.languageCode }
  })
  return {
    status: 200,
    body: { name, languageCode: body.languageCode, summary, state: "LIVE", topicType: topic, searchUrl, createTime: new Date().toISOString() }
  }
}

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const { method, path } = request
  if (method === "GET" && path === "/o/oauth2/v2/auth") {
    const person = stateOf(latest, core).get("person") ?? ""
    if (person === "") seedGmbAccount(core)
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, {
      person: stateOf(latest, core).get("person") ?? "",
      redirectUri: request.query.get("redirect_uri") ?? "",
      offline: request.query.get("access_type") === "offline"
    })
    const target = new URL(request.query.get("redirect_uri") ?? "")
    target.searchParams.set("state", request.query.get("state") ?? "")
    target.searchParams.set("code", code)
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/token") return token(request, core)
  const personId = core.accountOf(NETWORK, bearerOf(request))
  if (personId === null) return unauthenticated
  const person = stateOf(people, core).get(personId)
  if (person === undefined) return unauthenticated
  if (method === "GET" && path === "/v1/accounts")
    return { status: 200, body: { accounts: person.accounts.map((a) => ({ name: a.name, accountName: a.accountName, type: "LOCATION_GROUP" })) } }
  const locations = /^\/v1\/(accounts\/[^/]+)\/locations$/.exec(path)
  if (method === "GET" && locations !== null) {
    const account = person.accounts.find((a) => a.name === locations[1])
    if (account === undefined) return googleError(403, "PERMISSION_DENIED", "The caller does not have permission")
    if ((request.query.get("readMask") ?? "") === "")
      return googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument. read_mask is required.")
    return { status: 200, body: { locations: account.locations } }
  }
  const posts = /^\/v4\/(accounts\/[^/]+\/locations\/[^/]+)\/localPosts$/.exec(path)
  if (posts !== null) {
    const location = posts[1] ?? ""
    const owned = person.accounts.some((a) => a.locations.some((l) => `${a.name}/${l.name}` === location))
    if (!owned) return googleError(403, "PERMISSION_DENIED", "The caller does not have permission")
    if (method === "POST") return createPost(request, core, location)
    if (method === "GET") {
      const all = stateOf(localPosts, core)
      const listed = [...core.visiblePosts(NETWORK, location)].reverse().flatMap((p) => {
        const lp = all.get(p.id)
        return lp === undefined ? [] : [{ name: p.id, summary: lp.summary, searchUrl: lp.searchUrl, topicType: lp.topicType, state: "LIVE" }]
      })
      return { status: 200, body: listed.length === 0 ? {} : { localPosts: listed } }
    }
  }
  return undefined
}

export const gmbModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ GMB_API_URL: base, GMB_AUTH_URL: base, GMB_CLIENT_ID: "sim-client", GMB_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) =>
    path.endsWith("/localPosts")
      ? method === "POST"
        ? "publish"
        : "search"
      : path === "/token" || path.startsWith("/o/oauth2")
        ? "token"
        : "account",
  rejectBody: (status) =>
    googleError(status ?? 400, "INVALID_ARGUMENT", "Request contains an invalid argument. summary: must be at most 1500 characters."),
  expiredTokenBody: () => unauthenticated,
  seed: (core, input) =>
    seedGmbAccount(core, {
      ...(typeof input["name"] === "string" ? { name: input["name"] } : {}),
      ...(typeof input["locations"] === "number" ? { locations: input["locations"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [gmbModule]
