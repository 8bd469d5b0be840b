import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeTelegramAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedTelegramChat, telegramModule } from "./simulator.js"

/** The Telegram adapter against the simulator's Bot API. */

let sim: Simulator
let adapter: NetworkAdapter
const one = imageMedia("http://files.test/1.png")
const two = imageMedia("http://files.test/2.png", "Second")

beforeAll(async () => {
  sim = await startSimulatorCore([telegramModule])
  adapter = await buildAdapter(
    makeTelegramAdapterWith({ apiUrl: sim.baseOf("telegram") }),
    adapterDeps(
      sim,
      new Map([
        [one.url, PNG],
        [two.url, PNG]
      ])
    )
  )
})
afterAll(() => sim.close())

describe("Telegram: connecting with a bot token and a chat", () => {
  it("verify checks the bot and that it may post in the chat", async () => {
    const given = seedTelegramChat(sim, { title: "Launch news", username: "launchnews" })
    const connected = await run(adapter.verify(given))
    expect(connected.credentials).toMatchObject({ botToken: given.botToken, chatId: given.chatId, chatUsername: "launchnews" })
    expect(connected.profile).toMatchObject({ name: "Launch news", profile: "launchnews" })
    expect(adapter.connect.kind).toBe("form")
  })

  it.each([
    [{ botToken: "0:nope", chatId: -1 }, /refused/],
    [{ chatId: 1 }, /botToken/]
  ])("verify refuses %j", async (input, message) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })

  it("verify refuses a chat the bot is not in", async () => {
    const a = seedTelegramChat(sim)
    const b = seedTelegramChat(sim)
    const result = await Effect.runPromise(Effect.either(adapter.verify({ botToken: a.botToken, chatId: b.chatId })))
    expect(Either.isLeft(result) && result.left.message).toMatch(/add the bot/)
  })
})

describe("Telegram: publishing", () => {
  it("a message, then a follow-up that replies to it; the address is the public t.me link", async () => {
    const c = seedTelegramChat(sim, { username: "pubchan" })
    const root = published(await run(adapter.publish(requestFor(c, { content: "Hello Telegram" }))))
    expect(root.releaseUrl).toBe(`https://t.me/pubchan/${root.releaseId}`)
    const reply = published(await run(adapter.publishFollowUp(requestFor(c, { content: "reply", position: 1, previousReleaseId: root.releaseId }))))
    expect(sim.postsOf("telegram").find((p) => p.id === reply.releaseId && p.account === String(c.chatId))?.replyTo).toBe(root.releaseId)
  })

  it("one photo with its caption; several as a media group", async () => {
    const c = seedTelegramChat(sim)
    const photo = published(await run(adapter.publish(requestFor(c, { content: "with a photo", media: [one] }))))
    expect(photo.releaseUrl).toMatch(/^https:\/\/t\.me\/c\/\d+\/\d+$/)
    const group = published(await run(adapter.publish(requestFor(c, { content: "two photos", media: [one, two] }))))
    const held = sim.postsOf("telegram").filter((p) => p.account === String(c.chatId))
    expect(held.find((p) => p.id === photo.releaseId)).toMatchObject({
      text: "with a photo",
      media: [expect.objectContaining({ mime: "image/png" })]
    })
    expect(held.find((p) => p.id === group.releaseId)?.text).toBe("two photos")
    expect(held.filter((p) => p.media.length === 1)).toHaveLength(3)
  })

  it("a text too long for a caption goes as a reply to the photo", async () => {
    const c = seedTelegramChat(sim)
    const long = "y".repeat(1500)
    const photo = published(await run(adapter.publish(requestFor(c, { content: long, media: [one] }))))
    const held = sim.postsOf("telegram").filter((p) => p.account === String(c.chatId))
    expect(held.find((p) => p.text === long)?.replyTo).toBe(photo.releaseId)
  })

  it("a message over 4096 characters is rejected with Telegram's reason and a fix", async () => {
    const answer = await run(adapter.publish(requestFor(seedTelegramChat(sim), { content: "z".repeat(4097) })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("too long"), fix: expect.stringContaining("4096") })
  })

  it("Telegram cannot search: the search says so", async () => {
    expect((await run(adapter.search(requestFor(seedTelegramChat(sim), { content: "x" }))))._tag).toBe("CannotTell")
  })
})

describe("Telegram: faults", () => {
  faultMatrix({ network: "telegram", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(seedTelegramChat(sim), { content }) })
})
