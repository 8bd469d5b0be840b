import { describe, expect, it } from "vitest"
import { answerOf, created as createdPost, present, wholePost } from "../support/answers.js"
import { decoded } from "../support/http.js"
import { seedAccount } from "../support/simulator/index.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { useNetworksWorld, connectUrlOf, firstChannel } from "../support/networksWorld.js"

/**
 * Lemmy and the Fediverse servers beyond Mastodon end to end: a Lemmy channel created with the
 * admin CLI's credentials (instance, username, password), a Pixelfed channel signed in with
 * the Mastodon link on the Pixelfed instance, a GoToSocial channel from the admin CLI; each
 * publishes a post with an image and a follow-up through the public API, published by the
 * real scheduler and publisher to the simulator, each item arriving once.
 */

const networks = useNetworksWorld("fediverse")
const { newWorkspace, upload } = networks

const publishWithFollowUp = async (
  w: Awaited<ReturnType<typeof newWorkspace>>,
  channelId: string,
  texts: { readonly post: string; readonly followUp: string },
  settings: Record<string, unknown> = {}
) => {
  const image = await upload(w.apiKey)
  const created = await w.api.post("/public/v1/posts", {
    type: "now",
    posts: [
      {
        integration: { id: channelId },
        value: [
          { content: texts.post, image: [{ id: image.id, path: image.path }] },
          { content: texts.followUp, delay: 0 }
        ],
        settings
      }
    ]
  })
  expect(created.status, created.text).toBe(200)
  const post = await waitFor(
    "the post and its follow-up settled",
    async () => {
      const p = wholePost(await w.api.get(`/public/v1/posts/${createdPost(created).group}`))
      const c = firstChannel(p)
      const settled = (s: string) => s === "published" || s === "error"
      return settled(c.root.state) && c.thread.every((t) => settled(t.state)) ? p : undefined
    },
    30_000
  )
  const channel = firstChannel(post)
  expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
  expect(channel.thread.map((t) => t.state)).toEqual(["published"])
  return channel
}

const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`

describe("Lemmy", () => {
  it("a channel from the admin CLI (instance, username, password) posts an image post in the community, then a comment on it, once each", async () => {
    const w = await newWorkspace()
    const credentials = await seedAccount(networks.sim, "lemmy", { username: "fedi_lemming", password: "correct horse" })
    const { channelId } = await networks.sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "lemmy",
      name: "Lemmy",
      customerId: null,
      postingTimes: [],
      credentials
    })
    const title = unique("A title")
    const texts = { post: unique("The body"), followUp: unique("A comment") }
    const channel = await publishWithFollowUp(w, channelId, texts, { subreddit: [{ value: { subreddit: "technology", title } }] })
    const posts = networks.sim.postsOf("lemmy").filter((p) => p.text === texts.post)
    const comments = networks.sim.postsOf("lemmy").filter((p) => p.text === texts.followUp)
    expect(posts).toHaveLength(1)
    expect(comments).toHaveLength(1)
    expect(posts[0]).toMatchObject({ url: channel.root.releaseUrl, extra: { title, community: "technology" } })
    expect(posts[0]?.media[0]?.mime).toBe("image/png")
    expect(comments[0]?.replyTo).toBe(posts[0]?.id)
  }, 60_000)

  it("a Lemmy post without a title is refused with the spec's 400 before anything is saved", async () => {
    const w = await newWorkspace()
    const { channelId } = await networks.sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "lemmy",
      name: "Lemmy",
      customerId: null,
      postingTimes: [],
      credentials: await seedAccount(networks.sim, "lemmy", {})
    })
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "no title" }], settings: { subreddit: [{ subreddit: "technology" }] } }]
    })
    expect(res.status, res.text).toBe(400)
    expect(res.text).toMatch(/entry 1 of the setting subreddit needs a title/)
    const groups = await withDb(networks.world, async (c) =>
      Number((await c.query("SELECT count(*)::int AS n FROM post_groups WHERE workspace_id = $1", [w.workspaceId])).rows[0]?.n)
    )
    expect(groups).toBe(0)
  }, 60_000)
})

describe("Fediverse servers through the Mastodon adapter", () => {
  it("Pixelfed: signed in with the Mastodon link on the Pixelfed instance, a photo post and a reply, once each", async () => {
    const w = await newWorkspace()
    const instance = `${networks.sim.baseOf("mastodon")}/pixelfed`
    await seedAccount(networks.sim, "mastodon", { username: "pixie", software: "pixelfed" })
    const res = await w.api.get(`/public/v1/social/mastodon?instance=${encodeURIComponent(instance)}`)
    expect(res.status, res.text).toBe(200)
    const url = new URL(connectUrlOf(res))
    expect(url.origin + url.pathname).toBe(`${instance}/oauth/authorize`)
    url.searchParams.set("account", "pixie")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const page = await fetch(`${networks.sys.url}${back.pathname}${back.search}`)
    expect(page.status).toBe(200)
    const channels = decoded(await w.api.get("/public/v1/integrations"), answerOf("account", "listIntegrations"))
    const pixelfed = present(
      channels.find((c) => c.profile === "pixie"),
      "the Pixelfed channel"
    )
    // Pixelfed takes photos: a text-only post is refused before saving (the instance's rule kept at connect)
    const textOnly = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: pixelfed.id }, value: [{ content: "words" }] }]
    })
    expect(textOnly.status, textOnly.text).toBe(400)
    const texts = { post: unique("A photo"), followUp: unique("About the photo") }
    const channel = await publishWithFollowUp(w, pixelfed.id, texts)
    const posts = networks.sim.postsOf("mastodon").filter((p) => p.text === texts.post)
    const replies = networks.sim.postsOf("mastodon").filter((p) => p.text === texts.followUp)
    expect(posts).toHaveLength(1)
    expect(replies).toHaveLength(1)
    expect(posts[0]).toMatchObject({ id: channel.root.releaseId, extra: { software: "pixelfed" } })
    expect(posts[0]?.media[0]?.mime).toBe("image/png")
    expect(replies[0]?.replyTo).toBe(posts[0]?.id)
  }, 60_000)

  it("GoToSocial: a channel from the admin CLI takes the instance's 5000 characters; a post with an image and a reply, once each", async () => {
    const w = await newWorkspace()
    const credentials = await seedAccount(networks.sim, "mastodon", { username: "gotosocialite", software: "gotosocial" })
    const { channelId } = await networks.sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "mastodon",
      name: "GoToSocial",
      customerId: null,
      postingTimes: [],
      credentials: { instance: credentials["instance"], accessToken: credentials["accessToken"] }
    })
    // longer than Mastodon's 500: GoToSocial announced 5000 at connect
    const texts = { post: `${unique("Long")} ${"words ".repeat(150)}`.trim(), followUp: unique("A reply") }
    const channel = await publishWithFollowUp(w, channelId, texts)
    const posts = networks.sim.postsOf("mastodon").filter((p) => p.text === texts.post)
    const replies = networks.sim.postsOf("mastodon").filter((p) => p.text === texts.followUp)
    expect(posts).toHaveLength(1)
    expect(replies).toHaveLength(1)
    expect(posts[0]).toMatchObject({ id: channel.root.releaseId, extra: { software: "gotosocial" }, dedupeKey: null })
    expect(posts[0]?.media[0]?.mime).toBe("image/png")
    expect(replies[0]?.replyTo).toBe(posts[0]?.id)
  }, 60_000)
})

describe("a lost answer is settled by the search where the server has no duplicate guard, never a second copy", () => {
  it.each([
    ["lemmy", "accept-then-reset"],
    ["gotosocial", "accept-then-5xx"]
  ] as const)(
    "%s took the post but answered %s: published with the server's id, once",
    async (which, mode) => {
      const w = await newWorkspace()
      const network = which === "lemmy" ? "lemmy" : "mastodon"
      const seeded = await seedAccount(networks.sim, network, which === "lemmy" ? {} : { software: "gotosocial" })
      const { channelId } = await networks.sys.admin.createChannel({
        workspaceId: w.workspaceId,
        network,
        name: which,
        customerId: null,
        postingTimes: [],
        credentials: which === "lemmy" ? seeded : { instance: seeded["instance"], accessToken: seeded["accessToken"] }
      })
      const text = unique("lost answer")
      const settings = which === "lemmy" ? { subreddit: [{ subreddit: "scheduling", title: text }] } : {}
      networks.sim.fail({ network, op: "publish", mode, times: 1 })
      const created = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: text }], settings }]
      })
      expect(created.status, created.text).toBe(200)
      const root = await waitFor(
        `${which}: settled`,
        async () => {
          const c = firstChannel(wholePost(await w.api.get(`/public/v1/posts/${createdPost(created).group}`)))
          return ["published", "unconfirmed", "error"].includes(c.root.state) ? c.root : undefined
        },
        30_000
      )
      const held = networks.sim.postsOf(network).filter((p) => p.text === text)
      expect(held).toHaveLength(1)
      expect(root.state, JSON.stringify(root.error)).toBe("published")
      expect(root.releaseUrl).toBe(held[0]?.url)
    },
    60_000
  )
})
