import { Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { findNetwork, integrationSettingsOf } from "../../domain/networks/index.js"
import { client, decoded, errorOf, type Answer } from "../support/http.js"
import { answerOf, present } from "../support/answers.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken, withDb } from "../support/tokens.js"

const channelsOf = (answer: Answer) => decoded(answer, answerOf("account", "listIntegrations"))
const settingsOf = (answer: Answer) => decoded(answer, answerOf("account", "integrationSettings"))

/** Spec: Endpoints → Account and channels; Resources → Channel, Customer, Network settings. */

const channelFields = ["customer", "disabled", "id", "identifier", "inBetweenSteps", "name", "picture", "profile", "refreshNeeded"]
const channelFieldsWithoutCustomer = channelFields.filter((f) => f !== "customer")
const unknownId = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
const noSettings = "No additional settings required"

let world: TestWorld
let sys: RunningServices

/** Workspace A: the caller's; workspace B: someone else's. */
let a: { workspaceId: string; apiKey: string }
let b: { workspaceId: string; apiKey: string }
let customers: { zeta: string; alpha: string; mike: string; empty: string; other: string }
let channels: { test: string; x: string; linkedin: string; pinterest: string; other: string }

const networkOf = (identifier: string) => Option.getOrThrow(findNetwork(identifier))

beforeAll(async () => {
  world = await createWorld("account")
  sys = await startServices(world, ["gateway", "actors"])
  a = await sys.admin.createWorkspace("Agency A")
  b = await sys.admin.createWorkspace("Agency B")
  const customer = async (workspaceId: string, name: string) => (await sys.admin.createCustomer({ workspaceId, name, approval: false })).customerId
  customers = {
    zeta: await customer(a.workspaceId, "Zeta Agency"),
    alpha: await customer(a.workspaceId, "Alpha Client"),
    mike: await customer(a.workspaceId, "Mike Co"),
    empty: await customer(a.workspaceId, "Nobody's Channels"),
    other: await customer(b.workspaceId, "Other Customer")
  }
  const channel = async (workspaceId: string, network: string, name: string, customerId: string | null) =>
    (await sys.admin.createChannel({ workspaceId, network, name, customerId, postingTimes: [] })).channelId
  channels = {
    test: await channel(a.workspaceId, "test", "Test channel", null),
    x: await channel(a.workspaceId, "x", "Our X", customers.alpha),
    linkedin: await channel(a.workspaceId, "linkedin", "Our LinkedIn", customers.mike),
    pinterest: await channel(a.workspaceId, "pinterest", "Our Pins", null),
    other: await channel(b.workspaceId, "test", "Their channel", customers.other)
  }
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

describe("GET /is-connected", () => {
  it("a valid workspace key: 200 {connected: true}", async () => {
    const res = await client(sys.url, a.apiKey).get("/public/v1/is-connected")
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ connected: true })
  })

  it("a valid person's token: 200 {connected: true}", async () => {
    const { userId } = await sys.admin.createUser({
      workspaceId: a.workspaceId,
      email: "conn@example.com",
      password: "password1",
      role: "client",
      timezone: null
    })
    const token = await issueUserToken(world, a.workspaceId, userId)
    expect((await client(sys.url, token).get("/public/v1/is-connected")).json).toEqual({ connected: true })
  })

  it("no key: 401, not {connected: false}", async () => {
    const res = await client(sys.url).get("/public/v1/is-connected")
    expect(res.status).toBe(401)
    expect(errorOf(res).error).toBe("No API Key found")
  })
})

describe("GET /integrations", () => {
  it("lists every channel of the workspace with exactly the Channel fields", async () => {
    const res = await client(sys.url, a.apiKey).get("/public/v1/integrations")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    const listed = channelsOf(res)
    expect(listed.map((c) => c.id).sort()).toEqual([channels.test, channels.x, channels.linkedin, channels.pinterest].sort())
    for (const item of listed) {
      expect(Object.keys(item).sort()).toEqual(item.customer === undefined ? channelFieldsWithoutCustomer : channelFields)
      expect(typeof item.name).toBe("string")
      expect(typeof item.profile).toBe("string")
      expect(typeof item.disabled).toBe("boolean")
      expect(typeof item.refreshNeeded).toBe("boolean")
      expect(typeof item.inBetweenSteps).toBe("boolean")
    }
  })

  it("a new channel: identifier is the network id, picture null, all flags false", async () => {
    const res = await client(sys.url, a.apiKey).get("/public/v1/integrations")
    const item = channelsOf(res).find((c) => c.id === channels.test)
    expect(item).toEqual({
      id: channels.test,
      name: "Test channel",
      identifier: "test",
      picture: null,
      disabled: false,
      refreshNeeded: false,
      inBetweenSteps: false,
      profile: expect.any(String)
    })
  })

  it("`customer` is present only when the channel belongs to a customer", async () => {
    const res = await client(sys.url, a.apiKey).get("/public/v1/integrations")
    const byId = new Map(channelsOf(res).map((c) => [c.id, c]))
    expect(byId.get(channels.x)?.customer).toEqual({ id: customers.alpha, name: "Alpha Client" })
    expect(byId.get(channels.linkedin)?.customer).toEqual({ id: customers.mike, name: "Mike Co" })
    expect("customer" in present(byId.get(channels.test), "the test channel")).toBe(false)
    expect("customer" in present(byId.get(channels.pinterest), "the pinterest channel")).toBe(false)
  })

  it("picture and the flags come from the channel (disabled, refreshNeeded, inBetweenSteps)", async () => {
    const ws = await sys.admin.createWorkspace("Flags")
    const { channelId } = await sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "test",
      name: "Flagged",
      customerId: null,
      postingTimes: []
    })
    await withDb(world, (c) =>
      c.query(
        "UPDATE channels SET picture = 'https://cdn.example.com/p.png', disabled = true, refresh_needed = true, in_between_steps = true WHERE id = $1",
        [channelId]
      )
    )
    const [item] = channelsOf(await client(sys.url, ws.apiKey).get("/public/v1/integrations"))
    expect(item).toMatchObject({ picture: "https://cdn.example.com/p.png", disabled: true, refreshNeeded: true, inBetweenSteps: true })
  })

  it("query `group`: only channels of this customer id", async () => {
    const res = await client(sys.url, a.apiKey).get(`/public/v1/integrations?group=${customers.alpha}`)
    expect(res.status).toBe(200)
    expect(channelsOf(res).map((c) => c.id)).toEqual([channels.x])
  })

  it("query `group` of a customer without channels: an empty list", async () => {
    const res = await client(sys.url, a.apiKey).get(`/public/v1/integrations?group=${customers.empty}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual([])
  })

  it("query `group` of another workspace's customer: an empty list", async () => {
    const res = await client(sys.url, a.apiKey).get(`/public/v1/integrations?group=${customers.other}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual([])
  })

  it.each(["not-a-uuid", "123", "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4"])(
    "query `group` that is not a UUID (%j): 400 invalid id, not a server error",
    async (group) => {
      const res = await client(sys.url, a.apiKey).get(`/public/v1/integrations?group=${group}`)
      expect(res.status).toBe(400)
      expect(res.json).toEqual({
        error: "One of the ids is not valid.",
        msg: "One of the ids is not valid.",
        fix: "Check the id. Copy it again from the list it came from."
      })
    }
  )

  it("query `group` left empty (`?group=`): all channels or 400, never a server error", async () => {
    const res = await client(sys.url, a.apiKey).get("/public/v1/integrations?group=")
    expect(res.status).not.toBe(500)
    if (res.status === 200) expect(res.json).toHaveLength(4)
    else expect(errorOf(res).error).toBe("One of the ids is not valid.")
  })

  it("another workspace's channels are never listed", async () => {
    const mine = await client(sys.url, a.apiKey).get("/public/v1/integrations")
    expect(channelsOf(mine).map((c) => c.id)).not.toContain(channels.other)
    const theirs = await client(sys.url, b.apiKey).get("/public/v1/integrations")
    expect(channelsOf(theirs).map((c) => c.id)).toEqual([channels.other])
  })
})

describe("GET /groups", () => {
  it("lists the workspace's customers as {id, name}, sorted by name", async () => {
    const res = await client(sys.url, a.apiKey).get("/public/v1/groups")
    expect(res.status).toBe(200)
    expect(res.json).toEqual([
      { id: customers.alpha, name: "Alpha Client" },
      { id: customers.mike, name: "Mike Co" },
      { id: customers.empty, name: "Nobody's Channels" },
      { id: customers.zeta, name: "Zeta Agency" }
    ])
  })

  it("another workspace's customers are never listed", async () => {
    expect((await client(sys.url, b.apiKey).get("/public/v1/groups")).json).toEqual([{ id: customers.other, name: "Other Customer" }])
  })

  it("a workspace without customers: an empty list", async () => {
    const ws = await sys.admin.createWorkspace("No customers")
    expect((await client(sys.url, ws.apiKey).get("/public/v1/groups")).json).toEqual([])
  })
})

describe("GET /integration-settings/{id}", () => {
  const outputFields = ["comments", "maxLength", "maxMedia", "needs", "rules", "settings", "tools"]

  it("a `test` channel: 200 {output} with the test network's rules, settings and tools", async () => {
    const res = await client(sys.url, a.apiKey).get(`/public/v1/integration-settings/${channels.test}`)
    expect(res.status).toBe(200)
    const { output } = settingsOf(res)
    expect(Object.keys(output).sort()).toEqual(outputFields)
    expect(output).toMatchObject({ maxLength: 500, needs: null, maxMedia: 4, comments: true })
    expect(output.tools.map((t) => t.methodName)).toEqual(["echo", "stats"])
    for (const tool of output.tools) {
      expect(Object.keys(tool).sort()).toEqual(["dataSchema", "description", "methodName"])
      for (const field of tool.dataSchema) expect(Object.keys(field).sort()).toEqual(["description", "key", "type"])
    }
    expect(res.json).toEqual({ output: integrationSettingsOf(networkOf("test")) })
  })

  it("an `x` channel: required settings carry required: true, optional ones have no `required`", async () => {
    const res = await client(sys.url, a.apiKey).get(`/public/v1/integration-settings/${channels.x}`)
    expect(res.status).toBe(200)
    const settings = settingsOf(res).output.settings
    if (typeof settings === "string") throw new Error(`x has settings: ${settings}`)
    const reply = settings.find((s) => s.key === "who_can_reply_post")
    expect(reply).toEqual({
      key: "who_can_reply_post",
      label: expect.any(String),
      type: "select",
      options: ["everyone", "following", "mentionedUsers", "subscribers", "verified"],
      help: expect.any(String),
      required: true
    })
    const community = present(
      settings.find((s) => s.key === "community"),
      "the community setting"
    )
    expect(Object.keys(community).sort()).toEqual(["help", "key", "label", "options", "type"])
    expect(settingsOf(res).output).toMatchObject({ maxLength: 280, comments: true, tools: [expect.objectContaining({ methodName: "whoami" })] })
    expect(res.json).toEqual({ output: integrationSettingsOf(networkOf("x")) })
  })

  it("a network without settings: settings is the text `No additional settings required`", async () => {
    const res = await client(sys.url, a.apiKey).get(`/public/v1/integration-settings/${channels.linkedin}`)
    expect(res.status).toBe(200)
    expect(settingsOf(res).output.settings).toBe(noSettings)
  })

  it("a channel that does not exist: 404", async () => {
    const res = await client(sys.url, a.apiKey).get(`/public/v1/integration-settings/${unknownId}`)
    expect(res.status).toBe(404)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })

  it("another workspace's channel: 404", async () => {
    const res = await client(sys.url, a.apiKey).get(`/public/v1/integration-settings/${channels.other}`)
    expect(res.status).toBe(404)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
    expect(JSON.stringify(res.json)).not.toContain("Their channel")
  })

  it("an id that is not a UUID: 400 invalid id", async () => {
    const res = await client(sys.url, a.apiKey).get("/public/v1/integration-settings/12345")
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("One of the ids is not valid.")
  })
})

describe("POST /integration-trigger/{id}", () => {
  const trigger = (channelId: string, body: unknown, key = a.apiKey) => client(sys.url, key).post(`/public/v1/integration-trigger/${channelId}`, body)

  it("test network `echo`: 200 {output: {text}}", async () => {
    const res = await trigger(channels.test, { methodName: "echo", data: { text: "hello ✓" } })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ output: { text: "hello ✓" } })
  })

  it("test network `stats`: 200 with the channel's post counts by status", async () => {
    const ws = await sys.admin.createWorkspace("Stats")
    const { channelId } = await sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "test",
      name: "Counted",
      customerId: null,
      postingTimes: []
    })
    const empty = await trigger(channelId, { methodName: "stats" }, ws.apiKey)
    expect(empty.status).toBe(200)
    expect(empty.json).toEqual({ output: { channelId, posts: {} } })
    await insertPosts(ws.workspaceId, channelId, ["draft", "draft", "queued", "published", "error"])
    const res = await trigger(channelId, { methodName: "stats", data: {} }, ws.apiKey)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ output: { channelId, posts: { draft: 2, error: 1, published: 1, queued: 1 } } })
  })

  it("an unknown methodName: 400", async () => {
    const res = await trigger(channels.test, { methodName: "launchRocket" })
    expect(res.status).toBe(400)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
    expect(errorOf(res).error).toContain("launchRocket")
  })

  it("a missing methodName: 400", async () => {
    const res = await trigger(channels.test, { data: { text: "x" } })
    expect(res.status).toBe(400)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
    expect(errorOf(res).error).toContain("methodName")
  })

  it.each([
    ["a string", "text"],
    ["a number", 5],
    ["a boolean", true],
    ["null", null],
    ["an array", ["text", "hello"]]
  ])("data that is not an object (%s): 400", async (_what, data) => {
    const res = await trigger(channels.test, { methodName: "echo", data })
    expect(res.status).toBe(400)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })

  it("data without the tool's key (echo without text): 400", async () => {
    const res = await trigger(channels.test, { methodName: "echo", data: {} })
    expect(res.status).toBe(400)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })

  it("an unknown channel: 404", async () => {
    const res = await trigger(unknownId, { methodName: "echo", data: { text: "x" } })
    expect(res.status).toBe(404)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })

  it("another workspace's channel: 404", async () => {
    const res = await trigger(channels.other, { methodName: "echo", data: { text: "x" } })
    expect(res.status).toBe(404)
  })

  it("a tool of a channel saved without credentials (pinterest `boards`): 400, nothing asked of the network", async () => {
    const res = await trigger(channels.pinterest, { methodName: "boards" })
    expect(res.status).toBe(400)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })

  it("a network without tools (x): any methodName answers 400", async () => {
    const res = await trigger(channels.x, { methodName: "echo", data: { text: "x" } })
    expect(res.status).toBe(400)
  })

  it("a tool of another network (pinterest's `boards` on a test channel): 400", async () => {
    const res = await trigger(channels.test, { methodName: "boards" })
    expect(res.status).toBe(400)
  })
})

/** Posts of one channel, one whole post each, straight in the database. */
const insertPosts = (workspaceId: string, channelId: string, statuses: ReadonlyArray<string>) =>
  withDb(world, async (c) => {
    const ids: Array<{ postId: string; groupId: string; status: string }> = []
    for (const status of statuses) {
      const groupId = crypto.randomUUID()
      const postId = crypto.randomUUID()
      const groupStatus = status === "queued" ? "scheduled" : status === "unconfirmed" ? "error" : status
      await c.query(
        `INSERT INTO post_groups (id, workspace_id, status, publish_at, creation_method, share_token)
         VALUES ($1, $2, $3, now(), 'api', $4)`,
        [groupId, workspaceId, groupStatus, crypto.randomUUID()]
      )
      await c.query(
        `INSERT INTO posts (id, group_id, workspace_id, channel_id, ordinal, status, publish_date)
         VALUES ($1, $2, $3, $4, 0, $5, now())`,
        [postId, groupId, workspaceId, channelId, status]
      )
      ids.push({ postId, groupId, status })
    }
    return ids
  })

describe("DELETE /integrations/{id}", () => {
  const newWorkspaceWithChannel = async () => {
    const ws = await sys.admin.createWorkspace("Deleting")
    const { channelId } = await sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "test",
      name: "Doomed",
      customerId: null,
      postingTimes: []
    })
    return { ...ws, channelId }
  }
  const tokenFor = async (workspaceId: string, role: "owner" | "admin" | "editor" | "client") => {
    const { userId } = await sys.admin.createUser({
      workspaceId,
      email: `${role}-${crypto.randomUUID()}@example.com`,
      password: "password1",
      role,
      timezone: null
    })
    return issueUserToken(world, workspaceId, userId)
  }
  const listed = async (key: string) => ((await client(sys.url, key).get("/public/v1/integrations")).json as Array<{ id: string }>).map((c) => c.id)

  it("the workspace key: 200 {success: true} and the channel disappears from GET /integrations", async () => {
    const ws = await newWorkspaceWithChannel()
    expect(await listed(ws.apiKey)).toEqual([ws.channelId])
    const res = await client(sys.url, ws.apiKey).del(`/public/v1/integrations/${ws.channelId}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ success: true })
    expect(await listed(ws.apiKey)).toEqual([])
    expect((await client(sys.url, ws.apiKey).get(`/public/v1/integration-settings/${ws.channelId}`)).status).toBe(404)
  })

  it("deleting the same channel again: 404", async () => {
    const ws = await newWorkspaceWithChannel()
    expect((await client(sys.url, ws.apiKey).del(`/public/v1/integrations/${ws.channelId}`)).status).toBe(200)
    const again = await client(sys.url, ws.apiKey).del(`/public/v1/integrations/${ws.channelId}`)
    expect(again.status).toBe(404)
    expect(errorOf(again).msg).toBe(errorOf(again).error)
  })

  it.each(["editor", "client"] as const)("a %s's token: 403 with a fix, and the channel stays", async (role) => {
    const ws = await newWorkspaceWithChannel()
    const token = await tokenFor(ws.workspaceId, role)
    const res = await client(sys.url, token).del(`/public/v1/integrations/${ws.channelId}`)
    expect(res.status).toBe(403)
    expect(errorOf(res).error.length).toBeGreaterThan(0)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
    expect(typeof errorOf(res).fix).toBe("string")
    expect(errorOf(res).fix?.length).toBeGreaterThan(0)
    expect(await listed(ws.apiKey)).toEqual([ws.channelId])
  })

  it.each(["owner", "admin"] as const)("an %s's token: 200 {success: true}", async (role) => {
    const ws = await newWorkspaceWithChannel()
    const token = await tokenFor(ws.workspaceId, role)
    const res = await client(sys.url, token).del(`/public/v1/integrations/${ws.channelId}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ success: true })
    expect(await listed(ws.apiKey)).toEqual([])
  })

  it("another workspace's channel: 404, and it stays in its workspace", async () => {
    const mine = await newWorkspaceWithChannel()
    const theirs = await newWorkspaceWithChannel()
    const res = await client(sys.url, mine.apiKey).del(`/public/v1/integrations/${theirs.channelId}`)
    expect(res.status).toBe(404)
    expect(await listed(theirs.apiKey)).toEqual([theirs.channelId])
  })

  it("an unknown channel: 404", async () => {
    const ws = await newWorkspaceWithChannel()
    expect((await client(sys.url, ws.apiKey).del(`/public/v1/integrations/${unknownId}`)).status).toBe(404)
  })

  it("the channel's drafts, queued, failed and unconfirmed posts are deleted; published ones remain", async () => {
    const ws = await newWorkspaceWithChannel()
    const posts = await insertPosts(ws.workspaceId, ws.channelId, ["draft", "queued", "error", "unconfirmed", "published"])
    const res = await client(sys.url, ws.apiKey).del(`/public/v1/integrations/${ws.channelId}`)
    expect(res.status).toBe(200)
    const rows = await withDb(world, (c) =>
      c.query<{ status: string; deleted: boolean }>(
        "SELECT status, deleted_at IS NOT NULL AS deleted FROM posts WHERE channel_id = $1 ORDER BY status",
        [ws.channelId]
      )
    )
    expect(rows.rows).toEqual([
      { status: "draft", deleted: true },
      { status: "error", deleted: true },
      { status: "published", deleted: false },
      { status: "queued", deleted: true },
      { status: "unconfirmed", deleted: true }
    ])
    expect(posts).toHaveLength(5)
  })

  it("another channel's post in the same whole post is kept", async () => {
    const ws = await newWorkspaceWithChannel()
    const { channelId: keptChannel } = await sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "test",
      name: "Kept",
      customerId: null,
      postingTimes: []
    })
    const [shared] = await insertPosts(ws.workspaceId, ws.channelId, ["draft"])
    await withDb(world, (c) =>
      c.query(
        `INSERT INTO posts (id, group_id, workspace_id, channel_id, ordinal, status, publish_date)
         VALUES ($1, $2, $3, $4, 1, 'draft', now())`,
        [crypto.randomUUID(), shared!.groupId, ws.workspaceId, keptChannel]
      )
    )
    expect((await client(sys.url, ws.apiKey).del(`/public/v1/integrations/${ws.channelId}`)).status).toBe(200)
    const rows = await withDb(world, (c) =>
      c.query<{ channel_id: string; deleted: boolean }>("SELECT channel_id, deleted_at IS NOT NULL AS deleted FROM posts WHERE group_id = $1", [
        shared!.groupId
      ])
    )
    const byChannel = Object.fromEntries(rows.rows.map((r) => [r.channel_id, r.deleted]))
    expect(byChannel).toEqual({ [ws.channelId]: true, [keptChannel]: false })
    expect(await listed(ws.apiKey)).toEqual([keptChannel])
  })
})
