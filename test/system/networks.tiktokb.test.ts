import { describe, expect, it } from "vitest"
import { created as createdPost, present, wholePost } from "../support/answers.js"
import type { client } from "../support/http.js"
import { seedAccount } from "../support/simulator/index.js"
import { waitFor } from "../support/wait.js"
import { useNetworksWorld, channelsOf, connectUrlOf, firstChannel } from "../support/networksWorld.js"

/**
 * TikTok Business and Dribbble end to end: channels connected by signing in through
 * GET /public/v1/social/{network} and the callback page, and with the admin CLI's
 * `--credentials`; posts with their media (and a follow-up comment on TikTok Business)
 * through the public API, published by the real scheduler and publisher. TikTok fetches
 * the photos from the gateway's signed addresses, so PUBLIC_URL names the gateway's port;
 * Dribbble processes the shot after its 202. Each item arrives once, a lost answer included.
 */

const networks = useNetworksWorld("tiktokb")
const { newWorkspace, upload } = networks

type Workspace = Awaited<ReturnType<typeof newWorkspace>>

/** Signs in through GET /social and the network's page (which approves at once); the channel it saved. */
const signIn = async (w: Workspace, network: string) => {
  const url = new URL(connectUrlOf(await w.api.get(`/public/v1/social/${network}`)))
  const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
  expect(back.pathname).toBe(`/integrations/social/${network}`)
  const page = await fetch(`${networks.sys.url}${back.pathname}${back.search}`)
  expect(page.status, await page.text()).toBe(200)
  return present(
    channelsOf(await w.api.get("/public/v1/integrations")).find((c) => c.identifier === network),
    `the ${network} channel`
  )
}

const cliChannel = async (workspaceId: string, network: string) => {
  const credentials = await seedAccount(networks.sim, network)
  const { channelId } = await networks.sys.admin.createChannel({
    workspaceId,
    network,
    name: `${network} channel`,
    customerId: null,
    postingTimes: [],
    credentials
  })
  return channelId
}

const settledPost = async (api: ReturnType<typeof client>, group: string, what: string) => {
  const post = await waitFor(
    what,
    async () => {
      const c = firstChannel(wholePost(await api.get(`/public/v1/posts/${group}`)))
      const settled = (s: string) => ["published", "error", "unconfirmed"].includes(s)
      return settled(c.root.state) && c.thread.every((t) => settled(t.state)) ? c : undefined
    },
    45_000
  )
  return post
}

describe("TikTok Business", () => {
  it("signed in through GET /social: two photos TikTok fetches, and a follow-up comment on the post, once each", async () => {
    const w = await newWorkspace()
    const channel = await signIn(w, "tiktok-business")
    const images = [await upload(w.apiKey, 48, 32), await upload(w.apiKey, 48, 32)]
    const text = `Spring line ${crypto.randomUUID().slice(0, 8)}`
    const comment = `Shop the look ${crypto.randomUUID().slice(0, 8)}`
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: channel.id },
          value: [
            { content: text, image: images.map((i) => ({ id: i.id, path: i.path })) },
            { content: comment, delay: 0 }
          ],
          settings: { comment: true, duet: false, stitch: true }
        }
      ]
    })
    expect(created.status, created.text).toBe(200)
    const c = await settledPost(w.api, createdPost(created).group, "tiktok-business: published with its comment")
    expect(c.root.state, JSON.stringify(c.root.error)).toBe("published")
    expect(c.thread.map((t) => t.state)).toEqual(["published"])
    const posts = networks.sim.postsOf("tiktok-business").filter((p) => p.text === text)
    expect(posts).toHaveLength(1)
    expect(posts[0]).toMatchObject({ id: c.root.releaseId, extra: { kind: "photo", disable_comment: false } })
    // TikTok takes JPEG or WEBP photos: the PNGs were prepared as JPEG before TikTok fetched them
    expect(posts[0]?.media.map((m) => m.mime)).toEqual(["image/jpeg", "image/jpeg"])
    const comments = networks.sim.postsOf("tiktok-business").filter((p) => p.text === comment)
    expect(comments).toHaveLength(1)
    expect(comments[0]?.replyTo).toBe(c.root.releaseId)
  }, 90_000)

  it("connected with the admin CLI's credentials; TikTok took the post but its answer was lost: found by caption, published once", async () => {
    const w = await newWorkspace()
    const channelId = await cliChannel(w.workspaceId, "tiktok-business")
    const image = await upload(w.apiKey, 40, 30)
    const text = `lost answer ${crypto.randomUUID().slice(0, 8)}`
    networks.sim.fail({ network: "tiktok-business", op: "publish", mode: "accept-then-5xx", times: 1 })
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: text, image: [{ id: image.id, path: image.path }] }] }]
    })
    expect(created.status, created.text).toBe(200)
    const c = await settledPost(w.api, createdPost(created).group, "tiktok-business: settled")
    const held = networks.sim.postsOf("tiktok-business").filter((p) => p.text === text)
    expect(held).toHaveLength(1)
    expect(c.root.state, JSON.stringify(c.root.error)).toBe("published")
    expect(c.root.releaseId).toBe(held[0]?.id)
  }, 90_000)
})

describe("Dribbble", () => {
  it("signed in through GET /social: an 800×600 shot, processed after the 202, published once", async () => {
    const w = await newWorkspace()
    const channel = await signIn(w, "dribbble")
    const image = await upload(w.apiKey, 800, 600)
    const title = `Dashboard ${crypto.randomUUID().slice(0, 8)}`
    const text = `${title}\nA calmer dashboard. #ui #dashboard`
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channel.id }, value: [{ content: text, image: [{ id: image.id, path: image.path }] }] }]
    })
    expect(created.status, created.text).toBe(200)
    const c = await settledPost(w.api, createdPost(created).group, "dribbble: published")
    expect(c.root.state, JSON.stringify(c.root.error)).toBe("published")
    const shots = networks.sim.postsOf("dribbble").filter((p) => p.text === text)
    expect(shots).toHaveLength(1)
    expect(shots[0]).toMatchObject({ id: c.root.releaseId, extra: { title, tags: ["ui", "dashboard"] } })
    expect(c.root.releaseUrl).toContain(`/shots/${shots[0]?.id}`)
  }, 90_000)

  it("connected with the admin CLI's credentials; the shot's answer was lost: found among the account's shots, published once", async () => {
    const w = await newWorkspace()
    const channelId = await cliChannel(w.workspaceId, "dribbble")
    const image = await upload(w.apiKey, 400, 300)
    const text = `Lost shot ${crypto.randomUUID().slice(0, 8)}`
    networks.sim.fail({ network: "dribbble", op: "publish", mode: "accept-then-reset", times: 1 })
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: text, image: [{ id: image.id, path: image.path }] }] }]
    })
    expect(created.status, created.text).toBe(200)
    const c = await settledPost(w.api, createdPost(created).group, "dribbble: settled")
    const held = networks.sim.postsOf("dribbble").filter((p) => p.text === text)
    expect(held).toHaveLength(1)
    expect(c.root.state, JSON.stringify(c.root.error)).toBe("published")
    expect(c.root.releaseId).toBe(held[0]?.id)
  }, 90_000)

  it.each([
    [
      "two images",
      [
        [400, 300],
        [400, 300]
      ],
      /too many files, 2 of 1/
    ],
    ["a square image (Dribbble's shots are 4:3)", [[500, 500]], /Dribbble takes shapes from 4:3/],
    ["an image smaller than 400×300", [[200, 150]], /Dribbble takes only 1600×1200, 800×600, 400×300/]
  ] as const)(
    "a shot with %s is refused with the spec's 400 before anything is saved",
    async (_what, sizes, message) => {
      const w = await newWorkspace()
      const channelId = await cliChannel(w.workspaceId, "dribbble")
      const files = await Promise.all(sizes.map(([width, height]) => upload(w.apiKey, width, height)))
      const res = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: "Refused shot", image: files.map((f) => ({ id: f.id, path: f.path })) }] }]
      })
      expect(res.status, res.text).toBe(400)
      expect(res.text).toMatch(message)
      expect(networks.sim.postsOf("dribbble").filter((p) => p.text === "Refused shot")).toHaveLength(0)
    },
    60_000
  )
})
