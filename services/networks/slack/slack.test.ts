import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeSlackAdapterWith } from "./adapter.js"
import { faultMatrix, withDeadline } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedSlackWorkspace, slackModule } from "./simulator.js"

/** The Slack adapter against the simulator's Slack Web API. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/slack.png")
const second = imageMedia("http://files.test/slack2.png", "")

beforeAll(async () => {
  sim = await startSimulatorCore([slackModule])
  adapter = await buildAdapter(
    makeSlackAdapterWith({
      apiUrl: `${sim.baseOf("slack")}/api`,
      authUrl: sim.baseOf("slack"),
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("csecret"))
    }),
    adapterDeps(
      sim,
      new Map([
        [image.url, PNG],
        [second.url, PNG]
      ])
    )
  )
})
afterAll(() => sim.close())

/** A workspace's bot credentials as verify stores them (team address and bot ids). */
const connected = async () => (await run(adapter.verify(seedSlackWorkspace(sim, { name: `T ${crypto.randomUUID().slice(0, 6)}` })))).credentials
const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`

describe("Slack: connecting", () => {
  it("installs with OAuth v2; the channel picked on Slack's page (incoming-webhook) is the channel's default", async () => {
    if (adapter.connect.kind !== "link") throw new Error("Slack connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/slack"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: "v", instance: null })))
    expect(url.pathname).toBe("/slack/oauth/v2/authorize")
    expect(url.searchParams.get("scope")).toContain("chat:write")
    expect(url.searchParams.get("scope")).toContain("incoming-webhook")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st")
    const code = back.searchParams.get("code") ?? ""
    const result = await run(adapter.connect.exchange({ code, redirectUri, codeVerifier: "v", instance: null, query: {} }))
    expect(result.credentials).toMatchObject({
      botToken: expect.stringMatching(/^xoxb-/),
      channelId: expect.any(String),
      teamUrl: expect.stringMatching(/slack\.com\/$/)
    })
    expect(result.defaultSettings).toEqual({ channel: result.credentials["channelId"] })
    expect(result.profile.name).toBe("#general")
    const again = await Effect.runPromise(
      Effect.either(adapter.connect.exchange({ code, redirectUri, codeVerifier: "v", instance: null, query: {} }))
    )
    expect(Either.isLeft(again) && again.left.message).toMatch(/invalid_code/)
  })

  it.each([
    [{ botToken: "xoxb-wrong", channelId: "C1" }, /invalid_auth/],
    [{ channelId: "C1" }, /botToken/],
    [{ botToken: "xoxb-x" }, /channelId/]
  ])("verify refuses %j", async (input, message) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })

  it("verify refuses a channel the app cannot see", async () => {
    const { botToken } = seedSlackWorkspace(sim)
    const result = await Effect.runPromise(Effect.either(adapter.verify({ botToken, channelId: "C404" })))
    expect(Either.isLeft(result) && result.left.message).toMatch(/cannot see the channel C404/)
  })
})

describe("Slack: publishing", () => {
  it("a message (&, < and > escaped as Slack asks), and a follow-up in its thread", async () => {
    const c = await connected()
    const text = unique("Release <v2> & notes")
    const root = published(await run(adapter.publish(requestFor(c, { content: text }))))
    expect(root.releaseId).toMatch(/^\d+\.\d{6}$/)
    expect(root.releaseUrl).toBe(`${String(c["teamUrl"])}archives/${String(c["channelId"])}/p${root.releaseId.replace(".", "")}`)
    const reply = published(
      await run(
        adapter.publishFollowUp(requestFor(c, { content: "more", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId }))
      )
    )
    const held = sim.postsOf("slack").filter((p) => p.account === c["channelId"])
    expect(held).toHaveLength(2)
    expect(held[0]).toMatchObject({ id: root.releaseId, text, extra: { raw: expect.stringContaining("&lt;v2&gt; &amp;") } })
    expect(held[1]).toMatchObject({ id: reply.releaseId, replyTo: root.releaseId })
    expect(reply.releaseUrl).toContain(`thread_ts=${root.releaseId}`)
  })

  it("files go by the external upload flow, shared with the text as one message (found by its files); a follow-up's files in the thread", async () => {
    const c = await connected()
    const text = unique("Photos")
    const root = published(await run(adapter.publish(requestFor(c, { content: text, media: [image, second] }))))
    const held = sim.postsOf("slack").find((p) => p.id === root.releaseId)
    expect(held).toMatchObject({
      text,
      media: [expect.objectContaining({ mime: "image/png", size: PNG.length, alt: "A cat" }), expect.objectContaining({ size: PNG.length })]
    })
    const reply = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "one more", media: [image], position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    expect(sim.postsOf("slack").find((p) => p.id === reply.releaseId)).toMatchObject({
      replyTo: root.releaseId,
      media: [expect.objectContaining({ size: PNG.length })]
    })
  })

  it("files Slack has not shown yet: Pending with the file ids, then published from them without a second upload", async () => {
    const c = await connected()
    const text = unique("slow share")
    sim.setSearchDelay(400)
    try {
      const first = await run(adapter.publish(requestFor(c, { content: text, media: [image] })))
      if (first._tag !== "Pending") throw new Error(`expected Pending, got ${JSON.stringify(first)}`)
      expect(first.progress).toMatchObject({ fileIds: [expect.stringMatching(/^F/)], channel: c["channelId"] })
      const uploads = () => sim.requests.filter((r) => r.path === "/api/files.getUploadURLExternal").length
      const before = uploads()
      expect((await run(adapter.search(requestFor(c, { content: text, media: [image], progress: first.progress }))))._tag).toBe("Unfinished")
      await new Promise((r) => setTimeout(r, 450))
      const done = published(await run(adapter.publish(requestFor(c, { content: text, media: [image], progress: first.progress }))))
      expect(uploads()).toBe(before)
      expect(sim.postsOf("slack").filter((p) => p.text === text)).toEqual([expect.objectContaining({ id: done.releaseId })])
    } finally {
      sim.setSearchDelay(0)
    }
  })

  it("the post's channel setting picks the channel; a private channel the app is not in is refused with Slack's error and a fix", async () => {
    const c = await connected()
    const list = await run(adapter.runTool({ channel: channelRow("slack"), credentials: Redacted.make(c), methodName: "channels", data: {} }))
    expect(list).toEqual({ channels: [{ id: c["channelId"], name: "general" }] })
    const answer = await run(adapter.publish(requestFor(c, { content: "psst", settings: { channel: "G404" } })))
    expect(answer).toMatchObject({
      _tag: "Rejected",
      message: expect.stringContaining("channel_not_found"),
      fix: expect.stringContaining("Invite the app")
    })
    const none = await run(adapter.publish(requestFor({ botToken: c["botToken"] }, { content: "nowhere" })))
    expect(none).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("channel setting") })
  })

  it("Slack's ok:false answers: too long is rejected with a fix; a bad token asks to reconnect; 429 waits for Retry-After", async () => {
    const c = await connected()
    expect(await run(adapter.publish(requestFor(c, { content: "x".repeat(40_001) })))).toMatchObject({
      _tag: "Rejected",
      message: expect.stringContaining("msg_too_long"),
      fix: expect.stringContaining("40000")
    })
    expect(await run(adapter.publish(requestFor({ ...c, botToken: "xoxb-revoked" }, { content: "x" })))).toMatchObject({
      _tag: "Rejected",
      fix: expect.stringContaining("Reconnect")
    })
    const fatal = adapter.classify({
      _tag: "Response",
      response: { url: "https://slack.com/api/chat.postMessage", status: 200, headers: {}, body: Buffer.from('{"ok":false,"error":"fatal"}') }
    })
    expect(fatal._tag).toBe("NoAnswer")
  })
})

describe("Slack: a lost answer is settled by the channel's history", () => {
  it("a message Slack took whose answer was lost is found (Found), a follow-up in its thread; one never sent is not found", async () => {
    const c = await connected()
    const text = unique("lost")
    sim.fail({ network: "slack", op: "publish", mode: "accept-then-reset", times: 1 })
    const lost = await withDeadline(adapter.publish(requestFor(c, { content: text })))
    expect(lost._tag).toBe("NoAnswer")
    const held = sim.postsOf("slack").filter((p) => p.text === text)
    expect(held).toHaveLength(1)
    expect(await run(adapter.search(requestFor(c, { content: text })))).toMatchObject({ _tag: "Found", releaseId: held[0]?.id })
    expect((await run(adapter.search(requestFor(c, { content: unique("never") }))))._tag).toBe("NotFound")
    const root = held[0]?.id ?? ""
    const replyText = unique("lost reply")
    sim.fail({ network: "slack", op: "publish", mode: "accept-then-5xx", times: 1 })
    expect(
      (await withDeadline(adapter.publishFollowUp(requestFor(c, { content: replyText, previousReleaseId: root, rootReleaseId: root }))))._tag
    ).toBe("NoAnswer")
    const found = await run(adapter.search(requestFor(c, { content: replyText, previousReleaseId: root, rootReleaseId: root })))
    expect(found).toMatchObject({ _tag: "Found", releaseId: sim.postsOf("slack").find((p) => p.text === replyText)?.id })
  })

  it("files whose completeUploadExternal answer was lost: found by text when shared; never NotFound (Slack may still share them)", async () => {
    const c = await connected()
    const text = unique("lost files")
    sim.fail({ network: "slack", op: "publish", mode: "accept-then-reset", times: 1 })
    expect((await withDeadline(adapter.publish(requestFor(c, { content: text, media: [image] }))))._tag).toBe("NoAnswer")
    expect((await run(adapter.search(requestFor(c, { content: text, media: [image] }))))._tag).toBe("Found")
    sim.fail({ network: "slack", op: "publish", mode: "5xx", times: 1 })
    const other = unique("unshared files")
    expect((await withDeadline(adapter.publish(requestFor(c, { content: other, media: [image] }))))._tag).toBe("NoAnswer")
    expect((await run(adapter.search(requestFor(c, { content: other, media: [image] }))))._tag).toBe("CannotTell")
  })

  it.each([
    ["5xx", "FailedBeforeSending"],
    ["reset", "FailedBeforeSending"],
    ["rate-limit", "RateLimited"]
  ] as const)("an upload step that fails (%s) before the files are shared: %s, nothing in the channel", async (mode, tag) => {
    const c = await connected()
    const text = unique(`upload ${mode}`)
    sim.fail({ network: "slack", op: "media", mode, times: 1, retryAfterSeconds: 2 })
    try {
      expect((await withDeadline(adapter.publish(requestFor(c, { content: text, media: [image] }))))._tag).toBe(tag)
      expect(sim.postsOf("slack").filter((p) => p.text === text)).toHaveLength(0)
    } finally {
      sim.clearFaults()
    }
  })

  it("history Slack cannot give (internal_error) cannot tell", async () => {
    const c = await connected()
    sim.fail({ network: "slack", op: "search", mode: "unavailable", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: "x" }))))._tag).toBe("CannotTell")
  })
})

describe("Slack: faults", () => {
  const c = { value: undefined as Readonly<Record<string, unknown>> | undefined }
  beforeAll(async () => {
    c.value = await connected()
  })
  faultMatrix({ network: "slack", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(c.value ?? {}, { content }) })
})
