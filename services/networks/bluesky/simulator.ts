import {
  bearerOf,
  jsonBody,
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * A Bluesky PDS as the adapter uses it (XRPC): createSession / refreshSession,
 * uploadBlob, createRecord and getRecord for app.bsky.feed.post, getAuthorFeed,
 * getProfile, getPosts. A record key that exists answers 400 like a PDS.
 */
const NETWORK = "bluesky"
const MAX_GRAPHEMES = 300

interface Account {
  readonly did: string
  readonly handle: string
  readonly appPassword: string
}
interface Rec {
  readonly uri: string
  readonly cid: string
  readonly value: Record<string, unknown>
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
const records = new WeakMap<SimCore, Map<string, Rec>>()
const blobs = new WeakMap<SimCore, Map<string, { readonly mime: string; readonly size: number }>>()

export const seedBlueskyAccount = (core: SimCore, input: { readonly handle?: string; readonly appPassword?: string } = {}) => {
  const all = stateOf(accounts, core)
  const handle = input.handle ?? `user${all.size + 1}.bsky.test`
  const account: Account = { did: `did:plc:${core.newId()}`, handle, appPassword: input.appPassword ?? "abcd-efgh-ijkl-mnop" }
  all.set(handle, account)
  return { service: core.baseOf(NETWORK), identifier: handle, appPassword: account.appPassword }
}

const err = (status: number, error: string, message: string): SimResponse => ({ status, body: { error, message } })
const graphemes = (text: string) => [...new Intl.Segmenter("en", { granularity: "grapheme" }).segment(text)].length

const session = (core: SimCore, a: Account) => ({
  did: a.did,
  handle: a.handle,
  accessJwt: core.issueToken(NETWORK, a.did, "access", 2 * 3600_000),
  refreshJwt: core.issueToken(NETWORK, a.did, "refresh", null)
})

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const method = request.path.replace(/^\/xrpc\//, "")
  const body = jsonBody(request)
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
  if (method === "com.atproto.server.createSession") {
    const a = stateOf(accounts, core).get(String(fields["identifier"] ?? ""))
    if (a === undefined || a.appPassword !== fields["password"]) return err(401, "AuthenticationRequired", "Invalid identifier or password")
    return { status: 200, body: session(core, a) }
  }
  if (method === "com.atproto.server.refreshSession") {
    const token = core.tokens.get(bearerOf(request) ?? "")
    const a = [...stateOf(accounts, core).values()].find((x) => x.did === token?.account)
    if (token === undefined || token.kind !== "refresh" || a === undefined) return err(400, "ExpiredToken", "Token has expired")
    return { status: 200, body: session(core, a) }
  }
  const did = core.accountOf(NETWORK, bearerOf(request))
  if (did === null) return err(400, "ExpiredToken", "Token has expired")
  const account = [...stateOf(accounts, core).values()].find((a) => a.did === did)!
  if (method === "com.atproto.repo.uploadBlob") {
    const ref = `bafkrei${core.newId()}`
    const mime = request.headers["content-type"] ?? "application/octet-stream"
    stateOf(blobs, core).set(ref, { mime, size: request.body.length })
    return { status: 200, body: { blob: { $type: "blob", ref: { $link: ref }, mimeType: mime, size: request.body.length } } }
  }
  if (method === "com.atproto.repo.createRecord") {
    if (fields["repo"] !== did || fields["collection"] !== "app.bsky.feed.post") return err(400, "InvalidRequest", "Invalid repo or collection")
    const record = typeof fields["record"] === "object" && fields["record"] !== null ? (fields["record"] as Record<string, unknown>) : {}
    const text = typeof record["text"] === "string" ? record["text"] : ""
    if (graphemes(text) > MAX_GRAPHEMES)
      return err(400, "InvalidRequest", `Invalid app.bsky.feed.post record: Record/text must not be longer than ${MAX_GRAPHEMES} graphemes`)
    const rkey = typeof fields["rkey"] === "string" ? fields["rkey"] : core.newId()
    const uri = `at://${did}/app.bsky.feed.post/${rkey}`
    const all = stateOf(records, core)
    if (all.has(uri)) return err(400, "InvalidRequest", "Record already exists")
    const reply = record["reply"] as { parent?: { uri?: string; cid?: string }; root?: { uri?: string; cid?: string } } | undefined
    if (reply !== undefined) {
      const parent = all.get(reply.parent?.uri ?? "")
      const root = all.get(reply.root?.uri ?? "")
      if (parent === undefined || root === undefined || parent.cid !== reply.parent?.cid || root.cid !== reply.root?.cid)
        return err(400, "InvalidRequest", "Invalid reply reference")
    }
    const embed = record["embed"] as { images?: Array<{ alt?: string; image?: { ref?: { $link?: string } } }> } | undefined
    const images = (embed?.images ?? []).map((i) => {
      const ref = i.image?.ref?.$link ?? ""
      const blob = stateOf(blobs, core).get(ref)
      return { id: ref, mime: blob?.mime ?? "", size: blob?.size ?? 0, alt: i.alt ?? "" }
    })
    const cid = `bafyrei${core.newId()}`
    all.set(uri, { uri, cid, value: record })
    core.record({
      network: NETWORK,
      id: uri,
      url: `https://bsky.app/profile/${account.handle}/post/${rkey}`,
      account: did,
      text,
      replyTo: reply?.parent?.uri ?? null,
      media: images,
      dedupeKey: rkey,
      extra: { root: reply?.root?.uri ?? null, facets: record["facets"] ?? [] }
    })
    return { status: 200, body: { uri, cid, commit: { cid: `bafyrei${core.newId()}`, rev: core.newId() } } }
  }
  if (method === "com.atproto.repo.getRecord") {
    const uri = `at://${request.query.get("repo")}/${request.query.get("collection")}/${request.query.get("rkey")}`
    const rec = stateOf(records, core).get(uri)
    return rec === undefined ? err(400, "RecordNotFound", `Could not locate record: ${uri}`) : { status: 200, body: rec }
  }
  if (method === "app.bsky.feed.getAuthorFeed") {
    const actor = request.query.get("actor")
    const limit = Number(request.query.get("limit") ?? "50")
    const visible = core
      .visiblePosts(NETWORK, actor ?? "")
      .slice()
      .reverse()
      .slice(0, limit)
    const all = stateOf(records, core)
    return {
      status: 200,
      body: { feed: visible.map((p) => ({ post: { uri: p.id, cid: all.get(p.id)?.cid ?? "", record: all.get(p.id)?.value ?? {}, likeCount: 0 } })) }
    }
  }
  if (method === "app.bsky.actor.getProfile") {
    const a = [...stateOf(accounts, core).values()].find((x) => x.did === request.query.get("actor") || x.handle === request.query.get("actor"))
    if (a === undefined) return err(400, "InvalidRequest", "Profile not found")
    return {
      status: 200,
      body: {
        did: a.did,
        handle: a.handle,
        displayName: a.handle.split(".")[0],
        followersCount: 12,
        followsCount: 3,
        postsCount: core.posts.filter((p) => p.account === a.did).length
      }
    }
  }
  if (method === "app.bsky.feed.getPosts") {
    const uris = request.query.getAll("uris")
    return {
      status: 200,
      body: {
        posts: core.posts
          .filter((p) => uris.includes(p.id))
          .map((p) => ({ uri: p.id, likeCount: 5, repostCount: 2, replyCount: core.posts.filter((r) => r.replyTo === p.id).length, quoteCount: 0 }))
      }
    }
  }
  return undefined
}

export const blueskyModule: NetworkModule = {
  network: NETWORK,
  handle,
  opOf: ({ path }) =>
    path.endsWith("createRecord")
      ? "publish"
      : path.endsWith("uploadBlob")
        ? "media"
        : path.endsWith("getAuthorFeed")
          ? "search"
          : path.includes("Session")
            ? "token"
            : "account",
  rejectBody: (status) =>
    err(status ?? 400, "InvalidRequest", `Invalid app.bsky.feed.post record: Record/text must not be longer than ${MAX_GRAPHEMES} graphemes`),
  expiredTokenBody: () => err(400, "ExpiredToken", "Token has expired"),
  seed: (core, input) =>
    seedBlueskyAccount(core, {
      ...(typeof input["handle"] === "string" ? { handle: input["handle"] } : {}),
      ...(typeof input["appPassword"] === "string" ? { appPassword: input["appPassword"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [blueskyModule]
