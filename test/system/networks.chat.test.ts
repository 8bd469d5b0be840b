import { describe, expect, it } from "vitest"
import { created as createdPost, wholePost } from "../support/answers.js"
import type { client } from "../support/http.js"
import { waitFor } from "../support/wait.js"
import { useNetworksWorld, firstChannel, channelsOf, connectUrlOf } from "../support/networksWorld.js"

/**
 * Slack, Twitch and Kick end to end: channels connected with the admin CLI's credentials
 * from the simulator's seed and through GET /social and its callback, posts and their
 * follow-ups published through the public API by the real scheduler and publisher, each item
 * arriving once (Slack with its file, by the external upload flow). Twitch and Kick chat is
 * text only: a post with a file is refused with the spec's 400 and nothing is saved.
 */

const networks = useNetworksWorld("chatnetworks")
const { newWorkspace, channelOf, upload, counts } = networks

const settled = async (api: ReturnType<typeof client>, group: string, what: string) => {
  const post = await waitFor(
    what,
    async () => {
      const p = wholePost(await api.get(`/public/v1/posts/${group}`))
      const c = firstChannel(p)
      const done = (s: string) => s === "published" || s === "error" || s === "unconfirmed"
      return done(c.root.state) && c.thread.every((t) => done(t.state)) ? p : undefined
    },
    30_000
  )
  return firstChannel(post)
}

describe("publishing to Slack, Twitch and Kick", () => {
  it("Slack: a message with its file in the channel, and a follow-up in its thread, once each", async () => {
    const w = await newWorkspace()
    const { channelId, credentials } = await channelOf(w.workspaceId, "slack", { name: "Chat Co" })
    const image = await upload(w.apiKey)
    const text = `Launch day ${crypto.randomUUID().slice(0, 8)}`
    const comment = `Thread note ${crypto.randomUUID().slice(0, 8)}`
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: channelId },
          value: [
            { content: text, image: [{ id: image.id, path: image.path }] },
            { content: comment, delay: 0 }
          ],
          settings: {}
        }
      ]
    })
    expect(created.status, created.text).toBe(200)
    const channel = await settled(w.api, createdPost(created).group, "slack: published with its follow-up")
    expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
    expect(channel.thread.map((t) => t.state)).toEqual(["published"])
    const posts = networks.sim.postsOf("slack").filter((p) => p.text === text)
    const replies = networks.sim.postsOf("slack").filter((p) => p.text === comment)
    expect(posts).toHaveLength(1)
    expect(replies).toHaveLength(1)
    expect(posts[0]).toMatchObject({
      id: channel.root.releaseId,
      account: credentials["channelId"],
      media: [expect.objectContaining({ mime: "image/png" })]
    })
    expect(replies[0]?.replyTo).toBe(channel.root.releaseId)
  }, 60_000)

  it.each([
    ["twitch", { login: "chatcaster" }, { announcement: false }],
    ["kick", { name: "KickCaster" }, {}]
  ] as const)(
    "%s: a chat message and a follow-up as its reply, once each",
    async (network, seed, settings) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network, seed)
      const text = `We are live ${crypto.randomUUID().slice(0, 8)}`
      const comment = `Come say hi ${crypto.randomUUID().slice(0, 8)}`
      const created = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: text }, { content: comment, delay: 0 }], settings }]
      })
      expect(created.status, created.text).toBe(200)
      const channel = await settled(w.api, createdPost(created).group, `${network}: published with its follow-up`)
      expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
      expect(channel.thread.map((t) => t.state)).toEqual(["published"])
      const posts = networks.sim.postsOf(network).filter((p) => p.text === text)
      const replies = networks.sim.postsOf(network).filter((p) => p.text === comment)
      expect(posts).toHaveLength(1)
      expect(replies).toHaveLength(1)
      expect(posts[0]?.id).toBe(channel.root.releaseId)
      expect(replies[0]?.replyTo).toBe(channel.root.releaseId)
    },
    60_000
  )

  it("Twitch: with the announcement setting the post is an announcement in its colour", async () => {
    const w = await newWorkspace()
    const { channelId } = await channelOf(w.workspaceId, "twitch")
    const text = `Giveaway ${crypto.randomUUID().slice(0, 8)}`
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: text }], settings: { announcement: true, color: "green" } }]
    })
    expect(created.status, created.text).toBe(200)
    const channel = await settled(w.api, createdPost(created).group, "twitch: announcement published")
    expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
    expect(networks.sim.postsOf("twitch").filter((p) => p.text === text)).toEqual([
      expect.objectContaining({ extra: { kind: "announcement", color: "green" } })
    ])
  }, 60_000)
})

describe("lost answers: Slack searches its channel; Twitch and Kick chat cannot be searched", () => {
  it("Slack took the message but the answer was lost: published with Slack's ts, once", async () => {
    const w = await newWorkspace()
    const { channelId } = await channelOf(w.workspaceId, "slack")
    const text = `lost answer ${crypto.randomUUID().slice(0, 8)}`
    networks.sim.fail({ network: "slack", op: "publish", mode: "accept-then-reset", times: 1 })
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: text }], settings: {} }]
    })
    expect(created.status, created.text).toBe(200)
    const channel = await settled(w.api, createdPost(created).group, "slack: settled")
    const held = networks.sim.postsOf("slack").filter((p) => p.text === text)
    expect(held).toHaveLength(1)
    expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
    expect(channel.root.releaseId).toBe(held[0]?.id)
  }, 60_000)

  it.each(["twitch", "kick"])(
    "%s took the message but the answer was lost: unconfirmed, never sent again",
    async (network) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const text = `lost chat ${crypto.randomUUID().slice(0, 8)}`
      networks.sim.fail({ network, op: "publish", mode: "accept-then-5xx", times: 1 })
      const created = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: text }], settings: {} }]
      })
      expect(created.status, created.text).toBe(200)
      const channel = await settled(w.api, createdPost(created).group, `${network}: settled`)
      expect(channel.root.state).toBe("unconfirmed")
      expect(networks.sim.postsOf(network).filter((p) => p.text === text)).toHaveLength(1)
    },
    60_000
  )
})

describe("rules enforced before saving", () => {
  it.each(["twitch", "kick"])(
    "%s: a chat message with a file is refused with the spec's 400, nothing saved",
    async (network) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const image = await upload(w.apiKey)
      const res = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: "with a picture", image: [{ id: image.id, path: image.path }] }], settings: {} }]
      })
      expect(res.status, res.text).toBe(400)
      expect(res.text).toMatch(/too many files, 1 of 0/)
      expect(await counts(w.workspaceId)).toEqual({ groups: 0, items: 0 })
    },
    60_000
  )

  it("kick: over 500 characters is refused before saving", async () => {
    const w = await newWorkspace()
    const { channelId } = await channelOf(w.workspaceId, "kick")
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "x".repeat(501) }], settings: {} }]
    })
    expect(res.status, res.text).toBe(400)
    expect(await counts(w.workspaceId)).toEqual({ groups: 0, items: 0 })
  }, 60_000)
})

describe("GET /public/v1/social/{network} and the callback", () => {
  it.each([
    ["slack", "/slack/oauth/v2/authorize"],
    ["twitch", "/twitch/oauth2/authorize"],
    ["kick", "/kick/oauth/authorize"]
  ])(
    "%s: the sign-in link (state bound to the workspace) comes back to the callback, which stores the channel",
    async (network, path) => {
      const w = await newWorkspace()
      const res = await w.api.get(`/public/v1/social/${network}`)
      expect(res.status, res.text).toBe(200)
      const url = new URL(connectUrlOf(res))
      expect(url.pathname).toBe(path)
      expect(url.searchParams.get("state")).toBeTruthy()
      if (network === "kick") expect(url.searchParams.get("code_challenge_method")).toBe("S256")
      const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
      expect(back.pathname).toBe(`/integrations/social/${network}`)
      const page = await fetch(`${networks.sys.url}${back.pathname}${back.search}`)
      expect(page.status, await page.clone().text()).toBe(200)
      expect(await page.text()).toContain("is connected")
      const channels = channelsOf(await w.api.get("/public/v1/integrations"))
      expect(channels).toEqual([expect.objectContaining({ identifier: network, refreshNeeded: false })])
    },
    60_000
  )
})
