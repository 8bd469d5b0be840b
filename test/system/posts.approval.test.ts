import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { created as createdPost, wholePost } from "../support/answers.js"

let world: TestWorld
let sys: RunningServices
let apiKey: string
let channelId: string
let approvalChannelId: string

const inOneHour = () => new Date(Date.now() + 3600_000).toISOString()

/** The share page is opened as a browser would: no key, the link is enough. */
const sharePath = (previewUrl: string) => new URL(previewUrl).pathname

const outbox = (event: string) =>
  withDb(world, (c) => c.query<{ data: Record<string, unknown> }>("SELECT data FROM outbox WHERE event = $1 ORDER BY created_at", [event]))

beforeAll(async () => {
  world = await createWorld("approval")
  sys = await startServices(world, ["gateway", "actors"])
  const ws = await sys.admin.createWorkspace()
  apiKey = ws.apiKey
  channelId = (
    await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Plain channel", customerId: null, postingTimes: [] })
  ).channelId
  const { customerId } = await sys.admin.createCustomer({ workspaceId: ws.workspaceId, name: "Client Co", approval: true })
  approvalChannelId = (
    await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Client channel", customerId, postingTimes: [] })
  ).channelId
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

describe("Review and approval through the share page", () => {
  it("a review post: approval.requested with its preview link, the page shows the post and the two choices", async () => {
    const created = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "review",
      date: inOneHour(),
      content: "Please <b>check</b> me",
      channels: [channelId]
    })
    expect(created.status).toBe(200)
    expect(createdPost(created).status).toBe("draft")
    const { group, previewUrl } = createdPost(created)
    const post = await client(sys.url, apiKey).get(`/public/v1/posts/${group}`)
    expect(post.json).toMatchObject({ status: "review", approvalStatus: "requested", approvedBy: null, shareUrl: previewUrl })
    const requested = (await outbox("approval.requested")).rows.map((r) => r.data)
    expect(requested).toContainEqual(
      expect.objectContaining({ groupId: group, channelIds: [channelId], previewUrl, requestedBy: "API", approvalStatus: "requested" })
    )
    const page = await fetch(`${sys.url}${sharePath(previewUrl)}`)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    const html = await page.text()
    expect(html).toContain("Please check me")
    expect(html).toContain("Waiting for your approval")
    expect(html).toContain("/approve")
    expect(html).toContain("/changes")
  })

  it("approve: the channels are queued for the post's time, whole post scheduled, approval.approved", async () => {
    const date = inOneHour()
    const created = await client(sys.url, apiKey).post("/public/v1/posts", { date, content: "Approve me", channels: [approvalChannelId] })
    const { group, previewUrl } = createdPost(created)
    // the customer has approval on: schedule is treated as review
    expect(wholePost(await client(sys.url, apiKey).get(`/public/v1/posts/${group}`)).status).toBe("review")
    const res = await fetch(`${sys.url}${sharePath(previewUrl)}/approve`, { method: "POST", redirect: "manual" })
    expect(res.status).toBe(303)
    const post = await client(sys.url, apiKey).get(`/public/v1/posts/${group}`)
    expect(post.json).toMatchObject({ status: "scheduled", approvalStatus: "approved", approvedBy: "Client Co" })
    expect(wholePost(post).channels[0]?.root.state).toBe("queued")
    expect(wholePost(post).publishAt).toBe(new Date(date).toISOString())
    const approved = (await outbox("approval.approved")).rows.map((r) => r.data)
    expect(approved).toContainEqual(expect.objectContaining({ groupId: group, approvedBy: "Client Co", approvalStatus: "approved", previewUrl }))
    // a second decision is refused on the page, nothing changes
    const again = await fetch(`${sys.url}${sharePath(previewUrl)}/approve`, { method: "POST", redirect: "manual" })
    expect(again.status).toBe(200)
    expect(await again.text()).toContain("This post is not waiting for approval.")
  })

  it("ask for changes: whole post `changes`, channels stay drafts, approval.changes with the comment, comment listed", async () => {
    const created = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "review",
      date: inOneHour(),
      content: "Change me",
      channels: [channelId]
    })
    const { group, previewUrl } = createdPost(created)
    const res = await fetch(`${sys.url}${sharePath(previewUrl)}/changes`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ comment: "Use the new logo" }).toString()
    })
    expect(res.status).toBe(303)
    const post = await client(sys.url, apiKey).get(`/public/v1/posts/${group}`)
    expect(post.json).toMatchObject({ status: "changes", approvalStatus: "changes" })
    expect(wholePost(post).channels[0]?.root.state).toBe("draft")
    expect(wholePost(post).comments).toEqual([expect.objectContaining({ author: "Client", role: "client", content: "Use the new logo" })])
    const changes = (await outbox("approval.changes")).rows.map((r) => r.data)
    expect(changes).toContainEqual(expect.objectContaining({ groupId: group, comment: "Use the new logo", approvalStatus: "changes" }))
    // editing it sends it to review again
    const edited = await client(sys.url, apiKey).post("/public/v1/posts", {
      groupId: group,
      date: inOneHour(),
      content: "Changed",
      channels: [channelId]
    })
    expect(edited.status).toBe(200)
    expect((await client(sys.url, apiKey).get(`/public/v1/posts/${group}`)).json).toMatchObject({ status: "review", approvalStatus: "requested" })
  })

  it("asking for changes without a comment is refused on the page", async () => {
    const created = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "review",
      date: inOneHour(),
      content: "No comment",
      channels: [channelId]
    })
    const { group, previewUrl } = createdPost(created)
    const res = await fetch(`${sys.url}${sharePath(previewUrl)}/changes`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "comment=%20"
    })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain("Please say what should change.")
    expect(wholePost(await client(sys.url, apiKey).get(`/public/v1/posts/${group}`)).status).toBe("review")
  })

  it("an unknown or deleted link answers 404 with a page, never another workspace's post", async () => {
    expect((await fetch(`${sys.url}/p/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404)
    expect((await fetch(`${sys.url}/p/x`)).status).toBe(404)
    const created = await client(sys.url, apiKey).post("/public/v1/posts", { type: "draft", content: "Gone soon", channels: [channelId] })
    const { group, previewUrl } = createdPost(created)
    expect((await fetch(`${sys.url}${sharePath(previewUrl)}`)).status).toBe(200)
    await client(sys.url, apiKey).del(`/public/v1/posts/${group}`)
    expect((await fetch(`${sys.url}${sharePath(previewUrl)}`)).status).toBe(404)
  })

  it("the page escapes the post's text", async () => {
    const created = await client(sys.url, apiKey).post("/public/v1/posts", { type: "draft", content: 'a < b & "c"', channels: [channelId] })
    const html = await (await fetch(`${sys.url}${sharePath(createdPost(created).previewUrl)}`)).text()
    expect(html).toContain("a &lt; b &amp; &quot;c&quot;")
  })
})
