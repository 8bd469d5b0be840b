import { describe, expect, it } from "vitest"
import { created as createdPost, wholePost } from "../support/answers.js"
import type { client } from "../support/http.js"
import { waitFor } from "../support/wait.js"
import { useNetworksWorld, firstChannel } from "../support/networksWorld.js"

/**
 * Pinterest, Google Business Profile and Reddit end to end: channels created with the admin
 * CLI's credentials from the simulator's seed, posts with an image (and a follow-up comment
 * where the network takes one) through the public API, published by the real scheduler and
 * publisher; the networks that fetch media themselves fetch it from the gateway's signed
 * address (PUBLIC_URL names the gateway's own port here). One bad input per network is
 * refused with the spec's 400 and nothing is saved.
 */

const networks = useNetworksWorld("boards")
const { newWorkspace, channelOf, upload, counts } = networks

const publishedPost = async (api: ReturnType<typeof client>, group: string, what: string) => {
  const post = await waitFor(
    what,
    async () => {
      const p = wholePost(await api.get(`/public/v1/posts/${group}`))
      const c = firstChannel(p)
      const settled = (s: string) => s === "published" || s === "error"
      return settled(c.root.state) && c.thread.every((t) => settled(t.state)) ? p : undefined
    },
    30_000
  )
  return firstChannel(post)
}

describe("publishing to Pinterest, Google Business Profile and Reddit", () => {
  it("Pinterest: an image pin on the channel's default board (the image fetched from the gateway's signed address), once", async () => {
    const w = await newWorkspace()
    const { channelId, credentials } = await channelOf(w.workspaceId, "pinterest", { username: "boardy" })
    const image = await upload(w.apiKey)
    const text = `New pin ${crypto.randomUUID().slice(0, 8)}`
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        { integration: { id: channelId }, value: [{ content: text, image: [{ id: image.id, path: image.path }] }], settings: { title: "Cats" } }
      ]
    })
    expect(created.status, created.text).toBe(200)
    const channel = await publishedPost(w.api, createdPost(created).group, "pinterest: published")
    expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
    const arrived = networks.sim.postsOf("pinterest").filter((p) => p.text === text)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]?.id).toBe(channel.root.releaseId)
    expect(arrived[0]?.extra).toMatchObject({ board_id: credentials["boardId"], title: "Cats", source_type: "image_url" })
    expect(arrived[0]?.media[0]?.size).toBeGreaterThan(0)
  }, 60_000)

  it("Google Business Profile: a post with its photo and a call to action on the location, once", async () => {
    const w = await newWorkspace()
    const { channelId, credentials } = await channelOf(w.workspaceId, "gmb", { name: "Corner Bakery" })
    const image = await upload(w.apiKey)
    const text = `Fresh bread ${crypto.randomUUID().slice(0, 8)}`
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: text, image: [{ id: image.id, path: image.path }] }],
          settings: { callToAction: "order", callToActionUrl: "https://bakery.example/order" }
        }
      ]
    })
    expect(created.status, created.text).toBe(200)
    const channel = await publishedPost(w.api, createdPost(created).group, "gmb: published")
    expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
    const arrived = networks.sim.postsOf("gmb").filter((p) => p.text === text)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]).toMatchObject({ id: channel.root.releaseId, account: credentials["location"] })
    expect(arrived[0]?.media[0]?.mime).toBe("image/png")
  }, 60_000)

  it("Reddit: an image post in the subreddit with its title, and a follow-up comment on it, once each", async () => {
    const w = await newWorkspace()
    const { channelId } = await channelOf(w.workspaceId, "reddit", { username: "boards_redditor" })
    const image = await upload(w.apiKey)
    const title = `Look at this ${crypto.randomUUID().slice(0, 8)}`
    const comment = `More about it ${crypto.randomUUID().slice(0, 8)}`
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: channelId },
          value: [
            { content: "A picture", image: [{ id: image.id, path: image.path }] },
            { content: comment, delay: 0 }
          ],
          settings: { subreddit: [{ value: { subreddit: "test", title, type: "media" } }] }
        }
      ]
    })
    expect(created.status, created.text).toBe(200)
    const channel = await publishedPost(w.api, createdPost(created).group, "reddit: published with its comment")
    expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
    expect(channel.thread.map((t) => t.state)).toEqual(["published"])
    const posts = networks.sim.postsOf("reddit").filter((p) => p.extra["title"] === title)
    const replies = networks.sim.postsOf("reddit").filter((p) => p.text === comment)
    expect(posts).toHaveLength(1)
    expect(replies).toHaveLength(1)
    expect(posts[0]).toMatchObject({ id: channel.root.releaseId, extra: { kind: "image", subreddit: "test" } })
    expect(replies[0]?.replyTo).toBe(channel.root.releaseId)
  }, 60_000)
})

describe("a lost answer is settled by the network's search, never a second copy", () => {
  it.each([
    ["pinterest", "accept-then-5xx"],
    ["gmb", "accept-then-reset"],
    ["reddit", "accept-then-reset"]
  ] as const)(
    "%s took the post but answered %s: published with the network's id, once",
    async (network, mode) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const text = `lost answer ${crypto.randomUUID().slice(0, 8)}`
      const image = network === "pinterest" ? [await upload(w.apiKey)] : []
      const settings = network === "reddit" ? { subreddit: [{ subreddit: "test", title: text }] } : {}
      networks.sim.fail({ network, op: "publish", mode, times: 1 })
      const created = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: text, image: image.map((f) => ({ id: f.id, path: f.path })) }], settings }]
      })
      expect(created.status, created.text).toBe(200)
      const root = await waitFor(
        `${network}: settled`,
        async () => {
          const c = firstChannel(wholePost(await w.api.get(`/public/v1/posts/${createdPost(created).group}`)))
          return ["published", "unconfirmed", "error"].includes(c.root.state) ? c.root : undefined
        },
        30_000
      )
      const held = networks.sim.postsOf(network).filter((p) => p.text === text)
      expect(held).toHaveLength(1)
      expect(root.state, JSON.stringify(root.error)).toBe("published")
      expect(root.releaseId).toBe(held[0]?.id)
    },
    60_000
  )
})

describe("bad input is refused with the spec's 400 before anything is saved", () => {
  it.each([
    ["pinterest", "a pin with no board (the default board set aside)", { board: "" }, 1, /the setting board \(Board\) is required/],
    ["reddit", "a Reddit post without a title", { subreddit: [{ subreddit: "test" }] }, 0, /entry 1 of the setting subreddit needs a title/],
    ["gmb", "a Google post with two photos", {}, 2, /too many files, 2 of 1/]
  ] as const)(
    "%s: %s",
    async (network, _what, settings, images, message) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const files = await Promise.all(Array.from({ length: images }, () => upload(w.apiKey)))
      const res = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [
          { integration: { id: channelId }, value: [{ content: "refuse me", image: files.map((f) => ({ id: f.id, path: f.path })) }], settings }
        ]
      })
      expect(res.status, res.text).toBe(400)
      expect(res.text).toMatch(message)
      expect(await counts(w.workspaceId)).toEqual({ groups: 0, items: 0 })
    },
    60_000
  )
})
