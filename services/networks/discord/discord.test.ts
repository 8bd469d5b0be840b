import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeDiscordAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { DISCORD_SIM_BOT_TOKEN, discordModule, seedDiscordChannel } from "./simulator.js"

/** The Discord adapter against the simulator's Discord API. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/d.png")

beforeAll(async () => {
  sim = await startSimulatorCore([discordModule])
  adapter = await buildAdapter(
    makeDiscordAdapterWith({
      apiUrl: sim.baseOf("discord"),
      authUrl: sim.baseOf("discord"),
      clientId: Option.some("client"),
      clientSecret: Option.some(Redacted.make("secret")),
      botToken: Option.some(Redacted.make(DISCORD_SIM_BOT_TOKEN))
    }),
    adapterDeps(sim, new Map([[image.url, PNG]]))
  )
})
afterAll(() => sim.close())

const credentials = () => {
  const { botToken, channelId } = seedDiscordChannel(sim, { channelName: "launches" })
  return { botToken, channelId }
}

describe("Discord: connecting", () => {
  it("verify checks the bot token and the channel", async () => {
    const given = credentials()
    const connected = await run(adapter.verify(given))
    expect(connected.credentials).toMatchObject({ botToken: given.botToken, channelId: given.channelId, guildId: expect.any(String) })
    expect(connected.profile.name).toBe("#launches")
  })

  it.each([
    [{ botToken: "wrong", channelId: "1" }, /refused/],
    [{ botToken: DISCORD_SIM_BOT_TOKEN, channelId: "404" }, /cannot see/],
    [{ channelId: "1" }, /botToken/]
  ])("verify refuses %j", async (input, message) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })

  it("the bot link adds the bot to a server; the code names the guild", async () => {
    seedDiscordChannel(sim)
    if (adapter.connect.kind !== "link") throw new Error("Discord connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/discord"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "s", redirectUri, codeVerifier: "v".repeat(43), instance: null })))
    expect(url.searchParams.get("scope")).toContain("bot")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const query = Object.fromEntries(back.searchParams)
    const connected = await run(adapter.connect.exchange({ code: query["code"] ?? "", redirectUri, codeVerifier: "", instance: null, query }))
    expect(connected.credentials).toMatchObject({ botToken: DISCORD_SIM_BOT_TOKEN, guildId: query["guild_id"] })
  })
})

describe("Discord: publishing", () => {
  it("a message with an image, a reply to it, and the same item twice is one message (nonce)", async () => {
    const c = credentials()
    const request = requestFor(c, { content: "Hello Discord", media: [image] })
    const root = published(await run(adapter.publish(request)))
    const again = published(await run(adapter.publish(request)))
    expect(again.releaseId).toBe(root.releaseId)
    expect(root.releaseUrl).toMatch(new RegExp(`^https://discord.com/channels/\\d+/${c.channelId}/${root.releaseId}$`))
    const reply = published(await run(adapter.publishFollowUp(requestFor(c, { content: "reply", position: 1, previousReleaseId: root.releaseId }))))
    const held = sim.postsOf("discord").filter((p) => p.account === c.channelId)
    expect(held).toHaveLength(2)
    expect(held[0]).toMatchObject({ text: "Hello Discord", media: [expect.objectContaining({ mime: "image/png", size: PNG.length })] })
    expect(held[1]).toMatchObject({ id: reply.releaseId, replyTo: root.releaseId })
  })

  it("the post's channel setting picks the channel; without one and without a channel id it is rejected with a fix", async () => {
    const c = credentials()
    const other = seedDiscordChannel(sim, { channelName: "elsewhere" })
    const to = published(await run(adapter.publish(requestFor(c, { content: "to elsewhere", settings: { channel: other.channelId } }))))
    expect(sim.postsOf("discord").find((p) => p.id === to.releaseId)?.account).toBe(other.channelId)
    const answer = await run(adapter.publish(requestFor({ botToken: DISCORD_SIM_BOT_TOKEN, guildId: other.guildId }, { content: "nowhere" })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("channel setting") })
  })

  it("the channels tool lists the server's text channels", async () => {
    const c = credentials()
    const output = await run(adapter.runTool({ channel: channelRow("discord"), credentials: Redacted.make(c), methodName: "channels", data: {} }))
    expect(output).toEqual({ channels: expect.arrayContaining([{ id: c.channelId, name: "launches" }]) })
    expect((output["channels"] as Array<{ name: string }>).map((x) => x.name)).not.toContain("Voice")
  })

  it("Discord cannot search: the search says so", async () => {
    expect((await run(adapter.search(requestFor(credentials(), { content: "x" }))))._tag).toBe("CannotTell")
  })
})

describe("Discord: faults", () => {
  faultMatrix({ network: "discord", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(credentials(), { content }) })
})
