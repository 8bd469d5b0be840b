import { createHash } from "node:crypto"
import {
  jsonBody,
  type NetworkModule,
  type SimCore,
  type SimPost,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Neynar's Farcaster API as documented (docs.neynar.com/reference): `x-api-key` on every
 * call; GET /v2/farcaster/signer (status of a managed signer, paired with the API key that
 * made it), GET /v2/farcaster/user/bulk, POST /v2/farcaster/cast (text, at most 2 embeds
 * by url, parent hash, idem), GET /v2/farcaster/feed/user/casts and GET /v2/farcaster/cast.
 * Errors are ErrorRes `{message, code, property}` with the HTTP status.
 */
const NETWORK = "warpcast"
/** Farcaster's cast text limit in bytes (long casts). */
const MAX_TEXT_BYTES = 1024
const MAX_EMBEDS = 2

interface Account {
  readonly fid: number
  readonly username: string
  readonly apiKey: string
  readonly signerUuid: string
  readonly status: "approved" | "pending_approval" | "revoked"
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
/** idem → cast hash, per signer. */
const idems = new WeakMap<SimCore, Map<string, string>>()

/** An account with an API key and a managed signer for it (approved unless told otherwise). */
export const seedWarpcastAccount = (core: SimCore, input: { readonly username?: string; readonly status?: Account["status"] } = {}) => {
  const all = stateOf(accounts, core)
  const fid = 800000 + all.size + 1
  const account: Account = {
    fid,
    username: input.username ?? `caster${all.size + 1}`,
    apiKey: `NEYNAR-${core.newId()}`.toUpperCase(),
    signerUuid: crypto.randomUUID(),
    status: input.status ?? "approved"
  }
  all.set(account.signerUuid, account)
  return { apiKey: account.apiKey, signerUuid: account.signerUuid }
}

const error = (status: number, message: string, code?: string, property?: string): SimResponse => ({
  status,
  body: { message, ...(code === undefined ? {} : { code }), ...(property === undefined ? {} : { property }) }
})

const userJson = (a: Account) => ({
  object: "user",
  fid: a.fid,
  username: a.username,
  display_name: a.username[0]!.toUpperCase() + a.username.slice(1),
  pfp_url: `https://imagedelivery.net/${a.fid}.png`,
  follower_count: 12,
  following_count: 3
})

const castJson = (core: SimCore, post: SimPost, a: Account) => ({
  object: "cast",
  hash: post.id,
  parent_hash: post.replyTo,
  author: { object: "user", fid: a.fid, username: a.username },
  text: post.text,
  timestamp: post.at.toISOString(),
  embeds: post.extra["embeds"] ?? [],
  reactions: { likes_count: 5, recasts_count: 2 },
  replies: { count: core.posts.filter((p) => p.network === NETWORK && p.replyTo === post.id).length }
})

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const { method, path } = request
  if (!path.startsWith("/v2/farcaster/")) return undefined
  const apiKey = request.headers["x-api-key"]
  const all = [...stateOf(accounts, core).values()]
  if (typeof apiKey !== "string" || !all.some((a) => a.apiKey === apiKey)) return error(401, "Unauthorized: invalid API key", "Unauthorized")
  const route = `${method} ${path.replace(/\/$/, "")}`
  const byFid = (fid: string | null) => all.find((a) => String(a.fid) === fid)

  if (route === "GET /v2/farcaster/signer") {
    const signer = stateOf(accounts, core).get(request.query.get("signer_uuid") ?? "")
    // a signer is paired with the API key that made it
    if (signer === undefined || signer.apiKey !== apiKey) return error(404, "Signer not found", "NotFound", "signer_uuid")
    return {
      status: 200,
      body: {
        object: "signer",
        signer_uuid: signer.signerUuid,
        public_key: `0x${createHash("sha256").update(signer.signerUuid).digest("hex")}`,
        status: signer.status,
        ...(signer.status === "approved"
          ? { fid: signer.fid }
          : { signer_approval_url: `https://client.farcaster.xyz/deeplinks/signed-key-request?token=${signer.signerUuid}` })
      }
    }
  }
  if (route === "GET /v2/farcaster/user/bulk") {
    const fids = (request.query.get("fids") ?? "").split(",")
    return { status: 200, body: { users: all.filter((a) => fids.includes(String(a.fid))).map(userJson) } }
  }
  if (route === "POST /v2/farcaster/cast") {
    const body = jsonBody(request)
    const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
    const signer = stateOf(accounts, core).get(String(fields["signer_uuid"] ?? ""))
    if (signer === undefined || signer.apiKey !== apiKey) return error(400, "Invalid signer_uuid", "InvalidField", "signer_uuid")
    if (signer.status !== "approved") return error(403, "Signer is not approved", "SignerNotApproved", "signer_uuid")
    const idem = typeof fields["idem"] === "string" ? fields["idem"] : null
    const key = idem === null ? null : `${signer.signerUuid}:${idem}`
    const earlier = key === null ? undefined : stateOf(idems, core).get(key)
    const seen = earlier === undefined ? undefined : core.posts.find((p) => p.network === NETWORK && p.id === earlier)
    if (seen !== undefined) return { status: 200, body: { success: true, cast: castJson(core, seen, signer) } }
    const text = typeof fields["text"] === "string" ? fields["text"] : ""
    const embeds = Array.isArray(fields["embeds"]) ? (fields["embeds"] as ReadonlyArray<unknown>) : []
    if (Buffer.byteLength(text, "utf8") > MAX_TEXT_BYTES)
      return error(400, `Text is too long: at most ${MAX_TEXT_BYTES} bytes`, "InvalidField", "text")
    if (embeds.length > MAX_EMBEDS) return error(400, `At most ${MAX_EMBEDS} embeds`, "InvalidField", "embeds")
    const urls = embeds.map((e) => (typeof e === "object" && e !== null && "url" in e && typeof e.url === "string" ? e.url : null))
    if (urls.some((u) => u === null)) return error(400, "Each embed needs a url", "InvalidField", "embeds")
    if (text === "" && urls.length === 0) return error(400, "Text or embeds are required", "InvalidField", "text")
    const parent = typeof fields["parent"] === "string" ? fields["parent"] : null
    if (parent !== null && !core.posts.some((p) => p.network === NETWORK && p.id === parent)) {
      return error(400, "Parent cast not found", "InvalidField", "parent")
    }
    // the clients fetch embeds themselves: what they would find is recorded
    const media = await Promise.all(
      (urls as ReadonlyArray<string>).map(async (url) => {
        const fetched = await core.fetchMedia(url)
        return { id: url, mime: fetched.ok ? fetched.mime : "unknown", size: fetched.ok ? fetched.bytes.length : 0 }
      })
    )
    const hash = `0x${createHash("sha1").update(`${signer.fid}:${core.newId()}`).digest("hex")}`
    core.record({
      network: NETWORK,
      id: hash,
      url: `https://farcaster.xyz/${signer.username}/${hash.slice(0, 10)}`,
      account: String(signer.fid),
      text,
      replyTo: parent,
      media,
      dedupeKey: idem,
      extra: { embeds: urls.map((url) => ({ url })) }
    })
    if (key !== null) stateOf(idems, core).set(key, hash)
    return { status: 200, body: { success: true, cast: { hash, author: { fid: signer.fid }, text } } }
  }
  if (route === "GET /v2/farcaster/feed/user/casts") {
    const account = byFid(request.query.get("fid"))
    if (account === undefined) return error(400, "Invalid fid", "InvalidField", "fid")
    const limit = Math.min(150, Number(request.query.get("limit") ?? "25"))
    const withReplies = request.query.get("include_replies") !== "false"
    const casts = core
      .visiblePosts(NETWORK, String(account.fid))
      .filter((p) => withReplies || p.replyTo === null)
      .slice()
      .reverse()
      .slice(0, limit)
    return { status: 200, body: { casts: casts.map((p) => castJson(core, p, account)), next: { cursor: null } } }
  }
  if (route === "GET /v2/farcaster/cast") {
    const post = core.posts.find((p) => p.network === NETWORK && p.id === request.query.get("identifier"))
    const author = post === undefined ? undefined : byFid(post.account)
    if (post === undefined || author === undefined) return error(404, "Cast not found", "NotFound", "identifier")
    return { status: 200, body: { cast: castJson(core, post, author) } }
  }
  return undefined
}

export const warpcastModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ WARPCAST_API_URL: base }),
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && /^\/v2\/farcaster\/cast\/?$/.test(path) ? "publish" : path.startsWith("/v2/farcaster/feed/") ? "search" : "account",
  rejectBody: (status) => error(status ?? 400, `Text is too long: at most ${MAX_TEXT_BYTES} bytes`, "InvalidField", "text"),
  expiredTokenBody: () => error(401, "Unauthorized: invalid API key", "Unauthorized"),
  seed: (core, input) =>
    seedWarpcastAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(input["status"] === "pending_approval" || input["status"] === "revoked" ? { status: input["status"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [warpcastModule]
