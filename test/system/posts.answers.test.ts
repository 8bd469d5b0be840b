import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, decoded, errorOf } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken, withDb } from "../support/tokens.js"
import { answerOf, created, present, wholePost } from "../support/answers.js"

/**
 * What post answers report, as a strict client reads them: the whole-post status derived
 * from its channels, edit answers saying what each channel is, PUT settings refusing like
 * POST /posts, the per-channel post id in GET /posts/{id}, 400s in plain words, HTML read
 * as text, tags and creationMethod on every post answer.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("postsanswers")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const DAY = 86_400_000
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString()

const newWorkspace = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const api = client(sys.url, apiKey)
  const channel = async (name: string, network = "test") =>
    (await sys.admin.createChannel({ workspaceId, network, name, customerId: null, postingTimes: [] })).channelId
  const create = async (body: Record<string, unknown>) => {
    const res = await api.post("/public/v1/posts", body)
    expect(res.status, res.text).toBe(200)
    return decoded(res, answerOf("posts", "createPosts"))
  }
  const draft = (channels: ReadonlyArray<string>, extra: Record<string, unknown> = {}) =>
    create({ type: "draft", date: at(DAY), posts: channels.map((id) => ({ integration: { id }, value: [{ content: "Hello" }] })), ...extra })
  const whole = async (id: string) => {
    const res = await api.get(`/public/v1/posts/${id}`)
    expect(res.status).toBe(200)
    return wholePost(res)
  }
  const publish = async (postId: string) => {
    const res = await api.put(`/public/v1/posts/${postId}/release-id`, { releaseId: `live-${postId}` })
    expect(res.status, res.text).toBe(200)
    return wholePost(res)
  }
  return { workspaceId, apiKey, api, channel, create, draft, whole, publish }
}

/** A 400 in plain words: no schema text, no braces of a type, no server path. */
const expectPlain400 = (res: { readonly status: number; readonly json: unknown; readonly text: string }) => {
  expect(res.status, res.text).toBe(400)
  expect(errorOf(res).error).toBe(errorOf(res).msg)
  expect(res.text).not.toMatch(/Expected|readonly|\{ |actual|\/tmp\/|Schema|ParseError/)
}

describe("whole-post status is derived from the channels every time", () => {
  it("a published channel next to a draft one reads partial, not draft", async () => {
    const w = await newWorkspace()
    const [a, b] = [await w.channel("A"), await w.channel("B")]
    const rows = await w.draft([a, b])
    const answer = await w.publish(rows[0]!.postId)
    expect(answer.status).toBe("partial")
    expect((await w.whole(rows[0]!.group)).status).toBe("partial")
  })

  it("after an edit and the deletion of the other channel, a post whose only channel is published reads published", async () => {
    const w = await newWorkspace()
    const [a, b] = [await w.channel("A"), await w.channel("B")]
    const rows = await w.draft([a, b])
    await w.publish(rows[0]!.postId)
    await w.create({ type: "draft", groupId: rows[0]!.group, posts: [a, b].map((id) => ({ integration: { id }, value: [{ content: "Edited" }] })) })
    expect((await w.api.del(`/public/v1/integrations/${b}`)).status).toBe(200)
    const post = await w.whole(rows[0]!.group)
    expect(post.channels.map((c) => c.channelId)).toEqual([a])
    expect(post.status).toBe("published")
    // the stored copy (for SQL readers) follows as well
    const stored = await withDb(world, async (c) => (await c.query("SELECT status FROM post_groups WHERE id = $1", [rows[0]!.group])).rows[0].status)
    expect(stored).toBe("published")
  })
})

describe("POST /posts edit answers say what each channel is", () => {
  it("a published channel answers published on a draft edit and on a schedule edit", async () => {
    const w = await newWorkspace()
    const [a, b] = [await w.channel("A"), await w.channel("B")]
    const rows = await w.draft([a, b])
    await w.publish(rows[0]!.postId)
    for (const type of ["draft", "schedule"]) {
      const edited = await w.create({
        type,
        date: at(DAY),
        groupId: rows[0]!.group,
        posts: [a, b].map((id) => ({ integration: { id }, value: [{ content: `Edit ${type}` }] }))
      })
      expect(edited.find((r) => r.integration === a)?.status).toBe("published")
      expect(edited.find((r) => r.integration === b)?.status).toBe(type === "draft" ? "draft" : "queued")
    }
  })
})

describe("GET /posts/{id} carries each channel's per-channel post id", () => {
  it("channels[].postId is the id POST /posts answered for that channel, and PUT settings takes it", async () => {
    const w = await newWorkspace()
    const [a, b] = [await w.channel("A"), await w.channel("B")]
    const rows = await w.draft([a, b])
    const post = await w.whole(rows[0]!.group)
    for (const row of rows) expect(post.channels.find((c) => c.channelId === row.integration)?.postId).toBe(row.postId)
    const second = present(
      post.channels.find((c) => c.channelId === b),
      "channel b"
    )
    const res = await w.api.put(`/public/v1/posts/${second.postId}/settings`, { settings: { audience: "followers" } })
    expect(res.status, res.text).toBe(200)
    expect(wholePost(res).channels.find((c) => c.channelId === b)?.root.settings["audience"]).toBe("followers")
  })
})

describe("PUT /posts/{id}/settings refuses like POST /posts", () => {
  it("a setting outside its options: the same errors array and wording as POST /posts", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const rows = await w.draft([a])
    const viaPost = await w.api.post("/public/v1/posts", {
      type: "draft",
      date: at(DAY),
      posts: [{ integration: { id: a }, value: [{ content: "x" }], settings: { audience: "nobody" } }]
    })
    const viaPut = await w.api.put(`/public/v1/posts/${rows[0]!.postId}/settings`, { settings: { audience: "nobody" } })
    expect(viaPost.status).toBe(400)
    expect(viaPut.status).toBe(400)
    expect(viaPut.json).toEqual(viaPost.json)
    expect(errorOf(viaPut).errors).toEqual([{ channelId: a, channelName: "Alpha", message: expect.stringMatching(/^Alpha: /) }])
  })

  it("an unknown setting key is refused with the errors array and nothing is stored", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const rows = await w.draft([a])
    const res = await w.api.put(`/public/v1/posts/${rows[0]!.postId}/settings`, { settings: { audience: "everyone", colour: "red" } })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("Please fix these before saving.")
    expect(errorOf(res).errors).toEqual([{ channelId: a, channelName: "Alpha", message: expect.stringContaining("colour") }])
    expect(errorOf(res).errors?.[0]?.message).toMatch(/audience, outcome, slowMs/)
    const settings = (await w.whole(rows[0]!.group)).channels[0]?.root.settings
    expect(settings).not.toHaveProperty("colour")
    expect(settings).not.toHaveProperty("audience")
  })

  it("__type is still ignored", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const rows = await w.draft([a])
    const res = await w.api.put(`/public/v1/posts/${rows[0]!.postId}/settings`, { settings: { __type: "x", audience: "everyone" } })
    expect(res.status, res.text).toBe(200)
  })
})

describe("400 answers say in plain words which field is wrong and what is allowed", () => {
  it("PUT status with another value names the two allowed", async () => {
    const w = await newWorkspace()
    const rows = await w.draft([await w.channel("A")])
    const res = await w.api.put(`/public/v1/posts/${rows[0]!.postId}/status`, { status: "published" })
    expectPlain400(res)
    expect(errorOf(res).error).toBe("status must be draft or schedule.")
  })

  it("PUT settings with settings not an object", async () => {
    const w = await newWorkspace()
    const rows = await w.draft([await w.channel("A")])
    for (const settings of ["loud", [1, 2], 5]) {
      const res = await w.api.put(`/public/v1/posts/${rows[0]!.postId}/settings`, { settings })
      expectPlain400(res)
      expect(errorOf(res).error).toMatch(/^settings must be an object/)
    }
    const missing = await w.api.put(`/public/v1/posts/${rows[0]!.postId}/settings`, {})
    expectPlain400(missing)
    expect(errorOf(missing).error).toBe("settings is required.")
    for (const body of ["", "[]", "null", '"text"']) {
      const res = await w.api.request("PUT", `/public/v1/posts/${rows[0]!.postId}/settings`, body, { "content-type": "application/json" })
      expectPlain400(res)
      expect(errorOf(res).error).toBe("The request body must be a JSON object with the documented fields.")
    }
  })

  it("PUT date, release-id, integration-trigger, upload-from-url with wrong types", async () => {
    const w = await newWorkspace()
    const a = await w.channel("A")
    const rows = await w.draft([a])
    const cases: Array<[string, string, unknown, RegExp]> = [
      ["PUT", `/public/v1/posts/${rows[0]!.postId}/date`, { date: 5 }, /^date must be /],
      ["PUT", `/public/v1/posts/${rows[0]!.postId}/release-id`, { releaseId: ["x"] }, /^releaseId must be /],
      ["POST", `/public/v1/integration-trigger/${a}`, { methodName: "echo", data: "text" }, /^data must be /],
      ["POST", `/public/v1/upload-from-url`, { url: 12 }, /^url must be /],
      ["POST", `/public/v1/upload-from-url`, [], /JSON object/]
    ]
    for (const [method, path, body, message] of cases) {
      const res = await w.api.request(method, path, body)
      expectPlain400(res)
      expect(errorOf(res).error).toMatch(message)
    }
  })

  it("query parameters out of their range", async () => {
    const w = await newWorkspace()
    for (const path of ["/public/v1/media?page=zero", "/public/v1/media?page=-1", "/public/v1/notifications?page=x"]) {
      const res = await w.api.get(path)
      expectPlain400(res)
      expect(errorOf(res).error).toMatch(/^page must be /)
    }
  })

  it("a multipart part that is not the file, and a file in the wrong field, never show a server path", async () => {
    const w = await newWorkspace()
    const form = new FormData()
    form.append("file", "just text")
    const asText = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: w.apiKey }, body: form })
    const body = await asText.text()
    expectPlain400({ status: asText.status, json: JSON.parse(body), text: body })
    expect(JSON.parse(body).error).toMatch(/^file /)
    const wrongField = new FormData()
    wrongField.append("photo", new Blob([png(8, 8)], { type: "image/png" }), "a.png")
    const other = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: w.apiKey }, body: wrongField })
    const otherBody = await other.text()
    expectPlain400({ status: other.status, json: JSON.parse(otherBody), text: otherBody })
    expect(JSON.parse(otherBody).error).toBe("file is required.")
    const twoFiles = new FormData()
    twoFiles.append("file", new Blob([png(8, 8)], { type: "image/png" }), "a.png")
    twoFiles.append("file", new Blob([png(9, 9)], { type: "image/png" }), "b.png")
    const two = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: w.apiKey }, body: twoFiles })
    const twoBody = await two.text()
    expectPlain400({ status: two.status, json: JSON.parse(twoBody), text: twoBody })
    expect(JSON.parse(twoBody).error).toBe("file must be one file (multipart form data, field file).")
  })
})

describe("HTML content is read as text", () => {
  it("content that is empty once HTML is turned into text is refused", async () => {
    const w = await newWorkspace()
    const a = await w.channel("A")
    for (const content of ["<p></p>", "<p>  </p><br>", "<p>&nbsp;</p>", "<script>alert(1)</script>"]) {
      const res = await w.api.post("/public/v1/posts", { type: "draft", posts: [{ integration: { id: a }, value: [{ content }] }] })
      expectPlain400(res)
      expect(errorOf(res).error).toBe("posts[0].value[0].content is empty once HTML is turned into text. Write the text of the post.")
    }
    const simple = await w.api.post("/public/v1/posts", { type: "draft", content: "<p></p>", channels: [a] })
    expectPlain400(simple)
    expect(errorOf(simple).error).toBe("content is empty once HTML is turned into text. Write the text of the post.")
  })

  it("links keep their address; script and style contents are dropped", async () => {
    const w = await newWorkspace()
    const a = await w.channel("A")
    const html =
      '<style>p { color: red }</style><p>Read <a href="https://example.com/post?a=1&amp;b=2">our post</a> and ' +
      '<a href="https://example.com/x">https://example.com/x</a></p><script type="text/javascript">track()</script><p>Bye</p>'
    const rows = await w.create({ type: "draft", posts: [{ integration: { id: a }, value: [{ content: html }] }] })
    const content = (await w.whole(rows[0]!.group)).channels[0]?.root.content
    expect(content).toBe("Read our post (https://example.com/post?a=1&b=2) and https://example.com/x\nBye")
  })

  it("GET /integrations?group= (left empty) is read as no filter", async () => {
    const w = await newWorkspace()
    const a = await w.channel("A")
    const res = await w.api.get("/public/v1/integrations?group=")
    expect(res.status, res.text).toBe(200)
    expect(decoded(res, answerOf("account", "listIntegrations")).map((c) => c.id)).toEqual([a])
    expect((await w.api.get("/public/v1/posts?customer=")).status).toBe(200)
  })
})

describe("tags round trip and creationMethod", () => {
  it("a tag by id or by name is the existing tag; {value, label} creates the tag; every post answer shows them", async () => {
    const w = await newWorkspace()
    const a = await w.channel("A")
    const first = await w.create({
      type: "draft",
      date: at(DAY),
      tags: [{ value: "launch", label: "Launch" }],
      posts: [{ integration: { id: a }, value: [{ content: "one" }] }]
    })
    const created = (await w.whole(first[0]!.group)).tags
    expect(created).toEqual([{ id: expect.any(String), name: "Launch", color: expect.stringMatching(/^#[0-9a-f]{6}$/i) }])
    const byId = await w.create({
      type: "draft",
      date: at(DAY),
      tags: [created[0]?.id],
      posts: [{ integration: { id: a }, value: [{ content: "two" }] }]
    })
    const byName = await w.create({
      type: "draft",
      date: at(DAY),
      tags: ["launch"],
      posts: [{ integration: { id: a }, value: [{ content: "three" }] }]
    })
    const byLabel = await w.create({
      type: "draft",
      date: at(DAY),
      tags: [{ value: "other", label: "Launch" }],
      posts: [{ integration: { id: a }, value: [{ content: "four" }] }]
    })
    for (const rows of [byId, byName, byLabel]) expect((await w.whole(rows[0]!.group)).tags).toEqual(created)
    const list = decoded(await w.api.get(`/public/v1/posts?endDate=${encodeURIComponent(at(2 * DAY))}`), answerOf("posts", "listPosts")).posts
    for (const row of list) expect(row.tags).toEqual([{ tag: created[0] }])
    const moved = await w.api.put(`/public/v1/posts/${byName[0]!.group}/date`, { date: at(DAY + 3600_000) })
    expect(wholePost(moved).tags).toEqual(created)
  })

  it("creationMethod is how the caller signed in unless given, and only api, cli, mcp or agent", async () => {
    const w = await newWorkspace()
    const a = await w.channel("A")
    const body = (extra: Record<string, unknown> = {}) => ({
      type: "draft",
      date: at(DAY),
      posts: [{ integration: { id: a }, value: [{ content: "m" }] }],
      ...extra
    })
    const byKey = await w.create(body())
    expect((await w.whole(byKey[0]!.group)).creationMethod).toBe("api")
    const given = await w.create(body({ creationMethod: "agent" }))
    expect((await w.whole(given[0]!.group)).creationMethod).toBe("agent")
    const { userId } = await sys.admin.createUser({
      workspaceId: w.workspaceId,
      email: `ed-${Date.now()}@x.test`,
      password: "long secret 123",
      role: "editor",
      timezone: null
    })
    for (const [kind, method] of [
      ["cli", "cli"],
      ["oat", "mcp"]
    ] as const) {
      const token = await issueUserToken(world, w.workspaceId, userId, kind)
      const res = await client(sys.url, token).post("/public/v1/posts", body())
      expect(res.status, res.text).toBe(200)
      expect((await w.whole(created(res).group)).creationMethod).toBe(method)
      const row = decoded(await w.api.get(`/public/v1/posts?endDate=${encodeURIComponent(at(2 * DAY))}`), answerOf("posts", "listPosts")).posts.find(
        (p) => p.id === created(res).postId
      )
      expect(row?.creationMethod).toBe(method)
    }
    const wrong = await w.api.post("/public/v1/posts", body({ creationMethod: "web" }))
    expectPlain400(wrong)
    expect(errorOf(wrong).error).toBe("creationMethod must be one of api, cli, mcp, agent.")
  })
})
