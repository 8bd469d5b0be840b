import {
  jsonBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * A Listmonk instance's HTTP API as documented (listmonk.app/docs/apis): API users with
 * `Authorization: token user:token` (anything else: 403 "invalid API credentials"); GET
 * /api/lists and /api/lists/{id}; POST /api/media (multipart `file`); POST /api/campaigns
 * (a draft), GET /api/campaigns?query= (name and subject), GET /api/campaigns/{id}, PUT
 * /api/campaigns/{id}/status, where only draft and paused campaigns may start. Answers are
 * `{data: …}`, errors `{message}`. A campaign is recorded as a post when it is made; its
 * status and how often it was started are kept with it (`extra.status`, `extra.starts`).
 */
const NETWORK = "listmonk"

interface User {
  readonly username: string
  readonly token: string
}
interface MailingList {
  readonly id: number
  readonly name: string
  readonly subscribers: number
}
interface Campaign {
  readonly id: number
  readonly name: string
  readonly subject: string
  readonly lists: ReadonlyArray<number>
  readonly body: string
  readonly contentType: string
  readonly createdAt: number
  /** Shared with the recorded post's `extra`, so that tests see the status change. */
  readonly state: { status: string; starts: number }
}

const users = new WeakMap<SimCore, Map<string, User>>()
const lists = new WeakMap<SimCore, Map<number, MailingList>>()
const campaigns = new WeakMap<SimCore, Map<number, Campaign>>()
const mediaCount = new WeakMap<SimCore, Map<string, number>>()

export const seedListmonkAccount = (core: SimCore, input: { readonly list?: string; readonly subscribers?: number } = {}) => {
  const allUsers = stateOf(users, core)
  const user: User = { username: `api${allUsers.size + 1}`, token: `${core.newId()}${core.newId()}` }
  allUsers.set(`${user.username}:${user.token}`, user)
  const allLists = stateOf(lists, core)
  const list: MailingList = { id: allLists.size + 1, name: input.list ?? `Newsletter ${allLists.size + 1}`, subscribers: input.subscribers ?? 120 }
  allLists.set(list.id, list)
  return { instance: core.baseOf(NETWORK), username: user.username, token: user.token, listId: list.id }
}

/** The campaigns the simulated instance holds (status and starts included). */
export const listmonkCampaigns = (core: SimCore): ReadonlyArray<Campaign> => [...stateOf(campaigns, core).values()]

const failure = (status: number, message: string): SimResponse => ({ status, body: { message } })
const ok = (data: unknown): SimResponse => ({ status: 200, body: { data } })

const listJson = (l: MailingList) => ({ id: l.id, name: l.name, type: "public", optin: "single", subscriber_count: l.subscribers, tags: [] })

const campaignJson = (core: SimCore, c: Campaign) => ({
  id: c.id,
  uuid: `00000000-0000-4000-8000-${String(c.id).padStart(12, "0")}`,
  name: c.name,
  subject: c.subject,
  type: "regular",
  status: c.state.status,
  content_type: c.contentType,
  body: c.body,
  lists: c.lists.map((id) => ({ id, name: stateOf(lists, core).get(id)?.name ?? "" })),
  views: c.state.starts > 0 ? 5 : 0,
  clicks: c.state.starts > 0 ? 2 : 0,
  bounces: 0,
  sent: c.state.starts > 0 ? c.lists.reduce((n, id) => n + (stateOf(lists, core).get(id)?.subscribers ?? 0), 0) : 0,
  to_send: c.lists.reduce((n, id) => n + (stateOf(lists, core).get(id)?.subscribers ?? 0), 0),
  created_at: new Date(c.createdAt).toISOString()
})

const text = (value: unknown) => (typeof value === "string" ? value : "")

const createCampaign = (request: SimRequest, core: SimCore): SimResponse => {
  const body = jsonBody(request)
  const input = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
  const name = text(input["name"]).trim()
  const subject = text(input["subject"]).trim()
  if (name === "" || name.length > 200) return failure(400, "invalid length for `name`")
  if (subject === "" || subject.length > 200) return failure(400, "invalid length for `subject`")
  const ids = Array.isArray(input["lists"]) ? input["lists"].filter((x): x is number => typeof x === "number") : []
  const allLists = stateOf(lists, core)
  if (ids.length === 0 || ids.some((id) => !allLists.has(id))) return failure(400, "invalid list IDs")
  const contentType = text(input["content_type"])
  if (!["richtext", "html", "markdown", "plain", "visual"].includes(contentType)) return failure(400, "invalid content type")
  const all = stateOf(campaigns, core)
  const state = { status: "draft", starts: 0 }
  const campaign: Campaign = { id: all.size + 1, name, subject, lists: ids, body: text(input["body"]), contentType, createdAt: Date.now(), state }
  all.set(campaign.id, campaign)
  const images = [...campaign.body.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].flatMap((m) => {
    const size = stateOf(mediaCount, core).get(m[1] ?? "")
    return size === undefined ? [] : [{ id: m[1] ?? "", mime: "image", size }]
  })
  core.record({
    network: NETWORK,
    id: String(campaign.id),
    url: `${core.baseOf(NETWORK)}/admin/campaigns/${campaign.id}`,
    account: String(ids[0]),
    // the text as written, without the image line the adapter puts first
    text: campaign.body.replace(/^!\[[^\]]*\]\([^)]+\)\n\n/, ""),
    replyTo: null,
    media: images,
    dedupeKey: null,
    extra: Object.assign(state, { name, subject, lists: ids, content_type: contentType })
  })
  return ok(campaignJson(core, campaign))
}

const changeStatus = (request: SimRequest, core: SimCore, campaign: Campaign): SimResponse => {
  const body = jsonBody(request)
  const status = typeof body === "object" && body !== null && "status" in body ? text((body as { status: unknown }).status) : ""
  if (status !== "running") return failure(400, `unsupported status ${status}`)
  if (campaign.state.status !== "draft" && campaign.state.status !== "paused") {
    return failure(400, "Only paused and draft campaigns can be started.")
  }
  campaign.state.status = "running"
  campaign.state.starts += 1
  return ok(campaignJson(core, campaign))
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const header = request.headers["authorization"]
  const match = typeof header === "string" ? /^token\s+(.+)$/i.exec(header) : null
  if (match === null || !stateOf(users, core).has(match[1] ?? "")) return failure(403, "invalid API credentials")
  const route = `${request.method} ${request.path}`
  if (route === "GET /api/lists") return ok({ results: [...stateOf(lists, core).values()].map(listJson), total: stateOf(lists, core).size })
  const list = /^GET \/api\/lists\/(\d+)$/.exec(route)
  if (list !== null) {
    const found = stateOf(lists, core).get(Number(list[1]))
    return found === undefined ? failure(404, "List not found.") : ok(listJson(found))
  }
  if (route === "POST /api/media") {
    const file = parseMultipart(request.headers, request.body).files.find((f) => f.field === "file")
    if (file === undefined) return failure(400, "invalid file")
    if (!file.mime.startsWith("image/")) return failure(400, "unsupported file type")
    const url = core.hostFile(file.bytes, file.mime)
    stateOf(mediaCount, core).set(url, file.bytes.length)
    const id = stateOf(mediaCount, core).size
    return ok({ id, uuid: core.newId(), filename: file.filename, content_type: file.mime, url, thumb_url: url })
  }
  if (route === "POST /api/campaigns") return createCampaign(request, core)
  if (route === "GET /api/campaigns") {
    const query = (request.query.get("query") ?? "").replace(/^%|%$/g, "").toLowerCase()
    const perPage = Number(request.query.get("per_page") ?? "20") || 20
    const accounts = new Set(core.posts.filter((p) => p.network === NETWORK).map((p) => p.account))
    const visible = new Set([...accounts].flatMap((account) => core.visiblePosts(NETWORK, account).map((p) => p.id)))
    const results = listmonkCampaigns(core)
      .filter((c) => visible.has(String(c.id)) && `${c.name} ${c.subject}`.toLowerCase().includes(query))
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, perPage)
      .map((c) => campaignJson(core, c))
    return ok({ results, query, total: results.length, per_page: perPage, page: 1 })
  }
  const one = /^(GET|PUT) \/api\/campaigns\/(\d+)(\/status)?$/.exec(route)
  if (one !== null) {
    const campaign = stateOf(campaigns, core).get(Number(one[2]))
    if (campaign === undefined) return failure(404, "Campaign not found.")
    if (one[1] === "GET" && one[3] === undefined) return ok(campaignJson(core, campaign))
    if (one[1] === "PUT" && one[3] === "/status") return changeStatus(request, core, campaign)
  }
  return undefined
}

export const listmonkModule: NetworkModule = {
  network: NETWORK,
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && path === "/api/campaigns"
      ? "publish"
      : method === "PUT" && path.endsWith("/status")
        ? "start"
        : path === "/api/media"
          ? "media"
          : method === "GET" && path === "/api/campaigns"
            ? "search"
            : "account",
  rejectBody: (status) => failure(status ?? 400, "invalid list IDs"),
  expiredTokenBody: () => failure(403, "invalid API credentials"),
  seed: (core, input) =>
    seedListmonkAccount(core, {
      ...(typeof input["list"] === "string" ? { list: input["list"] } : {}),
      ...(typeof input["subscribers"] === "number" ? { subscribers: input["subscribers"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [listmonkModule]
