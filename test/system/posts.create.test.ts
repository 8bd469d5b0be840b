import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answerOf, created as createdRow, present, wholePost } from "../support/answers.js"
import { type Answer, client, decoded, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

/**
 * POST /posts (spec "Posts": body table, simpler body, rules 1-2, 5; "States and
 * transitions" rows for POST /posts; "Limits" rule 8; "Versioning" aliases).
 * Every service runs in-process so `now` posts really publish to the test network.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("postscreate")
  sys = await startServices(world)
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

/** The first channel of a whole post (GET /posts/{id}). */
const firstChannel = (answer: Answer) => present(wholePost(answer).channels[0], "the post's first channel")

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString()

/** A workspace with its key and client, and helpers to add channels. */
const newWorkspace = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const api = client(sys.url, apiKey)
  const channel = async (name: string, network = "test", customerId: string | null = null) =>
    (await sys.admin.createChannel({ workspaceId, network, name, customerId, postingTimes: [] })).channelId
  return { workspaceId, apiKey, api, channel }
}

/** Rows of the workspace's posts, whole posts and items, deleted ones included. */
const counts = (workspaceId: string) =>
  withDb(world, async (c) => {
    const r = await c.query(
      `SELECT (SELECT count(*)::int FROM posts WHERE workspace_id = $1) AS posts,
              (SELECT count(*)::int FROM post_groups WHERE workspace_id = $1) AS groups,
              (SELECT count(*)::int FROM post_items WHERE workspace_id = $1) AS items`,
      [workspaceId]
    )
    return r.rows[0] as { posts: number; groups: number; items: number }
  })

/**
 * The control of a "nothing went out" assertion: a post published now on a fresh channel
 * of the workspace, waited for. When it is live, the scheduler and publisher have had their
 * rounds since the point of interest, so whatever was due would have gone out too.
 */
const publishControl = async (w: Awaited<ReturnType<typeof newWorkspace>>) => {
  const control = await w.channel("Control")
  const created = await w.api.post("/public/v1/posts", { type: "now", posts: [entry(control, "control")] })
  expect(created.status).toBe(200)
  await waitFor("the control post was not published", async () => {
    const whole = await w.api.get(`/public/v1/posts/${createdRow(created).group}`)
    return firstChannel(whole).root.state === "published" ? true : undefined
  })
}

const entry = (channelId: string, content: string, extra: Record<string, unknown> = {}) => ({
  integration: { id: channelId },
  value: [{ content }],
  ...extra
})

const expectNoServerError = (res: { status: number }) => expect(res.status).toBeLessThan(500)

describe("POST /posts: both body forms", () => {
  it("the full form: one entry per channel, first item the post, the rest follow-ups in order", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const res = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [
        {
          integration: { id: a },
          value: [{ content: "A post" }, { content: "A first comment", delay: 5 }, { content: "A second comment", delay: 7 }]
        },
        { integration: { id: b }, value: [{ content: "B post", delay: 99 }] }
      ]
    })
    expect(res.status).toBe(200)
    expect(res.json).toHaveLength(2)
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
    expect(whole.status).toBe(200)
    const ca = present(
      wholePost(whole).channels.find((c) => c.channelId === a),
      "channel a"
    )
    const cb = present(
      wholePost(whole).channels.find((c) => c.channelId === b),
      "channel b"
    )
    expect(ca.root).toMatchObject({ content: "A post", position: 0, delay: 0 })
    expect(ca.thread.map((i) => [i.content, i.position, i.delay])).toEqual([
      ["A first comment", 1, 5],
      ["A second comment", 2, 7]
    ])
    // delay is ignored on the first item
    expect(cb.root).toMatchObject({ content: "B post", delay: 0 })
    expect(cb.thread).toEqual([])
  })

  it("the simpler form: content for every channel, a channel object changes it for that channel, thread shared", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const res = await w.api.post("/public/v1/posts", {
      type: "draft",
      content: "Shared text",
      channels: [a, { channelId: b, content: "Own text for Beta", settings: { audience: "followers" } }],
      thread: [{ content: "Shared comment", delay: 3 }]
    })
    expect(res.status).toBe(200)
    expect(decoded(res, answerOf("posts", "createPosts")).map((r) => r.integration)).toEqual([a, b])
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
    const ca = present(
      wholePost(whole).channels.find((c) => c.channelId === a),
      "channel a"
    )
    const cb = present(
      wholePost(whole).channels.find((c) => c.channelId === b),
      "channel b"
    )
    expect(ca.root.content).toBe("Shared text")
    expect(cb.root.content).toBe("Own text for Beta")
    expect(cb.root.settings.audience).toBe("followers")
    for (const c of [ca, cb]) expect(c.thread.map((i) => [i.content, i.delay])).toEqual([["Shared comment", 3]])
  })
})

describe("POST /posts: aliases", () => {
  const insertMedia = (workspaceId: string) =>
    withDb(world, async (c) => {
      const id = crypto.randomUUID()
      await c.query(
        `INSERT INTO media (id, workspace_id, name, original_name, storage_key, path, mime, type, size, width, height, alt)
         VALUES ($1, $2, 'photo.png', 'photo.png', $3, $4, 'image/png', 'image', 1234, 16, 12, 'A photo')`,
        [id, workspaceId, `k/${id}`, `https://media.example.com/${id}.png`]
      )
      return id
    })

  it("`channelId` at entry level works like integration.id", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type: "draft", posts: [{ channelId: a, value: [{ content: "By channelId" }] }] })
    expect(res.status).toBe(200)
    expect(res.json).toHaveLength(1)
    expect(createdRow(res).integration).toBe(a)
  })

  it("`media` is read as `image`", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const mediaId = await insertMedia(w.workspaceId)
    const viaMedia = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [{ integration: { id: a }, value: [{ content: "With media", media: [{ id: mediaId }] }] }]
    })
    const viaImage = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [{ integration: { id: a }, value: [{ content: "With image", image: [{ id: mediaId }] }] }]
    })
    expect(viaMedia.status).toBe(200)
    expect(viaImage.status).toBe(200)
    for (const res of [viaMedia, viaImage]) {
      const whole = await w.api.get(`/public/v1/posts/${createdRow(res).postId}`)
      expect(firstChannel(whole).root.media).toEqual([
        {
          id: mediaId,
          alt: "A photo",
          url: `https://media.example.com/${mediaId}.png`,
          mime: "image/png",
          name: "photo.png",
          size: 1234,
          type: "image",
          width: 16,
          height: 12
        }
      ])
    }
  })

  it("`repeatDays` is read as `inter`", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const viaRepeat = await w.api.post("/public/v1/posts", { type: "draft", repeatDays: 7, posts: [entry(a, "Weekly")] })
    const viaInter = await w.api.post("/public/v1/posts", { type: "draft", inter: 14, posts: [entry(a, "Fortnightly")] })
    expect(viaRepeat.status).toBe(200)
    expect(viaInter.status).toBe(200)
    expect(wholePost(await w.api.get(`/public/v1/posts/${createdRow(viaRepeat).group}`)).repeatDays).toBe(7)
    expect(wholePost(await w.api.get(`/public/v1/posts/${createdRow(viaInter).group}`)).repeatDays).toBe(14)
    const rows = decoded(await w.api.get("/public/v1/posts"), answerOf("posts", "listPosts")).posts
    expect(rows.find((r) => r.id === createdRow(viaRepeat).postId)?.intervalInDays).toBe(7)
  })

  it("`type: update` is read as `schedule`", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const date = inMinutes(120)
    const res = await w.api.post("/public/v1/posts", { type: "update", date, posts: [entry(a, "Updated")] })
    expect(res.status).toBe(200)
    expect(createdRow(res).status).toBe("queued")
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
    expect(wholePost(whole).status).toBe("scheduled")
    expect(wholePost(whole).publishAt).toBe(date)
    expect(firstChannel(whole).root.state).toBe("queued")
  })
})

describe("POST /posts: content and settings", () => {
  it("HTML is turned into plain text", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [entry(a, "<p>Hello <strong>world</strong></p><p>Fish &amp; chips</p>")]
    })
    expect(res.status).toBe(200)
    const content = firstChannel(await w.api.get(`/public/v1/posts/${createdRow(res).postId}`)).root.content
    expect(content).not.toMatch(/[<>]|&amp;/)
    expect(content).toMatch(/^Hello world\s+Fish & chips$/)
  })

  it("settings.__type is ignored: the channel's network is used", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [entry(a, "Typed", { settings: { __type: "x", audience: "followers" } })]
    })
    expect(res.status).toBe(200)
    const row = decoded(await w.api.get("/public/v1/posts"), answerOf("posts", "listPosts")).posts.find((r) => r.id === createdRow(res).postId)
    expect(row?.settings).toEqual({ __type: "test", audience: "followers" })
    expect(row?.integration.providerIdentifier).toBe("test")
  })

  it("a reference-client body (tags [], shortLink false, image [{id, path}] with a made-up id) is accepted or refused with a clear 400", async () => {
    const w = await newWorkspace()
    const x = await w.channel("My X", "x")
    const date = new Date(Math.ceil((Date.now() + 86_400_000) / 1000) * 1000).toISOString().replace(".000Z", "Z")
    const raw =
      `{"type":"schedule","date":"${date}","shortLink":false,"tags":[],"posts":[{"integration":{"id":"${x}"},` +
      `"value":[{"content":"Hello from the CLI","image":[{"id":"Yx3kP9q2","path":"https://uploads.example.com/a.jpg"}],"delay":0}],` +
      `"settings":{"__type":"x","who_can_reply_post":"everyone"}}]}`
    const res = await w.api.post("/public/v1/posts", raw)
    expectNoServerError(res)
    expect([200, 400]).toContain(res.status)
    if (res.status === 400) {
      expect(errorOf(res).error).toBe(errorOf(res).msg)
      expect(errorOf(res).error).toMatch(/image|media|file|path/i)
      expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
    } else {
      expect(res.json).toHaveLength(1)
      expect(createdRow(res)).toMatchObject({ integration: x, status: "queued" })
      const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
      expect(firstChannel(whole).root.content).toBe("Hello from the CLI")
      expect(firstChannel(whole).root.media).toHaveLength(1)
      expect(firstChannel(whole).root.media[0]?.url).toBe("https://uploads.example.com/a.jpg")
      expect(wholePost(whole).shortLink).toBe(false)
      expect(wholePost(whole).tags).toEqual([])
    }
  })

  it("an image given by a path that is not http(s) is refused with a clear 400, never a 500", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", {
      type: "schedule",
      date: inMinutes(60),
      posts: [{ integration: { id: a }, value: [{ content: "Local file", image: [{ id: "abc", path: "/home/me/a.jpg" }] }] }]
    })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("Please fix these before saving.")
    expect(present(errorOf(res).errors, "errors")[0]?.message).toMatch(/^Alpha: /)
    expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })
})

describe("POST /posts: answer rows", () => {
  it("one row per channel: {postId, group, integration, status, previewUrl}", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const c = await w.channel("Gamma")
    const res = await w.api.post("/public/v1/posts", { date: inMinutes(90), posts: [entry(a, "1"), entry(b, "2"), entry(c, "3")] })
    expect(res.status).toBe(200)
    const rows = decoded(res, answerOf("posts", "createPosts"))
    expect(rows).toHaveLength(3)
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(["group", "integration", "postId", "previewUrl", "status"])
      expect(row.postId).toMatch(/^[0-9a-f-]{36}$/)
      expect(row.status).toBe("queued")
      expect(() => new URL(row.previewUrl)).not.toThrow()
    }
    expect(decoded(res, answerOf("posts", "createPosts")).map((r) => r.integration)).toEqual([a, b, c])
    expect(new Set(decoded(res, answerOf("posts", "createPosts")).map((r) => r.group)).size).toBe(1)
    expect(new Set(decoded(res, answerOf("posts", "createPosts")).map((r) => r.postId)).size).toBe(3)
    expect(createdRow(res).group).not.toBe(createdRow(res).postId)
    // the preview link is the whole post's share link
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
    expect(createdRow(res).previewUrl).toBe(wholePost(whole).shareUrl)
  })
})

describe("POST /posts: types", () => {
  it("default type is schedule: channels queued at `date`", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const date = inMinutes(30)
    const res = await w.api.post("/public/v1/posts", { date, posts: [entry(a, "Scheduled")] })
    expect(res.status).toBe(200)
    expect(createdRow(res).status).toBe("queued")
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
    expect(whole.json).toMatchObject({ status: "scheduled", publishAt: date, approvalStatus: null })
    const row = decoded(await w.api.get("/public/v1/posts"), answerOf("posts", "listPosts")).posts.find((r) => r.id === createdRow(res).postId)
    expect(row).toMatchObject({ status: "queued", state: "QUEUE", publishDate: date })
  })

  it("draft: answer status draft, no network publish", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(a, "Draft")] })
    expect(res.status).toBe(200)
    expect(createdRow(res).status).toBe("draft")
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
    expect(wholePost(whole).status).toBe("draft")
    expect(firstChannel(whole).root.state).toBe("draft")
    await publishControl(w) // a post of the same workspace went out since: the draft did not
    const published = await withDb(world, (c) => c.query("SELECT 1 FROM test_network_posts WHERE channel_id = $1", [a]))
    expect(published.rowCount).toBe(0)
  })

  it("now: published right away (date ignored), releaseId set, once", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type: "now", date: inMinutes(600), posts: [entry(a, "Right now")] })
    expect(res.status).toBe(200)
    expect(createdRow(res).status).toBe("queued")
    const root = await waitFor("the now post was not published", async () => {
      const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
      const r = firstChannel(whole).root
      return r.state === "published" ? r : undefined
    })
    expect(root.releaseId).toEqual(expect.any(String))
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
    expect(wholePost(whole).status).toBe("published")
    // date ignored: the post time is (about) now, not 10 hours ahead
    expect(Math.abs(Date.parse(wholePost(whole).publishAt) - Date.now())).toBeLessThan(60_000)
    const live = await withDb(world, (c) => c.query("SELECT id, content FROM test_network_posts WHERE channel_id = $1", [a]))
    expect(live.rows).toEqual([{ id: root.releaseId, content: "Right now" }])
  })

  it("now ignores a date in the past", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type: "now", date: "2001-01-01T00:00:00Z", posts: [entry(a, "Now anyway")] })
    expect(res.status).toBe(200)
    expect(createdRow(res).status).toBe("queued")
  })

  it("review: answer status draft, whole post review, approval.requested in the outbox", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const date = inMinutes(45)
    const res = await w.api.post("/public/v1/posts", { type: "review", date, posts: [entry(a, "Please approve")] })
    expect(res.status).toBe(200)
    expect(createdRow(res).status).toBe("draft")
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).postId}`)
    expect(whole.json).toMatchObject({ id: createdRow(res).group, status: "review", approvalStatus: "requested" })
    const outbox = await withDb(world, (c) =>
      c.query("SELECT data FROM outbox WHERE workspace_id = $1 AND event = 'approval.requested'", [w.workspaceId])
    )
    expect(outbox.rows).toHaveLength(1)
    expect(outbox.rows[0].data).toMatchObject({
      groupId: createdRow(res).group,
      channelIds: [a],
      previewUrl: createdRow(res).previewUrl,
      approvalStatus: "requested",
      publishAt: date
    })
    expect(typeof outbox.rows[0].data.requestedBy).toBe("string")
  })

  it("a channel whose customer has approval on turns schedule into review", async () => {
    const w = await newWorkspace()
    const { customerId } = await sys.admin.createCustomer({ workspaceId: w.workspaceId, name: "Client", approval: true })
    const a = await w.channel("Client channel", "test", customerId)
    const res = await w.api.post("/public/v1/posts", { type: "schedule", date: inMinutes(45), posts: [entry(a, "Needs a yes")] })
    expect(res.status).toBe(200)
    expect(createdRow(res).status).toBe("draft")
    const whole = await w.api.get(`/public/v1/posts/${createdRow(res).group}`)
    expect(whole.json).toMatchObject({ status: "review", approvalStatus: "requested" })
    expect(firstChannel(whole).root.state).toBe("draft")
    const outbox = await withDb(world, (c) =>
      c.query("SELECT data FROM outbox WHERE workspace_id = $1 AND event = 'approval.requested'", [w.workspaceId])
    )
    expect(outbox.rows.map((r) => r.data.groupId)).toEqual([createdRow(res).group])
  })

  it("a customer without approval keeps schedule as schedule", async () => {
    const w = await newWorkspace()
    const { customerId } = await sys.admin.createCustomer({ workspaceId: w.workspaceId, name: "Easy client", approval: false })
    const a = await w.channel("Easy channel", "test", customerId)
    const res = await w.api.post("/public/v1/posts", { type: "schedule", date: inMinutes(45), posts: [entry(a, "No yes needed")] })
    expect(createdRow(res).status).toBe("queued")
    expect(wholePost(await w.api.get(`/public/v1/posts/${createdRow(res).group}`)).status).toBe("scheduled")
  })
})

describe("POST /posts: malformed bodies answer 400, never 500", () => {
  it("a body that is not JSON gives 400 The request body is not valid JSON.", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", '{"type":"draft","posts":[')
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ error: "The request body is not valid JSON.", msg: "The request body is not valid JSON." })
  })

  it.each([
    ["no posts", { type: "draft" }],
    ["empty posts", { type: "draft", posts: [] }],
    ["an entry without value", { type: "draft", posts: [{ integration: { id: crypto.randomUUID() } }] }],
    ["an empty value", { type: "draft", posts: [{ integration: { id: crypto.randomUUID() }, value: [] }] }],
    ["an item without content", { type: "draft", posts: [{ integration: { id: crypto.randomUUID() }, value: [{ image: [] }] }] }],
    ["an unknown type", { type: "publish", posts: [{ integration: { id: crypto.randomUUID() }, value: [{ content: "x" }] }] }],
    ["an entry without a channel", { type: "draft", posts: [{ value: [{ content: "x" }] }] }],
    ["a JSON array", [1, 2, 3]],
    ["simpler form without channels", { type: "draft", content: "x", channels: [] }]
  ])("%s gives 400 and saves nothing", async (_what, body) => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", body)
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(errorOf(res).msg)
    expect(errorOf(res).error.length).toBeGreaterThan(0)
    expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })
})

describe("POST /posts: dates", () => {
  const invalidDate = /^The date is not valid\. Use ISO 8601, for example \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\.$/

  it.each(["2031-05-01T10:00:00", "2031-05-01 10:00", "tomorrow", "2031-13-01T10:00:00Z"])(
    "a date that cannot be parsed or has no time zone (%s) gives 400 with the ISO 8601 message",
    async (date) => {
      const w = await newWorkspace()
      const a = await w.channel("Alpha")
      for (const type of ["schedule", "draft"]) {
        const res = await w.api.post("/public/v1/posts", { type, date, posts: [entry(a, "When?")] })
        expect(res.status).toBe(400)
        expect(errorOf(res).error).toMatch(invalidDate)
        expect(errorOf(res).msg).toBe(errorOf(res).error)
        // the example itself is a valid date
        const example = present(errorOf(res).error.match(/example (\S+)\.$/)?.[1], "the example date")
        expect(new Date(example).toISOString()).toBe(example)
      }
      expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
    }
  )

  it.each(["schedule", "review"])("%s more than 1 minute in the past gives 400 and saves nothing", async (type) => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type, date: new Date(Date.now() - 120_000).toISOString(), posts: [entry(a, "Late")] })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(errorOf(res).msg)
    expect(errorOf(res).error.length).toBeGreaterThan(0)
    expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })

  it("schedule less than 1 minute in the past is accepted", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", {
      type: "schedule",
      date: new Date(Date.now() - 20_000).toISOString(),
      posts: [entry(a, "Just now")]
    })
    expect(res.status).toBe(200)
    expect(createdRow(res).status).toBe("queued")
  })

  it("drafts may have any date, in the past too", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const date = "2001-02-03T04:05:06.000Z"
    const res = await w.api.post("/public/v1/posts", { type: "draft", date: "2001-02-03T05:05:06+01:00", posts: [entry(a, "Old")] })
    expect(res.status).toBe(200)
    expect(wholePost(await w.api.get(`/public/v1/posts/${createdRow(res).group}`)).publishAt).toBe(date)
  })

  it("a date with an offset is stored in UTC", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const utc = new Date(Math.ceil((Date.now() + 3 * 3600_000) / 60_000) * 60_000)
    const local = new Date(utc.getTime() + 2 * 3600_000).toISOString().replace(".000Z", "+02:00")
    const res = await w.api.post("/public/v1/posts", { date: local, posts: [entry(a, "Offset")] })
    expect(res.status).toBe(200)
    expect(wholePost(await w.api.get(`/public/v1/posts/${createdRow(res).group}`)).publishAt).toBe(utc.toISOString())
  })

  it("an omitted date is the current time", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const before = Date.now()
    const res = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(a, "Whenever")] })
    const after = Date.now()
    const publishAt = Date.parse(wholePost(await w.api.get(`/public/v1/posts/${createdRow(res).group}`)).publishAt)
    expect(publishAt).toBeGreaterThanOrEqual(before - 1000)
    expect(publishAt).toBeLessThanOrEqual(after + 1000)
  })
})

describe("POST /posts rule 1: network rules before anything is saved", () => {
  it("a post too long for one channel: 400 Please fix these before saving., errors[] per channel, nothing saved", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const res = await w.api.post("/public/v1/posts", {
      date: inMinutes(60),
      posts: [entry(a, "x".repeat(501)), entry(b, "fine")]
    })
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      error: "Please fix these before saving.",
      msg: "Please fix these before saving.",
      errors: [{ channelId: a, channelName: "Alpha", message: "Alpha: the post is too long, 501 of 500 characters." }]
    })
    expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })

  it("every channel's problems are listed at once (simpler form, two networks)", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const x = await w.channel("Birdy", "x")
    const res = await w.api.post("/public/v1/posts", {
      type: "draft",
      content: "y".repeat(600),
      channels: [a, { channelId: x, settings: { who_can_reply_post: "everyone" } }]
    })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("Please fix these before saving.")
    expect(present(errorOf(res).errors, "errors")).toEqual([
      { channelId: a, channelName: "Alpha", message: "Alpha: the post is too long, 600 of 500 characters." },
      { channelId: x, channelName: "Birdy", message: "Birdy: the post is too long, 600 of 280 characters." }
    ])
    expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })

  it("a follow-up comment too long, a network that needs media, and a missing required setting: 400, nothing saved", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const ig = await w.channel("Insta", "instagram")
    const x = await w.channel("Birdy", "x")
    const res = await w.api.post("/public/v1/posts", {
      date: inMinutes(60),
      posts: [
        { integration: { id: a }, value: [{ content: "ok" }, { content: "z".repeat(501), delay: 1 }] },
        entry(ig, "no picture", { settings: { post_type: "post" } }),
        entry(x, "no setting")
      ]
    })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("Please fix these before saving.")
    const byChannel = (id: string) =>
      present(errorOf(res).errors, "errors")
        .filter((e) => e.channelId === id)
        .map((e) => e.message)
    expect(byChannel(a)).toEqual(["Alpha: the post is too long, 501 of 500 characters."])
    expect(byChannel(ig).length).toBeGreaterThan(0)
    expect(byChannel(ig).every((m: string) => m.startsWith("Insta: "))).toBe(true)
    expect(byChannel(x).length).toBeGreaterThan(0)
    expect(byChannel(x).every((m: string) => m.startsWith("Birdy: "))).toBe(true)
    expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })

  it("X counts weighted: a link counts 23 characters", async () => {
    const w = await newWorkspace()
    const x = await w.channel("Birdy", "x")
    const settings = { who_can_reply_post: "everyone" }
    const url = `https://example.com/${"p".repeat(100)}`
    // 250 + 1 + 23 = 274 of 280, although the text has 371 characters
    const fits = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(x, `${"a".repeat(250)} ${url}`, { settings })] })
    expect(fits.status).toBe(200)
    const tooLong = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(x, `${"a".repeat(260)} ${url}`, { settings })] })
    expect(tooLong.status).toBe(400)
    expect(present(errorOf(tooLong).errors, "errors")).toEqual([
      { channelId: x, channelName: "Birdy", message: "Birdy: the post is too long, 284 of 280 characters." }
    ])
  })

  it("exactly at the limit (500 characters) is accepted", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(a, "x".repeat(500))] })
    expect(res.status).toBe(200)
  })
})

describe("POST /posts: channels", () => {
  it("an unknown channel gives 404 and saves nothing", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(a, "known"), entry(crypto.randomUUID(), "unknown")] })
    expect(res.status).toBe(404)
    expect(errorOf(res).error).toBe(errorOf(res).msg)
    expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })

  it("another workspace's channel gives 404 and nothing is saved in either workspace", async () => {
    const mine = await newWorkspace()
    const theirs = await newWorkspace()
    const own = await mine.channel("Mine")
    const foreign = await theirs.channel("Theirs")
    const alone = await mine.api.post("/public/v1/posts", { type: "draft", posts: [entry(foreign, "sneaky")] })
    expect(alone.status).toBe(404)
    const mixed = await mine.api.post("/public/v1/posts", { type: "draft", content: "mixed", channels: [own, foreign] })
    expect(mixed.status).toBe(404)
    expect(await counts(mine.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
    expect(await counts(theirs.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })

  it("a channel id that is not a UUID gives 400 One of the ids is not valid.", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry("not-a-uuid", "x")] })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("One of the ids is not valid.")
  })
})

describe("POST /posts: tags", () => {
  const tagsOf = async (w: Awaited<ReturnType<typeof newWorkspace>>, group: string) =>
    wholePost(await w.api.get(`/public/v1/posts/${group}`)).tags as Array<{ id: string; name: string; color: string }>

  it("{value, label} creates a tag named label; a string matches it by name or id; {value: id} matches by value", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const first = await w.api.post("/public/v1/posts", {
      type: "draft",
      tags: [{ value: "spring-sale", label: "Spring sale" }],
      posts: [entry(a, "1")]
    })
    expect(first.status).toBe(200)
    const created = await tagsOf(w, createdRow(first).group)
    expect(created).toHaveLength(1)
    expect(created[0]).toMatchObject({ name: "Spring sale" })
    expect(created[0]!.color).toMatch(/^#[0-9a-fA-F]{3,8}$/)
    const tag = created[0]!

    const byName = await w.api.post("/public/v1/posts", { type: "draft", tags: ["Spring sale"], posts: [entry(a, "2")] })
    const byNameOtherCase = await w.api.post("/public/v1/posts", { type: "draft", tags: ["spring SALE"], posts: [entry(a, "3")] })
    const byId = await w.api.post("/public/v1/posts", { type: "draft", tags: [tag.id], posts: [entry(a, "4")] })
    const byValue = await w.api.post("/public/v1/posts", {
      type: "draft",
      tags: [{ value: tag.id, label: "Something else" }],
      posts: [entry(a, "5")]
    })
    for (const res of [byName, byNameOtherCase, byId, byValue]) {
      expect(res.status).toBe(200)
      expect(await tagsOf(w, createdRow(res).group)).toEqual([tag])
    }
    const tagRows = await withDb(world, (c) => c.query("SELECT name FROM tags WHERE workspace_id = $1", [w.workspaceId]))
    expect(tagRows.rows).toEqual([{ name: "Spring sale" }])
    // GET /posts shows them as {tag: {id, name, color}}
    const row = decoded(await w.api.get("/public/v1/posts"), answerOf("posts", "listPosts")).posts.find((r) => r.id === createdRow(byId).postId)
    expect(row?.tags).toEqual([{ tag }])
  })

  it("tags of one workspace are not matched from another", async () => {
    const mine = await newWorkspace()
    const theirs = await newWorkspace()
    const a = await mine.channel("Alpha")
    const b = await theirs.channel("Beta")
    const theirPost = await theirs.api.post("/public/v1/posts", { type: "draft", tags: [{ value: "x", label: "Secret" }], posts: [entry(b, "t")] })
    const theirTag = (await tagsOf(theirs, createdRow(theirPost).group))[0]!
    const res = await mine.api.post("/public/v1/posts", { type: "draft", tags: [theirTag.id], posts: [entry(a, "m")] })
    expectNoServerError(res)
    if (res.status === 200) {
      const mineTags = await tagsOf(mine, createdRow(res).group)
      expect(mineTags.map((t) => t.id)).not.toContain(theirTag.id)
    }
  })
})

describe("POST /posts: inter (repeat) 1 to 365", () => {
  it.each([
    ["inter", 0],
    ["inter", 366],
    ["repeatDays", 0],
    ["repeatDays", 366],
    ["inter", 1.5],
    ["inter", -1]
  ])("%s %s gives 400 and saves nothing", async (field, value) => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type: "draft", [field]: value, posts: [entry(a, "repeat")] })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(errorOf(res).msg)
    expect(await counts(w.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
  })

  it.each([1, 365])("inter %s is accepted", async (value) => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const res = await w.api.post("/public/v1/posts", { type: "draft", inter: value, posts: [entry(a, "repeat")] })
    expect(res.status).toBe(200)
    expect(wholePost(await w.api.get(`/public/v1/posts/${createdRow(res).group}`)).repeatDays).toBe(value)
  })
})

describe("POST /posts rule 2: editing with groupId", () => {
  it("edits a draft in place: same group, new content, no second whole post", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const created = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(a, "A v1"), entry(b, "B v1")] })
    const group = createdRow(created).group
    const edited = await w.api.post("/public/v1/posts", { type: "draft", groupId: group, posts: [entry(a, "A v2"), entry(b, "B v2")] })
    expect(edited.status).toBe(200)
    expect(decoded(edited, answerOf("posts", "createPosts")).map((r) => r.group)).toEqual([group, group])
    const whole = await w.api.get(`/public/v1/posts/${group}`)
    expect(Object.fromEntries(wholePost(whole).channels.map((c) => [c.channelId, c.root.content]))).toEqual({ [a]: "A v2", [b]: "B v2" })
    expect((await counts(w.workspaceId)).groups).toBe(1)
    // GET /posts shows each channel once
    const rows = decoded(await w.api.get("/public/v1/posts"), answerOf("posts", "listPosts")).posts.filter((r) => r.group === group)
    expect(rows.map((r) => r.content).sort()).toEqual(["A v2", "B v2"])
  })

  it("`group` in an entry edits the post too", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const created = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(a, "v1")] })
    const group = createdRow(created).group
    const edited = await w.api.post("/public/v1/posts", { type: "draft", posts: [entry(a, "v2", { group })] })
    expect(edited.status).toBe(200)
    expect(createdRow(edited).group).toBe(group)
    expect(firstChannel(await w.api.get(`/public/v1/posts/${group}`)).root.content).toBe("v2")
    expect((await counts(w.workspaceId)).groups).toBe(1)
  })

  it("an unknown or foreign groupId gives 404 and saves nothing", async () => {
    const mine = await newWorkspace()
    const theirs = await newWorkspace()
    const a = await mine.channel("Alpha")
    const b = await theirs.channel("Beta")
    const theirPost = await theirs.api.post("/public/v1/posts", { type: "draft", posts: [entry(b, "theirs")] })
    for (const groupId of [crypto.randomUUID(), createdRow(theirPost).group]) {
      const res = await mine.api.post("/public/v1/posts", { type: "draft", groupId, posts: [entry(a, "edit")] })
      expect(res.status).toBe(404)
    }
    expect(await counts(mine.workspaceId)).toEqual({ posts: 0, groups: 0, items: 0 })
    expect(firstChannel(await theirs.api.get(`/public/v1/posts/${createdRow(theirPost).group}`)).root.content).toBe("theirs")
  })

  it("a published channel stays published with the same releaseId; other channels are edited", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const created = await w.api.post("/public/v1/posts", { type: "now", posts: [entry(a, "Live on A")] })
    expect(created.status).toBe(200)
    const group = createdRow(created).group
    const live = await waitFor("the now post was not published", async () => {
      const whole = await w.api.get(`/public/v1/posts/${group}`)
      const root = firstChannel(whole).root
      return root.state === "published" ? root : undefined
    })
    const date = inMinutes(240)
    const edited = await w.api.post("/public/v1/posts", {
      type: "schedule",
      date,
      groupId: group,
      posts: [entry(a, "Edited A (must not change)"), entry(b, "New on B")]
    })
    expect(edited.status).toBe(200)
    expect(decoded(edited, answerOf("posts", "createPosts")).every((r) => r.group === group)).toBe(true)
    const whole = await w.api.get(`/public/v1/posts/${group}`)
    const ca = present(
      wholePost(whole).channels.find((c) => c.channelId === a),
      "channel a"
    )
    const cb = present(
      wholePost(whole).channels.find((c) => c.channelId === b),
      "channel b"
    )
    expect(ca.root).toMatchObject({ state: "published", releaseId: live.releaseId, releaseUrl: live.releaseUrl, content: "Live on A" })
    expect(cb.root).toMatchObject({ state: "queued", content: "New on B" })
    const window = `startDate=${encodeURIComponent(inMinutes(-60))}&endDate=${encodeURIComponent(inMinutes(600))}`
    const rows = decoded(await w.api.get(`/public/v1/posts?${window}`), answerOf("posts", "listPosts")).posts
    expect(rows.find((r) => r.integration.id === a)).toMatchObject({ status: "published", releaseId: live.releaseId })
    expect(rows.find((r) => r.integration.id === b)).toMatchObject({ status: "queued", publishDate: date })
    // A was not sent again (a post of the same workspace went out since)
    await publishControl(w)
    const sent = await withDb(world, (c) => c.query("SELECT count(*)::int AS n FROM test_network_posts WHERE channel_id = $1", [a]))
    expect(sent.rows[0].n).toBe(1)
  })
})
