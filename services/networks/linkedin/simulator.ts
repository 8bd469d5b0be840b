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
 * LinkedIn as the adapter uses it: OAuth (/oauth/v2/authorization approves at once,
 * /oauth/v2/accessToken), /v2/userinfo, /rest/images?action=initializeUpload plus the PUT
 * of the bytes, /rest/posts (id in x-restli-id), /rest/socialActions/{urn}/comments.
 * Every /rest call must carry LinkedIn-Version. For LinkedIn Pages (`linkedin-page`, the same
 * API under its own prefix) also /rest/organizationAcls?q=roleAssignee (the organizations a
 * member administers), /rest/organizations/{id}, /rest/posts?q=author (an organization's
 * posts) and /rest/organizationalEntityShareStatistics?q=organizationalEntity, as documented
 * at learn.microsoft.com/linkedin/marketing/community-management.
 */
const NETWORK = "linkedin"
const PAGE_NETWORK = "linkedin-page"

interface Member {
  readonly sub: string
  readonly name: string
  /** An app without LinkedIn's partner refresh: its tokens come without a refresh token. */
  readonly noRefreshToken: boolean
}
interface Organization {
  readonly id: string
  readonly name: string
  readonly admins: Set<string>
}

const members = new WeakMap<SimCore, Map<string, Member>>()
const codes = new WeakMap<SimCore, Map<string, { readonly sub: string; readonly redirectUri: string }>>()
const images = new WeakMap<SimCore, Map<string, { uploaded: boolean; mime: string; size: number }>>()
const organizations = new WeakMap<SimCore, Map<string, Organization>>()

const DAY = 86_400_000

const tokensFor = (core: SimCore, sub: string, ttlMs = 60 * DAY, network = NETWORK) => {
  const access = { access_token: core.issueToken(network, sub, "access", ttlMs), expires_in: Math.floor(ttlMs / 1000) }
  if (stateOf(members, core).get(sub)?.noRefreshToken === true) return access
  return { ...access, refresh_token: core.issueToken(network, sub, "refresh", null), refresh_token_expires_in: 365 * 86400 }
}

export const seedLinkedInAccount = (
  core: SimCore,
  input: { readonly name?: string; readonly expiresInMs?: number; readonly noRefreshToken?: boolean } = {},
  network = NETWORK
) => {
  const all = stateOf(members, core)
  const member: Member = { sub: `m${core.newId()}`, name: input.name ?? `Member ${all.size + 1}`, noRefreshToken: input.noRefreshToken === true }
  all.set(member.sub, member)
  const ttl = input.expiresInMs ?? 60 * DAY
  const t = tokensFor(core, member.sub, Math.max(1, ttl), network)
  return {
    accessToken: t.access_token,
    ...("refresh_token" in t ? { refreshToken: t.refresh_token } : {}),
    expiresAt: new Date(Date.now() + ttl).toISOString(),
    author: `urn:li:person:${member.sub}`
  }
}

/**
 * A member who administers `organizations` organizations (LinkedIn Pages): the
 * `--credentials` of the first (`organization` its urn) and the urns and names of all.
 */
export const seedLinkedInPageAccount = (
  core: SimCore,
  input: { readonly name?: string; readonly expiresInMs?: number; readonly organizations?: number } = {}
) => {
  const member = seedLinkedInAccount(core, input, PAGE_NETWORK)
  const sub = member.author.replace("urn:li:person:", "")
  const all = stateOf(organizations, core)
  const made: Array<Organization> = []
  for (let i = 0; i < Math.max(0, input.organizations ?? 1); i++) {
    const org: Organization = { id: String(10_000_000 + all.size + 1), name: `${input.name ?? "Company"} ${all.size + 1}`, admins: new Set([sub]) }
    all.set(org.id, org)
    made.push(org)
  }
  const { author: _author, ...tokens } = member
  return {
    ...tokens,
    organization: made[0] === undefined ? "" : `urn:li:organization:${made[0].id}`,
    organizations: made.map((o) => ({ urn: `urn:li:organization:${o.id}`, name: o.name }))
  }
}

const error = (status: number, message: string): SimResponse => ({ status, body: { status, serviceErrorCode: 100, code: "ACCESS_DENIED", message } })
const unauthorized = error(401, "Invalid access token")

const handleAs =
  (NETWORK: string) =>
  (request: SimRequest, core: SimCore): SimResponse | undefined => {
    const { method, path } = request
    if (method === "GET" && path === "/oauth/v2/authorization") {
      const all = stateOf(members, core)
      // LinkedIn Pages: the most recently made member signs in (a test makes the one it needs)
      const sub =
        (NETWORK === PAGE_NETWORK ? [...all.keys()].at(-1) : all.keys().next().value) ??
        seedLinkedInAccount(core, { name: "Lee Member" }).author.replace("urn:li:person:", "")
      const code = `code-${core.newId()}`
      stateOf(codes, core).set(code, { sub, redirectUri: request.query.get("redirect_uri") ?? "" })
      const target = new URL(request.query.get("redirect_uri") ?? "")
      target.searchParams.set("code", code)
      target.searchParams.set("state", request.query.get("state") ?? "")
      return { status: 302, headers: { location: target.toString() }, body: "" }
    }
    if (method === "POST" && path === "/oauth/v2/accessToken") {
      const form = formBody(request)
      if ((form.get("client_secret") ?? "") === "") return { status: 401, body: { error: "invalid_client" } }
      if (form.get("grant_type") === "authorization_code") {
        const code = stateOf(codes, core).get(form.get("code") ?? "")
        if (code === undefined || code.redirectUri !== form.get("redirect_uri"))
          return {
            status: 400,
            body: { error: "invalid_request", error_description: "Unable to retrieve access token: authorization code not found" }
          }
        stateOf(codes, core).delete(form.get("code") ?? "")
        return { status: 200, body: tokensFor(core, code.sub, 60 * DAY, NETWORK) }
      }
      const value = form.get("refresh_token") ?? ""
      const found = core.tokens.get(value)
      if (found === undefined || found.network !== NETWORK || found.kind !== "refresh")
        return { status: 400, body: { error: "invalid_request", error_description: "The provided refresh token is invalid" } }
      return { status: 200, body: tokensFor(core, found.account, 60 * DAY, NETWORK) }
    }
    const upload = /^\/upload\/([^/]+)$/.exec(path)
    if (method === "PUT" && upload !== null) {
      const image = stateOf(images, core).get(decodeURIComponent(upload[1]!))
      if (image === undefined) return { status: 404, body: "" }
      Object.assign(image, { uploaded: true, mime: request.headers["content-type"] ?? "", size: request.body.length })
      return { status: 201, body: "" }
    }
    const sub = core.accountOf(NETWORK, bearerOf(request))
    if (sub === null) return unauthorized
    const member = stateOf(members, core).get(sub)!
    if (method === "GET" && path === "/v2/userinfo")
      return {
        status: 200,
        body: { sub: member.sub, name: member.name, email: `${member.sub}@example.com`, picture: `https://media.example/${member.sub}.jpg` }
      }
    if (path.startsWith("/rest/") && request.headers["linkedin-version"] === undefined)
      return error(426, "A version must be present. Please specify a version by adding the LinkedIn-Version header.")
    const raw = jsonBody(request)
    const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
    if (method === "POST" && path === "/rest/images" && request.query.get("action") === "initializeUpload") {
      const image = `urn:li:image:${core.newId()}`
      stateOf(images, core).set(image, { uploaded: false, mime: "", size: 0 })
      return {
        status: 200,
        body: {
          value: { uploadUrlExpiresAt: Date.now() + 3600_000, uploadUrl: `${core.baseOf(NETWORK)}/upload/${encodeURIComponent(image)}`, image }
        }
      }
    }
    const orgs = stateOf(organizations, core)
    const administers = (urn: string) => orgs.get(urn.replace("urn:li:organization:", ""))?.admins.has(member.sub) === true
    if (method === "GET" && path === "/rest/organizationAcls" && request.query.get("q") === "roleAssignee") {
      const role = request.query.get("role")
      const state = request.query.get("state")
      const elements = [...orgs.values()]
        .filter((o) => o.admins.has(member.sub) && (role === null || role === "ADMINISTRATOR") && (state === null || state === "APPROVED"))
        .map((o) => ({
          roleAssignee: `urn:li:person:${member.sub}`,
          state: "APPROVED",
          role: "ADMINISTRATOR",
          organization: `urn:li:organization:${o.id}`
        }))
      return { status: 200, body: { paging: { count: 10, start: 0, links: [] }, elements } }
    }
    const organization = /^\/rest\/organizations\/(\d+)$/.exec(path)
    if (method === "GET" && organization !== null) {
      const org = orgs.get(organization[1]!)
      if (org === undefined) return error(404, "Not found")
      return { status: 200, body: { id: Number(org.id), localizedName: org.name, vanityName: org.name.toLowerCase().replace(/\W+/g, "-") } }
    }
    if (method === "GET" && path === "/rest/posts" && request.query.get("q") === "author") {
      const author = request.query.get("author") ?? ""
      if (author.startsWith("urn:li:organization:") && !administers(author))
        return error(403, "Not enough permissions to access: partnerApiPostsExternal.FINDER-author")
      const count = Number(request.query.get("count") ?? "10")
      const elements = core
        .visiblePosts(NETWORK, author)
        .filter((p) => p.replyTo === null)
        .reverse()
        .slice(0, count)
        .map((p) => ({ id: p.id, author, commentary: p.extra["commentary"], lifecycleState: "PUBLISHED", visibility: "PUBLIC" }))
      return { status: 200, body: { paging: { count, start: 0, links: [] }, elements } }
    }
    if (method === "GET" && path === "/rest/organizationalEntityShareStatistics" && request.query.get("q") === "organizationalEntity") {
      const entity = request.query.get("organizationalEntity") ?? ""
      if (!administers(entity)) return error(403, "Not enough permissions to access: organizationalEntityShareStatistics")
      const shares =
        /^List\((.*)\)$/
          .exec(request.query.get("shares") ?? "")?.[1]
          ?.split(",")
          .map(decodeURIComponent) ?? []
      const held = core.posts.filter(
        (p) => p.network === NETWORK && p.account === entity && p.replyTo === null && (shares.length === 0 || shares.includes(p.id))
      )
      const comments = core.posts.filter((p) => p.network === NETWORK && held.some((h) => h.id === p.replyTo)).length
      const totals = {
        impressionCount: held.length * 10,
        uniqueImpressionsCount: held.length * 7,
        clickCount: held.length,
        likeCount: 2 * held.length,
        commentCount: comments,
        shareCount: 0,
        engagement: 0.1
      }
      const elements =
        shares.length === 0
          ? [{ organizationalEntity: entity, totalShareStatistics: totals }]
          : held.map((h) => ({ organizationalEntity: entity, share: h.id, totalShareStatistics: totals }))
      return { status: 200, body: { paging: { count: 10, start: 0, links: [] }, elements } }
    }
    if (method === "POST" && path === "/rest/posts") {
      const author = String(body["author"])
      if (author !== `urn:li:person:${member.sub}` && !author.startsWith("urn:li:organization:"))
        return error(403, "Not enough permissions to post as this author")
      // an organization this simulator knows takes posts only from its administrators
      if (orgs.has(author.replace("urn:li:organization:", "")) && !administers(author))
        return error(403, "Not enough permissions to post as this organization")
      const text = typeof body["commentary"] === "string" ? body["commentary"].replace(/\\(.)/g, "$1") : ""
      if ([...text].length > 3000) return error(422, "/commentary: length must be at most 3000")
      const content = body["content"] as
        | { media?: { id: string; altText?: string }; multiImage?: { images: Array<{ id: string; altText?: string }> } }
        | undefined
      const attached = content?.media !== undefined ? [content.media] : (content?.multiImage?.images ?? [])
      const known = stateOf(images, core)
      if (attached.some((i) => known.get(i.id)?.uploaded !== true)) return error(422, "/content/media/id: the image is not uploaded")
      const urn = `urn:li:share:${7000000000000000000n + BigInt(core.posts.length + 1)}`
      core.record({
        network: NETWORK,
        id: urn,
        url: `https://www.linkedin.com/feed/update/${urn}/`,
        account: author,
        text,
        replyTo: null,
        media: attached.map((i) => ({
          id: i.id,
          mime: known.get(i.id)!.mime,
          size: known.get(i.id)!.size,
          ...(i.altText === undefined ? {} : { alt: i.altText })
        })),
        dedupeKey: null,
        extra: { commentary: body["commentary"], version: request.headers["linkedin-version"] }
      })
      return { status: 201, headers: { "x-restli-id": urn }, body: "" }
    }
    const comments = /^\/rest\/socialActions\/([^/]+)\/comments$/.exec(path)
    if (method === "POST" && comments !== null) {
      const target = decodeURIComponent(comments[1]!)
      if (!core.posts.some((p) => p.network === NETWORK && p.id === target)) return error(404, "Not found")
      const message = body["message"] as { text?: string } | undefined
      const actor = typeof body["actor"] === "string" ? body["actor"] : `urn:li:person:${member.sub}`
      const id = `urn:li:comment:(${target},${7100000000000000000n + BigInt(core.posts.length + 1)})`
      core.record({
        network: NETWORK,
        id,
        url: `https://www.linkedin.com/feed/update/${target}/`,
        account: actor,
        text: message?.text ?? "",
        replyTo: target,
        media: [],
        dedupeKey: null,
        extra: {}
      })
      return { status: 201, headers: { "x-restli-id": id }, body: { id, object: target } }
    }
    return undefined
  }

const opOf: NetworkModule["opOf"] = ({ method, path }) =>
  method === "POST" && (path === "/rest/posts" || path.endsWith("/comments"))
    ? "publish"
    : path.startsWith("/rest/images") || path.startsWith("/upload")
      ? "media"
      : path.startsWith("/oauth")
        ? "token"
        : method === "GET" && path === "/rest/posts"
          ? "search"
          : "account"

export const linkedinModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ LINKEDIN_API_URL: base, LINKEDIN_CLIENT_ID: "sim-client", LINKEDIN_CLIENT_SECRET: "sim-secret" }),
  handle: handleAs(NETWORK),
  opOf,
  rejectBody: (status) => error(status ?? 422, "/commentary: length must be at most 3000"),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedLinkedInAccount(core, {
      ...(typeof input["name"] === "string" ? { name: input["name"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(input["noRefreshToken"] === true ? { noRefreshToken: true } : {})
    })
}

/** LinkedIn Pages: the same API under its own prefix, members who administer organizations. */
export const linkedinPageModule: NetworkModule = {
  ...linkedinModule,
  network: PAGE_NETWORK,
  env: (base) => ({ LINKEDIN_PAGE_API_URL: base, LINKEDIN_PAGE_CLIENT_ID: "sim-client" }),
  handle: handleAs(PAGE_NETWORK),
  seed: (core, input) =>
    seedLinkedInPageAccount(core, {
      ...(typeof input["name"] === "string" ? { name: input["name"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(typeof input["organizations"] === "number" ? { organizations: input["organizations"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [linkedinModule, linkedinPageModule]
