import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeListmonkAdapter } from "./adapter.js"
import { faultMatrix, withDeadline } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { listmonkCampaigns, listmonkModule, seedListmonkAccount } from "./simulator.js"

/** The Listmonk adapter against a simulated instance: a campaign made, then started, never twice. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/header.png", "Header")

beforeAll(async () => {
  sim = await startSimulatorCore([listmonkModule])
  adapter = await buildAdapter(makeListmonkAdapter, adapterDeps(sim, new Map([[image.url, PNG]])))
})
afterAll(() => sim.close())

const campaignsWith = (text: string) => sim.postsOf("listmonk").filter((p) => p.text === text)

describe("Listmonk: connecting with an API user and a list", () => {
  it("verify reads the list; the list becomes the channel's default setting", async () => {
    const given = seedListmonkAccount(sim, { list: "Weekly" })
    const connected = await run(adapter.verify(given))
    expect(connected.credentials).toEqual({ instance: given.instance, username: given.username, token: given.token, listId: given.listId })
    expect(connected.profile).toMatchObject({ accountId: `${given.instance}#${given.listId}`, name: "Weekly" })
    expect(connected.defaultSettings).toEqual({ list: String(given.listId) })
  })

  it.each([
    [(g: ReturnType<typeof seedListmonkAccount>) => ({ ...g, token: "wrong" }), /refused/],
    [(g: ReturnType<typeof seedListmonkAccount>) => ({ ...g, listId: 999 }), /no mailing list 999/],
    [(g: ReturnType<typeof seedListmonkAccount>) => ({ ...g, instance: "not an address" }), /not an address/],
    [(g: ReturnType<typeof seedListmonkAccount>) => ({ instance: g.instance, username: g.username, token: g.token }), /listId/]
  ])("verify refuses bad credentials (%#)", async (change, message) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(change(seedListmonkAccount(sim)))))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })

  it("the lists tool answers the instance's lists, the channel's marked default", async () => {
    const account = seedListmonkAccount(sim, { list: "Members" })
    const answer = await run(adapter.runTool({ channel: channelRow("listmonk"), credentials: Redacted.make(account), methodName: "lists", data: {} }))
    expect(answer["lists"]).toContainEqual({ id: String(account.listId), name: "Members", subscribers: 120, default: true })
  })
})

describe("Listmonk: a campaign, made then started", () => {
  it("a Markdown campaign with its subject, to the channel's list, the image uploaded and shown first; started once", async () => {
    const account = seedListmonkAccount(sim)
    const text = `# News ${crypto.randomUUID().slice(0, 8)}\n\nThis week…`
    const answer = published(
      await run(
        adapter.publish(requestFor(account, { content: text, media: [image], settings: { subject: "This week", list: String(account.listId) } }))
      )
    )
    const held = campaignsWith(text)
    expect(held).toHaveLength(1)
    expect(held[0]).toMatchObject({ id: answer.releaseId, extra: { status: "running", starts: 1, subject: "This week", content_type: "markdown" } })
    expect(held[0]?.media[0]?.size).toBe(PNG.length)
    expect(answer.releaseUrl).toBe(`${account.instance}/admin/campaigns/${answer.releaseId}`)
  })

  it("without a subject the text's first line is the subject", async () => {
    const account = seedListmonkAccount(sim)
    const text = `## Launch day ${crypto.randomUUID().slice(0, 8)}\nMore`
    published(await run(adapter.publish(requestFor(account, { content: text }))))
    expect(campaignsWith(text)[0]?.extra["subject"]).toBe(text.split("\n")[0]?.replace("## ", ""))
  })

  it("a list that is not a number is refused before anything is sent", async () => {
    const before = sim.requests.length
    const answer = await run(adapter.publish(requestFor(seedListmonkAccount(sim), { content: "x", settings: { list: "weekly" } })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("must be a list id") })
    expect(sim.requests.length).toBe(before)
  })

  it("an image upload without an answer sends nothing: no campaign is made, safe to send again", async () => {
    const text = `upload lost ${crypto.randomUUID()}`
    sim.fail({ network: "listmonk", op: "media", mode: "5xx", times: 1 })
    const answer = await run(adapter.publish(requestFor(seedListmonkAccount(sim), { content: text, media: [image] })))
    sim.clearFaults()
    expect(answer._tag).toBe("FailedBeforeSending")
    expect(campaignsWith(text)).toHaveLength(0)
  })

  it("a list the instance does not have is refused with Listmonk's reason; nothing is sent", async () => {
    const text = `no such list ${crypto.randomUUID()}`
    const answer = await run(adapter.publish(requestFor(seedListmonkAccount(sim), { content: text, settings: { list: "999" } })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("invalid list IDs") })
    expect(campaignsWith(text)).toHaveLength(0)
  })
})

describe("Listmonk: never sent twice", () => {
  it("the start's answer lost after Listmonk started it: the search finds it running (published, started once)", async () => {
    const account = seedListmonkAccount(sim)
    const item = crypto.randomUUID()
    const text = `start lost ${item}`
    sim.fail({ network: "listmonk", op: "start", mode: "accept-then-reset", times: 1 })
    expect((await withDeadline(adapter.publish(requestFor(account, { content: text, itemId: item }))))._tag).toBe("NoAnswer")
    const found = await run(adapter.search(requestFor(account, { content: text, itemId: item })))
    const held = campaignsWith(text)
    expect(found).toMatchObject({ _tag: "Found", releaseId: held[0]?.id })
    expect(held).toHaveLength(1)
    expect(held[0]?.extra).toMatchObject({ status: "running", starts: 1 })
  })

  it("the start never reached Listmonk: the search answers the draft unfinished, and the publish starts that one campaign", async () => {
    const account = seedListmonkAccount(sim)
    const item = crypto.randomUUID()
    const text = `start refused ${item}`
    sim.fail({ network: "listmonk", op: "start", mode: "5xx", times: 1 })
    expect((await run(adapter.publish(requestFor(account, { content: text, itemId: item }))))._tag).toBe("NoAnswer")
    const found = await run(adapter.search(requestFor(account, { content: text, itemId: item })))
    expect(found._tag).toBe("Unfinished")
    const progress = found._tag === "Unfinished" ? found.progress : null
    const answer = published(await run(adapter.publish(requestFor(account, { content: text, itemId: item, progress }))))
    const held = campaignsWith(text)
    expect(held).toHaveLength(1)
    expect(held[0]).toMatchObject({ id: answer.releaseId, extra: { status: "running", starts: 1 } })
  })

  it("a plain second publish of the same item finds its campaign by the key: never a second campaign, never a second start", async () => {
    const account = seedListmonkAccount(sim)
    const item = crypto.randomUUID()
    const text = `twice ${item}`
    const first = published(await run(adapter.publish(requestFor(account, { content: text, itemId: item }))))
    const again = published(await run(adapter.publish(requestFor(account, { content: text, itemId: item }))))
    expect(again.releaseId).toBe(first.releaseId)
    expect(campaignsWith(text)).toHaveLength(1)
    expect(campaignsWith(text)[0]?.extra).toMatchObject({ status: "running", starts: 1 })
  })

  it("when Listmonk cannot say whether the item's campaign exists, nothing is made (safe to send again later)", async () => {
    const text = `guard unknown ${crypto.randomUUID()}`
    sim.fail({ network: "listmonk", op: "search", mode: "5xx", times: 1 })
    const answer = await run(adapter.publish(requestFor(seedListmonkAccount(sim), { content: text })))
    sim.clearFaults()
    expect(answer._tag).toBe("FailedBeforeSending")
    expect(campaignsWith(text)).toHaveLength(0)
  })

  it("continuing a campaign that already runs never starts it again", async () => {
    const account = seedListmonkAccount(sim)
    const text = `already running ${crypto.randomUUID()}`
    const first = published(await run(adapter.publish(requestFor(account, { content: text }))))
    const starts = sim.requests.filter((r) => r.op === "start").length
    const again = published(await run(adapter.publish(requestFor(account, { content: text, progress: { campaignId: Number(first.releaseId) } }))))
    expect(again.releaseId).toBe(first.releaseId)
    expect(sim.requests.filter((r) => r.op === "start").length).toBe(starts)
    expect(listmonkCampaigns(sim).find((c) => String(c.id) === first.releaseId)?.state.starts).toBe(1)
  })

  it("the create's answer lost: the search finds the draft by the item's key; another item's search finds nothing", async () => {
    const account = seedListmonkAccount(sim)
    const item = crypto.randomUUID()
    const text = `create lost ${item}`
    sim.fail({ network: "listmonk", op: "publish", mode: "accept-then-hang", times: 1 })
    expect((await withDeadline(adapter.publish(requestFor(account, { content: text, itemId: item }))))._tag).toBe("NoAnswer")
    expect((await run(adapter.search(requestFor(account, { content: text, itemId: item }))))._tag).toBe("Unfinished")
    expect((await run(adapter.search(requestFor(account, { content: text }))))._tag).toBe("NotFound")
  })

  it("a campaign list Listmonk does not answer cannot tell", async () => {
    sim.fail({ network: "listmonk", op: "search", mode: "html", times: 1 })
    const answer = await run(adapter.search(requestFor(seedListmonkAccount(sim), { content: "x" })))
    sim.clearFaults()
    expect(answer._tag).toBe("CannotTell")
  })
})

describe("Listmonk: statistics", () => {
  it("a campaign's sent, views, clicks and bounces; the list's subscribers", async () => {
    const account = seedListmonkAccount(sim, { subscribers: 30 })
    const answer = published(await run(adapter.publish(requestFor(account, { content: `stats ${crypto.randomUUID()}` }))))
    const post = await run(adapter.statistics.post(Redacted.make(account), answer.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Sent", 30],
      ["Views", 5],
      ["Clicks", 2],
      ["Bounces", 0]
    ])
    const channel = await run(adapter.statistics.channel(Redacted.make(account), 30))
    expect(channel._tag === "Metrics" && channel.metrics[0]).toMatchObject({ label: "Subscribers", data: [{ total: 30 }] })
  })
})

describe("Listmonk: faults", () => {
  faultMatrix({
    network: "listmonk",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(seedListmonkAccount(sim), { content })
  })
})
