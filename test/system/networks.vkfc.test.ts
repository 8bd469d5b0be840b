import { describe, expect, it } from "vitest"
import { answerOf, created as createdPost, wholePost } from "../support/answers.js"
import { type client, decoded } from "../support/http.js"
import { seedAccount } from "../support/simulator/index.js"
import { waitFor } from "../support/wait.js"
import { useNetworksWorld, firstChannel } from "../support/networksWorld.js"

/**
 * VK and Farcaster end to end: channels connected with the admin CLI's credentials from the
 * simulator's seed (and VK with its VK ID sign-in link and callback), a post with an image and a follow-up through the public API, published
 * by the real scheduler and publisher. VK gets the photo through its wall upload server;
 * Farcaster's clients fetch the embed from the gateway's signed address (PUBLIC_URL names
 * the gateway's own port here). Each item arrives exactly once, also when the network took
 * it but its answer was lost.
 */

const networks = useNetworksWorld("vkfc")
const { newWorkspace, channelOf, upload, counts } = networks

const settledPost = async (api: ReturnType<typeof client>, group: string, what: string) => {
  const post = await waitFor(
    what,
    async () => {
      const p = wholePost(await api.get(`/public/v1/posts/${group}`))
      const c = firstChannel(p)
      const settled = (s: string) => ["published", "error", "unconfirmed"].includes(s)
      return settled(c.root.state) && c.thread.every((t) => settled(t.state)) ? p : undefined
    },
    30_000
  )
  return firstChannel(post)
}

describe("connecting VK and Farcaster with the admin CLI's credentials", () => {
  it.each([
    ["vk", { accessToken: "token-only" }, /VK credentials need accessToken and ownerId/],
    ["warpcast", { apiKey: "key-only" }, /Farcaster credentials need apiKey .* and signerUuid/]
  ] as const)(
    "%s: a missing field is named and nothing is saved",
    async (network, credentials, message) => {
      const w = await newWorkspace()
      await expect(
        networks.sys.admin.createChannel({ workspaceId: w.workspaceId, network, name: "Nope", customerId: null, postingTimes: [], credentials })
      ).rejects.toThrow(message)
      expect((await w.api.get("/public/v1/integrations")).json).toEqual([])
    },
    60_000
  )

  it("Farcaster: a signer not yet approved is refused with where to approve it", async () => {
    const w = await newWorkspace()
    const credentials = await seedAccount(networks.sim, "warpcast", { status: "pending_approval" })
    await expect(
      networks.sys.admin.createChannel({
        workspaceId: w.workspaceId,
        network: "warpcast",
        name: "Pending",
        customerId: null,
        postingTimes: [],
        credentials
      })
    ).rejects.toThrow(/not approved/)
  }, 60_000)
})

describe("VK: signing in with VK ID", () => {
  it("GET /social/vk → VK ID (PKCE) → the callback connects the user's wall, which publishes once", async () => {
    const w = await newWorkspace()
    const link = new URL(decoded(await w.api.get("/public/v1/social/vk"), answerOf("account", "socialConnect")).url)
    expect(link.searchParams.get("code_challenge_method")).toBe("S256")
    link.searchParams.set("account", "Signed Person")
    const back = new URL((await fetch(link, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.pathname).toBe("/integrations/social/vk")
    expect(back.searchParams.get("device_id")).not.toBeNull()
    const page = await fetch(`${networks.sys.url}${back.pathname}${back.search}`)
    expect(page.status, await page.clone().text()).toBe(200)
    const [channel] = decoded(await w.api.get("/public/v1/integrations"), answerOf("account", "listIntegrations"))
    expect(channel).toMatchObject({ identifier: "vk", name: "Signed Person" })
    const text = `Signed in ${crypto.randomUUID().slice(0, 8)}`
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channel!.id }, value: [{ content: text }], settings: {} }]
    })
    expect(created.status, created.text).toBe(200)
    const posted = await settledPost(w.api, createdPost(created).group, "vk (VK ID): published")
    expect(posted.root.state, JSON.stringify(posted.root.error)).toBe("published")
    expect(networks.sim.postsOf("vk").filter((p) => p.text === text)).toHaveLength(1)
  }, 60_000)
})

describe("publishing to VK and Farcaster", () => {
  it.each([
    ["vk", { name: "Launch club" }],
    ["warpcast", { username: "launcher" }]
  ] as const)(
    "%s: a post with an image and a follow-up reply, each once",
    async (network, account) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network, account)
      const image = await upload(w.apiKey)
      const text = `Launch day ${crypto.randomUUID().slice(0, 8)}`
      const reply = `More about it ${crypto.randomUUID().slice(0, 8)}`
      const created = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [
          {
            integration: { id: channelId },
            value: [
              { content: text, image: [{ id: image.id, path: image.path }] },
              { content: reply, delay: 0 }
            ],
            settings: {}
          }
        ]
      })
      expect(created.status, created.text).toBe(200)
      const channel = await settledPost(w.api, createdPost(created).group, `${network}: published with its follow-up`)
      expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
      expect(channel.thread.map((t) => t.state)).toEqual(["published"])
      const roots = networks.sim.postsOf(network).filter((p) => p.text === text)
      const replies = networks.sim.postsOf(network).filter((p) => p.text === reply)
      expect(roots).toHaveLength(1)
      expect(replies).toHaveLength(1)
      expect(roots[0]?.id).toBe(channel.root.releaseId)
      expect(roots[0]?.media).toEqual([expect.objectContaining({ mime: "image/png" })])
      expect(roots[0]?.media[0]?.size).toBeGreaterThan(0)
      expect(replies[0]?.replyTo).toBe(channel.root.releaseId)
    },
    60_000
  )

  it.each([
    ["vk", "accept-then-5xx"],
    ["warpcast", "accept-then-reset"]
  ] as const)(
    "%s took the post but answered %s: published with the network's id, once",
    async (network, mode) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const text = `lost answer ${crypto.randomUUID().slice(0, 8)}`
      networks.sim.fail({ network, op: "publish", mode, times: 1 })
      const created = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: text }], settings: {} }]
      })
      expect(created.status, created.text).toBe(200)
      const channel = await settledPost(w.api, createdPost(created).group, `${network}: settled`)
      const held = networks.sim.postsOf(network).filter((p) => p.text === text)
      expect(held).toHaveLength(1)
      expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
      expect(channel.root.releaseId).toBe(held[0]?.id)
    },
    60_000
  )

  it("Farcaster: a cast with three images is refused with the spec's 400 before anything is saved", async () => {
    const w = await newWorkspace()
    const { channelId } = await channelOf(w.workspaceId, "warpcast")
    const files = await Promise.all([upload(w.apiKey), upload(w.apiKey), upload(w.apiKey)])
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "three", image: files.map((f) => ({ id: f.id, path: f.path })) }], settings: {} }]
    })
    expect(res.status, res.text).toBe(400)
    expect(res.text).toMatch(/too many files, 3 of 2/)
    expect(await counts(w.workspaceId)).toEqual({ groups: 0, items: 0 })
  }, 60_000)
})
