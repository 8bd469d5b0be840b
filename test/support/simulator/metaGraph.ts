import { bearerOf, type SimCore, type SimRequest, type SimResponse, stateOf } from "./core.js"

/**
 * What the simulated Instagram (both logins) and Threads share, as Meta documents its Graph
 * API: the error body (`{error: {message, type, code, error_subcode, fbtrace_id}}`, code 190
 * for a token that expired), tokens as a bearer header or `access_token`, parameters in the
 * query or a form body, the version prefix (`/v21.0/…`) optional, and media containers:
 * made from a public address that the network fetches itself, processed for
 * `core.processingMs()`, published once, expiring after 24 hours.
 */

export interface GraphAccount {
  readonly network: string
  readonly id: string
  readonly username: string
  readonly name: string
  /** BUSINESS, MEDIA_CREATOR or PERSONAL (Instagram); Threads accounts are all "THREADS". */
  readonly accountType: string
  /** Posts the account may publish per 24 hours (Instagram's content_publishing_limit). */
  cap: number
  readonly publishedAt: Array<number>
}

export interface Container {
  readonly id: string
  readonly network: string
  readonly owner: string
  readonly params: Readonly<Record<string, string>>
  readonly mediaType: string
  readonly children: ReadonlyArray<string>
  readonly createdAt: number
  readonly file: { readonly mime: string; readonly size: number } | null
  /** Why processing failed, in the network's words. */
  error: string | null
  /** The published post's id, once published. */
  mediaId: string | null
  expired: boolean
}

export interface GraphMedia {
  readonly id: string
  readonly network: string
  readonly owner: string
  readonly caption: string
  readonly permalink: string
  readonly timestamp: string
  readonly mediaType: string
  readonly replyTo: string | null
}

const accounts = new WeakMap<SimCore, Map<string, GraphAccount>>()
const containers = new WeakMap<SimCore, Map<string, Container>>()
const media = new WeakMap<SimCore, Map<string, GraphMedia>>()

export const accountsOf = (core: SimCore) => stateOf(accounts, core)
export const containersOf = (core: SimCore) => stateOf(containers, core)
export const mediaOf = (core: SimCore) => stateOf(media, core)

export const DAY_MS = 86_400_000
const CONTAINER_LIFETIME_MS = DAY_MS

/** A numeric Graph id (Meta's ids are long decimal strings). */
let counter = 0
export const graphId = (_core: SimCore) => `1784${String(Date.now()).slice(-9)}${String(++counter % 10_000).padStart(4, "0")}`

export const graphError = (
  status: number,
  message: string,
  code: number,
  extra: { readonly subcode?: number; readonly userTitle?: string; readonly userMessage?: string; readonly type?: string } = {}
): SimResponse => ({
  status,
  body: {
    error: {
      message,
      type: extra.type ?? "OAuthException",
      code,
      ...(extra.subcode === undefined ? {} : { error_subcode: extra.subcode }),
      ...(extra.userTitle === undefined ? {} : { error_user_title: extra.userTitle }),
      ...(extra.userMessage === undefined ? {} : { error_user_msg: extra.userMessage }),
      is_transient: false,
      fbtrace_id: `A${Math.random().toString(36).slice(2, 12)}`
    }
  }
})

/** Graph's answer to an access token that expired (code 190, subcode 463). */
export const expiredTokenError = () =>
  graphError(400, `Error validating access token: Session has expired on ${new Date(Date.now() - 3600_000).toUTCString()}.`, 190, { subcode: 463 })
export const invalidTokenError = () => graphError(400, "Invalid OAuth access token - Cannot parse access token", 190)

/** Query, form body and JSON body parameters together (Graph takes them anywhere). */
export const paramsOf = (request: SimRequest): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of request.query) out[k] = v
  const text = request.body.toString("utf8")
  if (text.length > 0) {
    const type = String(request.headers["content-type"] ?? "")
    if (type.includes("json")) {
      try {
        const json = JSON.parse(text) as unknown
        if (typeof json === "object" && json !== null)
          for (const [k, v] of Object.entries(json)) out[k] = typeof v === "string" ? v : JSON.stringify(v)
      } catch {
        // not JSON: no parameters
      }
    } else for (const [k, v] of new URLSearchParams(text)) out[k] = v
  }
  return out
}

/** The path without Graph's version prefix. */
export const unversioned = (path: string) => path.replace(/^\/v\d+\.\d+(?=\/)/, "")

/** The access token of a request (bearer header or `access_token`). */
export const tokenOfRequest = (request: SimRequest, params: Record<string, string>) => bearerOf(request) ?? params["access_token"]

/** Whether a token is one this network issued that has expired (to answer 190/463 rather than "cannot parse"). */
export const isExpired = (core: SimCore, network: string, token: string | undefined) => {
  const found = token === undefined ? undefined : core.tokens.get(token)
  return found !== undefined && found.network === network && found.expiresAt !== null && found.expiresAt < Date.now()
}

export const newAccount = (
  core: SimCore,
  network: string,
  input: { readonly username?: string; readonly name?: string; readonly accountType?: string; readonly cap?: number }
): GraphAccount => {
  const id = graphId(core)
  const account: GraphAccount = {
    network,
    id,
    username: input.username ?? `user${id.slice(-5)}`,
    name: input.name ?? input.username ?? `User ${id.slice(-5)}`,
    accountType: input.accountType ?? "BUSINESS",
    cap: input.cap ?? 50,
    publishedAt: []
  }
  accountsOf(core).set(id, account)
  return account
}

/** Published in the last 24 hours (the cap's window). */
export const usageOf = (account: GraphAccount) => account.publishedAt.filter((t) => Date.now() - t < DAY_MS).length

/** A container's status now: the network's words for where it stands. */
export const statusOf = (core: SimCore, container: Container): "FINISHED" | "IN_PROGRESS" | "ERROR" | "EXPIRED" | "PUBLISHED" => {
  if (container.mediaId !== null) return "PUBLISHED"
  if (container.expired || Date.now() - container.createdAt > CONTAINER_LIFETIME_MS) return "EXPIRED"
  if (container.error !== null) return "ERROR"
  const all = containersOf(core)
  for (const childId of container.children) {
    const child = all.get(childId)
    if (child === undefined) continue
    const s = statusOf(core, child)
    if (s === "ERROR") {
      container.error = child.error
      return "ERROR"
    }
    if (s === "IN_PROGRESS") return "IN_PROGRESS"
  }
  // processing takes the simulator's current processing time (changing it applies to containers made before)
  return Date.now() < container.createdAt + core.processingMs() ? "IN_PROGRESS" : "FINISHED"
}

/** Every container of the simulator expires (as 24 hours later): for tests of a new container after EXPIRED. */
export const expireContainers = (core: SimCore, network: string) => {
  for (const c of containersOf(core).values()) if (c.network === network && c.mediaId === null) c.expired = true
}

/**
 * Makes a container: fetches its media from the given address as the network does, and
 * fails it (ERROR with `downloadError`) when the address does not give a photo or video.
 */
export const makeContainer = async (
  core: SimCore,
  input: {
    readonly network: string
    readonly owner: string
    readonly params: Readonly<Record<string, string>>
    readonly mediaType: string
    readonly children: ReadonlyArray<string>
    readonly downloadError: (video: boolean, why: string) => string
  }
): Promise<Container> => {
  const url = input.params["video_url"] ?? input.params["image_url"]
  const video = input.params["video_url"] !== undefined
  let file: Container["file"] = null
  let error: string | null = null
  if (url !== undefined) {
    const fetched = await core.fetchMedia(url)
    if (!fetched.ok) error = input.downloadError(video, fetched.reason)
    else if (!fetched.mime.startsWith(video ? "video/" : "image/") || fetched.bytes.length === 0)
      error = input.downloadError(video, `the address gave ${fetched.mime}, not ${video ? "a video" : "a photo"}`)
    else file = { mime: fetched.mime, size: fetched.bytes.length }
  }
  const container: Container = {
    id: graphId(core),
    network: input.network,
    owner: input.owner,
    params: input.params,
    mediaType: input.mediaType,
    children: input.children,
    createdAt: Date.now(),
    file,
    error,
    mediaId: null,
    expired: false
  }
  containersOf(core).set(container.id, container)
  return container
}

/** The files of a container (its own, or its carousel items') as a recorded post holds them. */
export const filesOf = (core: SimCore, container: Container) => {
  const all = containersOf(core)
  const items = container.children.length > 0 ? container.children.map((id) => all.get(id)).filter((c) => c !== undefined) : [container]
  return items.flatMap((c) =>
    c.file === null
      ? []
      : [{ id: c.id, mime: c.file.mime, size: c.file.size, ...(c.params["alt_text"] === undefined ? {} : { alt: c.params["alt_text"] }) }]
  )
}

/** Insights of a post as Graph gives them (`{data: [{name, period, values, title, id}]}`), made-up but steady numbers. */
export const insightsOf = (mediaId: string, metrics: ReadonlyArray<string>) => ({
  data: metrics.map((name, i) => ({
    name,
    period: "lifetime",
    values: [{ value: ((Number(mediaId.slice(-3)) || 7) * (i + 3)) % 97 }],
    title: name.charAt(0).toUpperCase() + name.slice(1),
    description: `${name} of the post`,
    id: `${mediaId}/insights/${name}/lifetime`
  }))
})

/** A page of listed objects (`{data, paging}`). */
export const page = <A>(data: ReadonlyArray<A>) => ({ data, paging: { cursors: { before: "QVFIUk", after: "QVFIUm" } } })
