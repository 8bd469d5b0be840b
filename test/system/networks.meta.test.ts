import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { WholePost } from "../../protocol/http/postResources.js"
import { created as createdPost, present, wholePost } from "../support/answers.js"
import { client } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { closedPort } from "../support/ports.js"
import { realMp4 } from "../support/realMedia.js"
import type { Simulator } from "../support/simulator/core.js"
import { containersOf } from "../support/simulator/metaGraph.js"
import { simulatorEnv, startSimulator } from "../support/simulator/index.js"
import { createWorld, type RunningServices, startServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

/**
 * Instagram (both logins) and Threads end to end: channels created with the admin CLI's
 * credentials from the simulator, posts with media and a follow-up through the public API,
 * published by the real publisher through containers made from the gateway's signed
 * PUBLIC_URL/media-files addresses (the simulator fetches them as Meta does), each arriving
 * once; a full Instagram cap holds the post; bad input refused before anything is saved.
 */

let sim: Simulator & { readonly networks: ReadonlyArray<string> }
let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  sim = await startSimulator()
  world = await createWorld("meta")
  // the networks fetch media from PUBLIC_URL: the gateway's own address
  const port = await closedPort()
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], {
    ...simulatorEnv(sim),
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    PUBLISH_TIMEOUT_MS: "5000"
  })
}, 60_000)
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await sim?.close()
})

const firstChannel = (post: WholePost) => present(post.channels[0], "the post's first channel")

const seed = async (network: string, input: Record<string, unknown> = {}) =>
  (await (await fetch(`${sim.origin}/_sim/accounts/${network}`, { method: "POST", body: JSON.stringify(input) })).json()) as Record<string, unknown>

const channelOn = async (network: string, input: Record<string, unknown> = {}) => {
  const ws = await sys.admin.createWorkspace("Meta", "ultimate")
  const credentials = await seed(network, input)
  const { channelId } = await sys.admin.createChannel({
    workspaceId: ws.workspaceId,
    network,
    name: `${network} channel`,
    customerId: null,
    postingTimes: [],
    credentials
  })
  return { api: client(sys.url, ws.apiKey), apiKey: ws.apiKey, channelId, credentials }
}

const upload = async (apiKey: string, bytes: Buffer, type: string, name: string) => {
  const form = new FormData()
  form.append("file", new Blob([bytes], { type }), name)
  const res = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
  expect(res.status, await res.clone().text()).toBe(200)
  return (await res.json()) as { id: string; path: string }
}

const settingsFor = (network: string): Record<string, unknown> => (network === "instagram" ? { post_type: "post" } : {})

const itemsIn = (content: string) =>
  withDb(world, async (c) => (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM post_items WHERE content = $1", [content])).rows[0]?.n)

describe("publishing to Instagram and Threads", () => {
  it.each([
    ["instagram", "image"],
    ["instagram-standalone", "image"],
    ["threads", "video"]
  ] as const)(
    "%s: the post with its %s and a follow-up arrive once each",
    async (network, kind) => {
      const { api, apiKey, channelId } = await channelOn(network)
      const file =
        kind === "image" ? await upload(apiKey, png(32, 32), "image/png", "cover.png") : await upload(apiKey, realMp4(), "video/mp4", "clip.mp4")
      const text = `Launch day on ${network} ${crypto.randomUUID().slice(0, 8)}`
      const follow = `More about it (${network}) ${crypto.randomUUID().slice(0, 8)}`
      const created = await api.post("/public/v1/posts", {
        type: "now",
        posts: [
          {
            integration: { id: channelId },
            value: [
              { content: text, image: [{ id: file.id, path: file.path }] },
              { content: follow, delay: 0 }
            ],
            settings: settingsFor(network)
          }
        ]
      })
      expect(created.status, created.text).toBe(200)
      const group = createdPost(created).group
      const post = await waitFor(
        `${network}: published with its follow-up`,
        async () => {
          const c = firstChannel(wholePost(await api.get(`/public/v1/posts/${group}`)))
          if (c.root.state === "error" || c.thread.some((t) => t.state === "error")) return c
          return c.root.state === "published" && c.thread.every((t) => t.state === "published") ? c : undefined
        },
        60_000
      )
      expect(post.root.state, JSON.stringify(post.root.error)).toBe("published")
      expect(post.thread[0]?.state, JSON.stringify(post.thread[0]?.error)).toBe("published")
      const arrived = sim.postsOf(network).filter((p) => p.text === text || p.text === follow)
      expect(arrived).toHaveLength(2)
      const root = arrived.find((p) => p.text === text)!
      const reply = arrived.find((p) => p.text === follow)!
      expect(root.id).toBe(post.root.releaseId)
      expect(post.root.releaseUrl).toMatch(/^https:\/\/www\.(instagram|threads)\.(com|net)\//)
      expect(root.media).toHaveLength(1)
      expect(root.media[0]!.mime).toMatch(kind === "image" ? /^image\// : /^video\//)
      expect(root.media[0]!.size).toBeGreaterThan(0)
      expect(reply.replyTo).toBe(root.id)
    },
    90_000
  )

  it("a container that takes a while: the item is held processing, then published once from the same container", async () => {
    const { api, apiKey, channelId } = await channelOn("threads")
    const image = await upload(apiKey, png(40, 40), "image/png", "slow.png")
    sim.setProcessingDelay(3000)
    try {
      const text = `slow container ${crypto.randomUUID().slice(0, 8)}`
      const created = await api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: text, image: [{ id: image.id, path: image.path }] }] }]
      })
      const group = createdPost(created).group
      const rootOf = async () => firstChannel(wholePost(await api.get(`/public/v1/posts/${group}`))).root
      const held = await waitFor("held processing", async () => ((await rootOf()).held === "processing" ? await rootOf() : undefined), 60_000)
      expect(held.waitingFor).toMatch(/Threads is processing/)
      const done = await waitFor(
        "published",
        async () => {
          const root = await rootOf()
          return root.state === "published" || root.state === "error" ? root : undefined
        },
        60_000
      )
      expect(done.state, JSON.stringify(done.error)).toBe("published")
      const copies = sim.postsOf("threads").filter((p) => p.text === text)
      expect(copies).toHaveLength(1)
      const made = [...containersOf(sim).values()].filter((c) => c.params["text"] === text)
      expect(made).toHaveLength(1)
    } finally {
      sim.setProcessingDelay(0)
    }
  }, 90_000)

  it("an Instagram account whose publishing cap is full: the post waits held network-limit, not failed", async () => {
    const { api, apiKey, channelId } = await channelOn("instagram", { cap: 0 })
    const image = await upload(apiKey, png(32, 32), "image/png", "capped.png")
    const text = `over the cap ${crypto.randomUUID().slice(0, 8)}`
    const created = await api.post("/public/v1/posts", {
      type: "now",
      posts: [
        { integration: { id: channelId }, value: [{ content: text, image: [{ id: image.id, path: image.path }] }], settings: { post_type: "post" } }
      ]
    })
    const group = createdPost(created).group
    const root = await waitFor(
      "held network-limit",
      async () => {
        const r = firstChannel(wholePost(await api.get(`/public/v1/posts/${group}`))).root
        return r.held === "network-limit" || r.state === "error" ? r : undefined
      },
      60_000
    )
    expect(root.held).toBe("network-limit")
    expect(root.waitingFor).toMatch(/cap of 0 published posts per 24 hours/)
    expect(sim.postsOf("instagram").filter((p) => p.text === text)).toHaveLength(0)
  }, 90_000)
})

describe("bad input is refused before anything is saved", () => {
  it.each([
    ["instagram", "carousel of 11", /has too many files, 11 of 10/],
    ["instagram-standalone", "post without media", /Needs|photo or video|at least 1/i],
    ["threads", "text of 501 characters", /500/]
  ] as const)(
    "%s: a %s gets the spec's 400",
    async (network, _what, message) => {
      const { api, apiKey, channelId } = await channelOn(network)
      const content = network === "threads" ? "x".repeat(501) : `refused ${crypto.randomUUID()}`
      const image = network === "instagram" ? await upload(apiKey, png(32, 32), "image/png", "many.png") : null
      const media = image === null ? [] : Array.from({ length: 11 }, () => ({ id: image.id, path: image.path }))
      const answer = await api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content, image: media }], settings: settingsFor(network) }]
      })
      expect(answer.status, answer.text).toBe(400)
      expect(answer.text).toMatch(message)
      expect(await itemsIn(content)).toBe(0)
    },
    60_000
  )
})
