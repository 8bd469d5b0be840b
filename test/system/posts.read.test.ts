import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"
import { client, decoded, errorOf } from "../support/http.js"
import { jpeg } from "../support/mediaFiles.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { answerOf, present, wholePost } from "../support/answers.js"

/**
 * GET /posts (Post row) and GET /posts/{id} (whole post), and 404 for another
 * workspace's post on every post endpoint. Spec: "Posts", "Resources: Post row, Whole
 * post", "Channel post states" (legacy state mapping), Limits rule 6.
 */

let world: TestWorld
let sys: RunningServices
// a file server on loopback: a post's image given by path is imported from it
let origin: LoopbackServer
let originUrl: string

beforeAll(async () => {
  origin = await startLoopbackServer((_req, res) => {
    const body = jpeg(12, 8)
    res.writeHead(200, { "content-type": "image/jpeg", "content-length": body.length }).end(body)
  })
  originUrl = origin.url("")
  world = await createWorld("postsread")
  sys = await startServices(world, undefined, { OUTBOUND_ALLOW: `127.0.0.1:${origin.origin.port}` })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await origin?.close()
})

const DAY = 86_400_000
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString()
const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const newWorkspace = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const api = client(sys.url, apiKey)
  const channel = async (name: string, customerId: string | null = null) =>
    (await sys.admin.createChannel({ workspaceId, network: "test", name, customerId, postingTimes: [] })).channelId
  /** Creates a post; returns the answer rows. */
  const create = async (body: Record<string, unknown>) => {
    const res = await api.post("/public/v1/posts", body)
    expect(res.status).toBe(200)
    return res.json as Array<{ postId: string; group: string; integration: string; status: string; previewUrl: string }>
  }
  const draftAt = (channelIds: ReadonlyArray<string>, date: string, content = "Draft") =>
    create({ type: "draft", date, posts: channelIds.map((id) => ({ integration: { id }, value: [{ content }] })) })
  return { workspaceId, apiKey, api, channel, create, draftAt }
}

const list = async (api: ReturnType<typeof client>, query = "") => {
  const res = await api.get(`/public/v1/posts${query}`)
  expect(res.status).toBe(200)
  return decoded(res, answerOf("posts", "listPosts")).posts
}

const range = (from: number, to: number) => `?startDate=${encodeURIComponent(at(from))}&endDate=${encodeURIComponent(at(to))}`

describe("GET /posts: range", () => {
  it("default range is 30 days back to 30 days ahead", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    await w.draftAt([a], at(-31 * DAY), "31 days ago")
    const recent = await w.draftAt([a], at(-29 * DAY), "29 days ago")
    const soon = await w.draftAt([a], at(10 * DAY), "in 10 days")
    await w.draftAt([a], at(31 * DAY), "in 31 days")
    const rows = await list(w.api)
    expect(rows.map((r) => r.content)).toEqual(["29 days ago", "in 10 days"])
    expect(rows.map((r) => r.id)).toEqual([recent[0]!.postId, soon[0]!.postId])
  })

  it("startDate and endDate choose the range", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    await w.draftAt([a], at(-40 * DAY), "40 days ago")
    await w.draftAt([a], at(-31 * DAY), "31 days ago")
    await w.draftAt([a], at(10 * DAY), "in 10 days")
    expect((await list(w.api, range(-45 * DAY, -30 * DAY))).map((r) => r.content)).toEqual(["40 days ago", "31 days ago"])
    expect((await list(w.api, range(-35 * DAY, 20 * DAY))).map((r) => r.content)).toEqual(["31 days ago", "in 10 days"])
    expect(await list(w.api, range(-20 * DAY, -10 * DAY))).toEqual([])
    // only one end given: the other keeps its default
    expect((await list(w.api, `?startDate=${encodeURIComponent(at(-45 * DAY))}`)).map((r) => r.content)).toEqual([
      "40 days ago",
      "31 days ago",
      "in 10 days"
    ])
  })

  it("a startDate that cannot be parsed gives 400", async () => {
    const w = await newWorkspace()
    const res = await w.api.get("/public/v1/posts?startDate=yesterday")
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/ISO 8601/)
  })

  it("oldest first, one row per channel, follow-up comments not listed", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    await w.draftAt([a], at(3 * DAY), "third")
    const first = await w.create({
      type: "draft",
      date: at(1 * DAY),
      posts: [
        { integration: { id: a }, value: [{ content: "first A" }, { content: "comment 1", delay: 1 }, { content: "comment 2", delay: 1 }] },
        { integration: { id: b }, value: [{ content: "first B" }, { content: "comment B", delay: 1 }] }
      ]
    })
    await w.draftAt([b], at(2 * DAY), "second")
    const rows = await list(w.api)
    expect(rows.map((r) => r.content)).toEqual(["first A", "first B", "second", "third"])
    const ofFirst = rows.filter((r) => r.group === first[0]!.group)
    expect(ofFirst).toHaveLength(2)
    expect(new Set(ofFirst.map((r) => r.id))).toEqual(new Set(first.map((r) => r.postId)))
    expect(ofFirst.map((r) => r.integration.id).sort()).toEqual([a, b].sort())
    const publishDates = rows.map((r) => Date.parse(r.publishDate))
    expect([...publishDates].sort((x, y) => x - y)).toEqual(publishDates)
    expect(rows.some((r) => /comment/.test(r.content))).toBe(false)
  })

  it("customer: only posts on channels of this customer", async () => {
    const w = await newWorkspace()
    const { customerId: acme } = await sys.admin.createCustomer({ workspaceId: w.workspaceId, name: "Acme", approval: false })
    const { customerId: other } = await sys.admin.createCustomer({ workspaceId: w.workspaceId, name: "Other", approval: false })
    const acmeChannel = await w.channel("Acme channel", acme)
    const otherChannel = await w.channel("Other channel", other)
    const plain = await w.channel("No customer")
    const mixed = await w.draftAt([acmeChannel, otherChannel, plain], at(DAY), "on three channels")
    await w.draftAt([otherChannel], at(2 * DAY), "other only")
    const rows = await list(w.api, `?customer=${acme}`)
    expect(rows.map((r) => [r.integration.id, r.content])).toEqual([[acmeChannel, "on three channels"]])
    expect(rows[0]?.id).toBe(mixed.find((m) => m.integration === acmeChannel)!.postId)
    expect((await list(w.api, `?customer=${other}`)).map((r) => r.content)).toEqual(["on three channels", "other only"])
    expect(await list(w.api)).toHaveLength(4)
  })

  it("another workspace's posts are never listed", async () => {
    const mine = await newWorkspace()
    const theirs = await newWorkspace()
    await theirs.draftAt([await theirs.channel("Theirs")], at(DAY), "theirs")
    expect(await list(mine.api)).toEqual([])
  })

  it("deleted posts are not listed", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const gone = await w.draftAt([a], at(DAY), "gone")
    await w.draftAt([a], at(DAY), "kept")
    expect((await w.api.del(`/public/v1/posts/${gone[0]!.postId}`)).status).toBe(200)
    expect((await list(w.api)).map((r) => r.content)).toEqual(["kept"])
  })
})

describe("GET /posts: Post row fields", () => {
  it("every field of the Post row table, with its type", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const mediaId = crypto.randomUUID()
    await withDb(world, (c) =>
      c.query(
        `INSERT INTO media (id, workspace_id, name, original_name, storage_key, path, mime, type, size, width, height, alt)
         VALUES ($1, $2, 'p.png', 'p.png', 'k', 'https://media.example.com/p.png', 'image/png', 'image', 10, 2, 2, 'alt text')`,
        [mediaId, w.workspaceId]
      )
    )
    const date = at(5 * DAY)
    const [created] = await w.create({
      type: "schedule",
      date,
      inter: 3,
      tags: [{ value: "launch", label: "Launch" }],
      posts: [{ integration: { id: a }, value: [{ content: "Fields", image: [{ id: mediaId }] }], settings: { audience: "followers" } }]
    })
    const rows = await list(w.api)
    expect(rows).toHaveLength(1)
    const row = present(rows[0], "the row")
    expect(Object.keys(row)).toEqual(
      expect.arrayContaining([
        "id",
        "group",
        "content",
        "publishDate",
        "releaseURL",
        "releaseId",
        "state",
        "status",
        "error",
        "intervalInDays",
        "creationMethod",
        "settings",
        "tags",
        "image",
        "integration"
      ])
    )
    expect(row).toMatchObject({
      id: created!.postId,
      group: created!.group,
      content: "Fields",
      publishDate: date,
      releaseURL: null,
      releaseId: null,
      state: "QUEUE",
      status: "queued",
      error: null,
      intervalInDays: 3,
      creationMethod: "api",
      settings: { __type: "test", audience: "followers" },
      image: [{ id: mediaId, path: "https://media.example.com/p.png", alt: "alt text" }],
      integration: { id: a, providerIdentifier: "test", name: "Alpha", picture: null }
    })
    expect(row.publishDate).toMatch(iso)
    expect(row.tags).toHaveLength(1)
    expect(row.tags[0]?.tag).toEqual({ id: expect.stringMatching(uuid), name: "Launch", color: expect.stringMatching(/^#[0-9a-fA-F]{3,8}$/) })
    expect(Object.keys(row.integration).sort()).toEqual(["id", "name", "picture", "providerIdentifier"])
  })

  it("legacy state for each status: draft DRAFT; queued, publishing, pending QUEUE; published PUBLISHED; error, unconfirmed ERROR", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [draft] = await w.draftAt([a], at(DAY), "draft")
    const [queued] = await w.create({ date: at(DAY), posts: [{ integration: { id: a }, value: [{ content: "queued" }] }] })
    const [now] = await w.create({ type: "now", posts: [{ integration: { id: a }, value: [{ content: "now" }] }] })
    const forced: Record<string, string> = {}
    for (const status of ["publishing", "pending", "error", "unconfirmed"]) {
      const [p] = await w.create({ date: at(2 * DAY), posts: [{ integration: { id: a }, value: [{ content: status }] }] })
      forced[status] = p!.postId
      const error = status === "error" || status === "unconfirmed" ? JSON.stringify({ message: `It ${status}.`, fix: `Fix ${status}.` }) : null
      await withDb(world, (c) => c.query("UPDATE posts SET status = $1, error = $2 WHERE id = $3", [status, error, p!.postId]))
    }
    await waitFor("the now post was not published", async () => {
      const row = (await list(w.api)).find((r) => r.id === now!.postId)
      return row?.status === "published" ? row : undefined
    })
    const rows = await list(w.api)
    const byId = (id: string) => rows.find((r) => r.id === id)
    expect(byId(draft!.postId)).toMatchObject({ status: "draft", state: "DRAFT", error: null })
    expect(byId(queued!.postId)).toMatchObject({ status: "queued", state: "QUEUE", error: null })
    expect(byId(forced["publishing"]!)).toMatchObject({ status: "publishing", state: "QUEUE" })
    expect(byId(forced["pending"]!)).toMatchObject({ status: "pending", state: "QUEUE" })
    expect(byId(forced["error"]!)).toMatchObject({ status: "error", state: "ERROR", error: { message: "It error.", fix: "Fix error." } })
    expect(byId(forced["unconfirmed"]!)).toMatchObject({
      status: "unconfirmed",
      state: "ERROR",
      error: { message: "It unconfirmed.", fix: "Fix unconfirmed." }
    })
    const published = present(byId(now!.postId), "the published row")
    expect(published).toMatchObject({ status: "published", state: "PUBLISHED", error: null })
    expect(published.releaseId).toEqual(expect.any(String))
    expect(published.releaseURL).toEqual(expect.any(String))
  })
})

describe("GET /posts/{id}: the whole post", () => {
  it("by per-channel id and by group id: the same whole post with every field", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const date = at(DAY)
    const created = await w.create({
      date,
      tags: [{ value: "t", label: "Tagged" }],
      posts: [
        {
          integration: { id: a },
          value: [
            { content: "root A", image: [{ id: "cli-id", path: `${originUrl}/x.jpg`, alt: "X" }] },
            { content: "reply A", delay: 4 }
          ]
        },
        { integration: { id: b }, value: [{ content: "root B" }] }
      ]
    })
    const byGroup = await w.api.get(`/public/v1/posts/${created[0]!.group}`)
    const byChannelA = await w.api.get(`/public/v1/posts/${created[0]!.postId}`)
    const byChannelB = await w.api.get(`/public/v1/posts/${created[1]!.postId}`)
    expect(byGroup.status).toBe(200)
    expect(byChannelA.json).toEqual(byGroup.json)
    expect(byChannelB.json).toEqual(byGroup.json)
    const post = wholePost(byGroup)
    expect(post).toMatchObject({
      id: created[0]!.group,
      status: "scheduled",
      approvalStatus: null,
      approvedBy: null,
      publishAt: date,
      repeatDays: null,
      shortLink: false,
      creationMethod: "api",
      shareUrl: created[0]!.previewUrl,
      comments: []
    })
    expect(post.createdAt).toMatch(iso)
    expect(post.updatedAt).toMatch(iso)
    expect(post.tags).toEqual([{ id: expect.stringMatching(uuid), name: "Tagged", color: expect.any(String) }])
    expect(post.activity).toEqual([{ actor: "API", action: "created", detail: null, created_at: expect.stringMatching(iso) }])
    expect(post.channels).toHaveLength(2)
    const ca = present(
      post.channels.find((c) => c.channelId === a),
      "channel a"
    )
    expect(ca).toMatchObject({ channelId: a, channelName: "Alpha", provider: "test", picture: null, username: expect.any(String) })
    expect(ca.root).toEqual({
      id: expect.stringMatching(uuid),
      channelId: a,
      position: 0,
      content: "root A",
      // imported into the library: its id, address, type and size
      media: [
        {
          id: expect.stringMatching(uuid),
          alt: "X",
          url: expect.stringMatching(/\/media\//),
          mime: "image/jpeg",
          name: "x.jpg",
          size: jpeg(12, 8).length,
          type: "image",
          width: 12,
          height: 8,
          facts: expect.objectContaining({ kind: "image", format: "jpeg", width: 12, height: 8 })
        }
      ],
      settings: expect.objectContaining({ __type: "test" }),
      delay: 0,
      state: "queued",
      releaseId: null,
      releaseUrl: null,
      publishedAt: null,
      error: null,
      held: null,
      heldAt: null,
      waitingFor: null,
      attempts: 0
    })
    expect(ca.thread).toHaveLength(1)
    expect(ca.thread[0]).toMatchObject({ channelId: a, position: 1, content: "reply A", delay: 4, media: [], attempts: 0 })
    expect(ca.thread[0]?.id).not.toBe(ca.root.id)
    // per-channel item ids are not the per-channel post ids of GET /posts
    const cb = present(
      post.channels.find((c) => c.channelId === b),
      "channel b"
    )
    expect(cb.root.content).toBe("root B")
    expect(cb.thread).toEqual([])
  })

  it("a published post: item releaseId, releaseUrl, publishedAt and attempts", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.create({ type: "now", posts: [{ integration: { id: a }, value: [{ content: "go" }] }] })
    const post = await waitFor("not published", async () => {
      const res = await w.api.get(`/public/v1/posts/${p!.postId}`)
      const whole = wholePost(res)
      return whole.channels[0]?.root.state === "published" ? whole : undefined
    })
    expect(post.status).toBe("published")
    const root = present(post.channels[0], "the first channel").root
    expect(root.releaseId).toEqual(expect.any(String))
    expect(root.releaseUrl).toEqual(expect.any(String))
    expect(root.publishedAt).toMatch(iso)
    expect(root.attempts).toBeGreaterThanOrEqual(1)
    expect(root.error).toBeNull()
  })

  it("approval fields of a post in review", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.create({ type: "review", date: at(DAY), posts: [{ integration: { id: a }, value: [{ content: "approve me" }] }] })
    const post = wholePost(await w.api.get(`/public/v1/posts/${p!.group}`))
    expect(post).toMatchObject({ status: "review", approvalStatus: "requested", approvedBy: null })
    expect(post.shareUrl).toBe(p!.previewUrl)
  })

  it("an id that is not a UUID gives 400 One of the ids is not valid.", async () => {
    const w = await newWorkspace()
    const res = await w.api.get("/public/v1/posts/not-a-uuid")
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({
      error: "One of the ids is not valid.",
      msg: "One of the ids is not valid.",
      fix: "Check the id. Copy it again from the list it came from."
    })
  })

  it("an unknown id gives 404 Post not found", async () => {
    const w = await newWorkspace()
    const res = await w.api.get(`/public/v1/posts/${crypto.randomUUID()}`)
    expect(res.status).toBe(404)
    expect(res.json).toMatchObject({ error: "Post not found", msg: "Post not found" })
  })
})

describe("Another workspace's post: 404 on every post endpoint", () => {
  it("GET, PUT date/status/settings, retry, missing, release-id, DELETE by id and by group: 404, and the post is unchanged", async () => {
    const owner = await newWorkspace()
    const stranger = await newWorkspace()
    const a = await owner.channel("Alpha")
    await stranger.channel("Stranger's channel")
    const date = at(2 * DAY)
    const [p] = await owner.create({ date, posts: [{ integration: { id: a }, value: [{ content: "private" }], settings: { audience: "everyone" } }] })
    const before = wholePost(await owner.api.get(`/public/v1/posts/${p!.group}`))
    for (const id of [p!.postId, p!.group]) {
      const attempts = [
        ["GET /posts/{id}", await stranger.api.get(`/public/v1/posts/${id}`)],
        ["PUT date", await stranger.api.put(`/public/v1/posts/${id}/date`, { date: at(3 * DAY) })],
        ["PUT status draft", await stranger.api.put(`/public/v1/posts/${id}/status`, { status: "draft" })],
        ["PUT status schedule", await stranger.api.put(`/public/v1/posts/${id}/status`, { status: "schedule" })],
        ["PUT settings", await stranger.api.put(`/public/v1/posts/${id}/settings`, { settings: { audience: "followers" } })],
        ["POST retry", await stranger.api.post(`/public/v1/posts/${id}/retry`)],
        ["GET missing", await stranger.api.get(`/public/v1/posts/${id}/missing`)],
        ["PUT release-id", await stranger.api.put(`/public/v1/posts/${id}/release-id`, { releaseId: "stolen" })],
        ["DELETE /posts/{id}", await stranger.api.del(`/public/v1/posts/${id}`)],
        ["DELETE /posts/group/{group}", await stranger.api.del(`/public/v1/posts/group/${id}`)]
      ] as const
      for (const [what, res] of attempts) {
        expect({ what, id, status: res.status }).toEqual({ what, id, status: 404 })
      }
      // the spec's own post endpoints answer the catalog's message
      for (const [what, res] of attempts.filter(([w]) => !["POST retry", "GET missing", "PUT release-id"].includes(w))) {
        expect({ what, error: errorOf(res).error }).toEqual({ what, error: "Post not found" })
      }
    }
    // editing through POST /posts with groupId is refused too
    const edit = await stranger.api.post("/public/v1/posts", {
      type: "draft",
      groupId: p!.group,
      posts: [{ integration: { id: a }, value: [{ content: "hijacked" }] }]
    })
    expect(edit.status).toBe(404)
    const after = wholePost(await owner.api.get(`/public/v1/posts/${p!.group}`))
    expect(after).toEqual(before)
    expect(after.channels[0]?.root).toMatchObject({ content: "private", state: "queued" })
    expect(after.publishAt).toBe(date)
    expect(after.channels[0]?.root.settings.audience).toBe("everyone")
  })
})
