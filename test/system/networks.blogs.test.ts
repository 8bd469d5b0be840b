import { describe, expect, it } from "vitest"
import { created as createdPost, present, wholePost } from "../support/answers.js"
import type { client } from "../support/http.js"
import { seedAccount } from "../support/simulator/index.js"
import { waitFor } from "../support/wait.js"
import { useNetworksWorld, firstChannel, channelsOf, connectUrlOf } from "../support/networksWorld.js"

/**
 * Tumblr, WordPress and Medium end to end: Tumblr connected through its sign-in link and
 * the callback, WordPress and Medium with the admin CLI's credentials from the simulator's
 * seed; posts with an image through the public API, published by the real scheduler and
 * publisher, each arriving once. None of the three takes follow-ups (refused before
 * saving). A lost answer: Tumblr and WordPress find the post by their search; Medium cannot
 * list posts, so the post ends unconfirmed and is never sent twice.
 */

const networks = useNetworksWorld("blogs")
const { newWorkspace, channelOf, upload, counts } = networks

const settled = async (api: ReturnType<typeof client>, group: string, what: string, states: ReadonlyArray<string> = ["published", "error"]) =>
  waitFor(
    what,
    async () => {
      const c = firstChannel(wholePost(await api.get(`/public/v1/posts/${group}`)))
      return states.includes(c.root.state) ? c.root : undefined
    },
    30_000
  )

const postNow = (
  api: ReturnType<typeof client>,
  channelId: string,
  content: string,
  image: ReadonlyArray<{ id: string; path: string }>,
  settings = {}
) =>
  api.post("/public/v1/posts", {
    type: "now",
    posts: [{ integration: { id: channelId }, value: [{ content, image: image.map((f) => ({ id: f.id, path: f.path })) }], settings }]
  })

describe("publishing to Tumblr, WordPress and Medium", () => {
  it("Tumblr: connected by its sign-in link; a photo post on the channel's blog, once", async () => {
    const w = await newWorkspace()
    await seedAccount(networks.sim, "tumblr", { username: "blogsy" })
    const link = await w.api.get("/public/v1/social/tumblr")
    expect(link.status, link.text).toBe(200)
    const url = new URL(connectUrlOf(link))
    expect(url.origin + url.pathname).toBe(`${networks.sim.baseOf("tumblr")}/oauth2/authorize`)
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.pathname).toBe("/integrations/social/tumblr")
    const page = await fetch(`${networks.sys.url}${back.pathname}${back.search}`)
    expect(await page.text()).toContain("is connected")
    const channel = present(channelsOf(await w.api.get("/public/v1/integrations"))[0], "the Tumblr channel")
    const image = await upload(w.apiKey)
    const text = `A photo post ${crypto.randomUUID().slice(0, 8)}`
    const created = await postNow(w.api, channel.id, text, [image], { tags: "photos, test" })
    expect(created.status, created.text).toBe(200)
    const root = await settled(w.api, createdPost(created).group, "tumblr: published")
    expect(root.state, JSON.stringify(root.error)).toBe("published")
    const arrived = networks.sim.postsOf("tumblr").filter((p) => p.text === text)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]).toMatchObject({ id: root.releaseId, extra: { tags: ["photos", "test"], blocks: ["image", "text"] } })
    expect(arrived[0]?.media[0]?.mime).toBe("image/png")
  }, 60_000)

  it("WordPress: a post with its title, category and featured image on the site of the credentials, once", async () => {
    const w = await newWorkspace()
    const { channelId } = await channelOf(w.workspaceId, "wordpress", { username: "blogs-editor" })
    const image = await upload(w.apiKey)
    const text = `The long read ${crypto.randomUUID().slice(0, 8)}`
    const created = await postNow(w.api, channelId, text, [image], { title: "Harbour news", status: "publish", categories: "2" })
    expect(created.status, created.text).toBe(200)
    const root = await settled(w.api, createdPost(created).group, "wordpress: published")
    expect(root.state, JSON.stringify(root.error)).toBe("published")
    const arrived = networks.sim.postsOf("wordpress").filter((p) => p.text === text)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]).toMatchObject({ id: root.releaseId, extra: { title: "Harbour news", status: "publish", categories: [2] } })
    expect(arrived[0]?.media[0]?.mime).toBe("image/png")
  }, 60_000)

  it("Medium: an article with its title and image (uploaded to Medium), once", async () => {
    const w = await newWorkspace()
    const { channelId } = await channelOf(w.workspaceId, "medium", { username: "blogs-writer" })
    const image = await upload(w.apiKey)
    const text = `An article ${crypto.randomUUID().slice(0, 8)}`
    const created = await postNow(w.api, channelId, text, [image], { title: "On harbours", tags: "sea, ships" })
    expect(created.status, created.text).toBe(200)
    const root = await settled(w.api, createdPost(created).group, "medium: published")
    expect(root.state, JSON.stringify(root.error)).toBe("published")
    const arrived = networks.sim.postsOf("medium").filter((p) => p.text === text)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]).toMatchObject({ id: root.releaseId, extra: { title: "On harbours", tags: ["sea", "ships"], contentFormat: "markdown" } })
    expect(arrived[0]?.media[0]?.mime).toBe("image/png")
  }, 60_000)
})

describe("a lost answer: searched where the network lists posts, unconfirmed where it cannot; never a second copy", () => {
  it.each([
    ["tumblr", "accept-then-5xx", "published"],
    ["wordpress", "accept-then-reset", "published"],
    ["medium", "accept-then-5xx", "unconfirmed"]
  ] as const)(
    "%s took the post but answered %s: %s, held once",
    async (network, mode, state) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const text = `lost answer ${crypto.randomUUID().slice(0, 8)}`
      networks.sim.fail({ network, op: "publish", mode, times: 1 })
      const created = await postNow(w.api, channelId, text, [], network === "tumblr" ? {} : { title: "Lost" })
      expect(created.status, created.text).toBe(200)
      const root = await settled(w.api, createdPost(created).group, `${network}: settled`, ["published", "unconfirmed", "error"])
      const held = networks.sim.postsOf(network).filter((p) => p.text === text)
      expect(held).toHaveLength(1)
      expect(root.state, JSON.stringify(root.error)).toBe(state)
      if (state === "published") expect(root.releaseId).toBe(held[0]?.id)
    },
    60_000
  )
})

describe("bad input is refused with the spec's 400 before anything is saved", () => {
  it.each([
    ["wordpress", "a WordPress post without a title", {}, 0, false, /the setting title \(Title\) is required/],
    ["wordpress", "a WordPress category given by its name", { title: "T", categories: "1, news" }, 0, false, /the setting categories must be ids/],
    ["medium", "a Medium article with an unknown status", { title: "T", publishStatus: "secret" }, 0, false, /publishStatus/],
    ["medium", "a Medium article with two images", { title: "T" }, 2, false, /too many files, 2 of 1/],
    ["tumblr", "a Tumblr post with a follow-up", {}, 0, true, /does not take follow-up comments/]
  ] as const)(
    "%s: %s",
    async (network, _what, settings, images, followUp, message) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const files = await Promise.all(Array.from({ length: images }, () => upload(w.apiKey)))
      const res = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [
          {
            integration: { id: channelId },
            value: [
              { content: "refuse me", image: files.map((f) => ({ id: f.id, path: f.path })) },
              ...(followUp ? [{ content: "and more", delay: 0 }] : [])
            ],
            settings
          }
        ]
      })
      expect(res.status, res.text).toBe(400)
      expect(res.text).toMatch(message)
      expect(await counts(w.workspaceId)).toEqual({ groups: 0, items: 0 })
    },
    60_000
  )
})
