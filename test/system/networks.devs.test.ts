import { describe, expect, it } from "vitest"
import { created as createdPost, wholePost } from "../support/answers.js"
import type { client } from "../support/http.js"
import { waitFor } from "../support/wait.js"
import { useNetworksWorld, firstChannel } from "../support/networksWorld.js"

/**
 * dev.to, Hashnode and Listmonk end to end: channels connected with the admin CLI's
 * `--credentials` from the simulator's seed, an article (a campaign) with its cover image
 * through the public API, published by the real scheduler and publisher; dev.to and Hashnode
 * are given the cover's signed gateway address (PUBLIC_URL names the gateway's port here),
 * Listmonk gets the image uploaded to its media. Lost answers are settled by each network's
 * search, once; what the networks cannot take (follow-ups, a missing title) is refused with
 * the spec's 400 before anything is saved.
 */

const networks = useNetworksWorld("devs")
const { newWorkspace, channelOf, upload, counts } = networks

const settledRoot = async (api: ReturnType<typeof client>, group: string, what: string) =>
  waitFor(
    what,
    async () => {
      const c = firstChannel(wholePost(await api.get(`/public/v1/posts/${group}`)))
      return ["published", "unconfirmed", "error"].includes(c.root.state) ? c.root : undefined
    },
    30_000
  )

const postNow = async (
  w: Awaited<ReturnType<typeof newWorkspace>>,
  channelId: string,
  text: string,
  settings: Record<string, unknown>,
  withImage: boolean
) => {
  const image = withImage ? [await upload(w.apiKey)] : []
  const created = await w.api.post("/public/v1/posts", {
    type: "now",
    posts: [{ integration: { id: channelId }, value: [{ content: text, image: image.map((f) => ({ id: f.id, path: f.path })) }], settings }]
  })
  expect(created.status, created.text).toBe(200)
  return createdPost(created).group
}

describe("publishing to dev.to, Hashnode and Listmonk", () => {
  it("dev.to: an article with its title, tags, series and canonical URL, the cover by its signed address, once", async () => {
    const w = await newWorkspace()
    const { channelId } = await channelOf(w.workspaceId, "devto")
    const text = `# Effects\n\nAn article ${crypto.randomUUID().slice(0, 8)}`
    const settings = { title: "Effects in practice", tags: ["typescript", "effect"], series: "Notes", canonical_url: "https://blog.example/effects" }
    const root = await settledRoot(w.api, await postNow(w, channelId, text, settings, true), "devto: published")
    expect(root.state, JSON.stringify(root.error)).toBe("published")
    const arrived = networks.sim.postsOf("devto").filter((p) => p.text === text)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]).toMatchObject({
      id: root.releaseId,
      extra: { title: "Effects in practice", tags: ["typescript", "effect"], series: "Notes", canonical_url: "https://blog.example/effects" }
    })
    expect(arrived[0]?.media[0]?.id.startsWith(`${networks.publicUrl}/media-files/`)).toBe(true)
    expect(arrived[0]?.media[0]?.size).toBeGreaterThan(0)
  }, 60_000)

  it("Hashnode: an article on the publication with its title and tags, the cover by its signed address, once", async () => {
    const w = await newWorkspace()
    const { channelId, credentials } = await channelOf(w.workspaceId, "hashnode")
    const text = `Hashnode article ${crypto.randomUUID().slice(0, 8)}`
    const root = await settledRoot(
      w.api,
      await postNow(w, channelId, text, { title: "On Hashnode", tags: ["Web Dev"], subtitle: "Hello" }, true),
      "hashnode: published"
    )
    expect(root.state, JSON.stringify(root.error)).toBe("published")
    const arrived = networks.sim.postsOf("hashnode").filter((p) => p.text === text)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]).toMatchObject({
      id: root.releaseId,
      account: credentials["publicationId"],
      extra: { title: "On Hashnode", subtitle: "Hello", tags: [{ slug: "web-dev", name: "Web Dev" }] }
    })
    expect(arrived[0]?.media[0]?.id.startsWith(`${networks.publicUrl}/media-files/`)).toBe(true)
  }, 60_000)

  it("Listmonk: a campaign to the channel's list with its subject and image, started once", async () => {
    const w = await newWorkspace()
    const { channelId, credentials } = await channelOf(w.workspaceId, "listmonk")
    const text = `Newsletter ${crypto.randomUUID().slice(0, 8)}\n\nWhat happened.`
    const root = await settledRoot(w.api, await postNow(w, channelId, text, { subject: "Our news" }, true), "listmonk: published")
    expect(root.state, JSON.stringify(root.error)).toBe("published")
    const arrived = networks.sim.postsOf("listmonk").filter((p) => p.text === text)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]).toMatchObject({
      id: root.releaseId,
      extra: { subject: "Our news", lists: [credentials["listId"]], status: "running", starts: 1, content_type: "markdown" }
    })
    expect(arrived[0]?.media[0]?.size).toBeGreaterThan(0)
  }, 60_000)
})

describe("a lost answer is settled by the network's search, never a second copy", () => {
  it.each([
    ["devto", "publish", "accept-then-5xx", { title: "Lost on dev.to" }],
    ["hashnode", "publish", "accept-then-reset", { title: "Lost on Hashnode" }],
    ["listmonk", "publish", "accept-then-reset", {}],
    ["listmonk", "start", "accept-then-reset", {}],
    ["listmonk", "start", "5xx", {}]
  ] as const)(
    "%s: the %s step answered %s: published with the network's id, once",
    async (network, op, mode, settings) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const text = `lost answer ${crypto.randomUUID().slice(0, 8)}`
      networks.sim.fail({ network, op, mode, times: 1 })
      const root = await settledRoot(w.api, await postNow(w, channelId, text, settings, false), `${network}: settled`)
      const held = networks.sim.postsOf(network).filter((p) => p.text === text)
      expect(held).toHaveLength(1)
      expect(root.state, JSON.stringify(root.error)).toBe("published")
      expect(root.releaseId).toBe(held[0]?.id)
      if (network === "listmonk") expect(held[0]?.extra).toMatchObject({ status: "running", starts: 1 })
    },
    60_000
  )
})

describe("what the networks cannot take is refused with the spec's 400 before anything is saved", () => {
  it.each([
    ["devto", "a dev.to article without a title", {}, [], /the setting title \(Title\) is required/],
    ["hashnode", "a Hashnode article without a title", {}, [], /the setting title \(Title\) is required/],
    ["devto", "a dev.to article with 5 tags", { title: "T", tags: ["a", "b", "c", "d", "e"] }, [], /Dev\.to takes at most 4 tags, not 5/],
    ["hashnode", "a Hashnode article in a series named by its title", { title: "T", series: "My series" }, [], /must be a Hashnode series id/],
    ["devto", "a follow-up on dev.to", { title: "T" }, [{ content: "a comment" }], /does not take follow-up comments/],
    ["listmonk", "a follow-up on Listmonk", {}, [{ content: "more" }], /does not take follow-up comments/]
  ] as const)(
    "%s: %s",
    async (network, _what, settings, followUps, message) => {
      const w = await newWorkspace()
      const { channelId } = await channelOf(w.workspaceId, network)
      const res = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: "refuse me" }, ...followUps], settings }]
      })
      expect(res.status, res.text).toBe(400)
      expect(res.text).toMatch(message)
      expect(await counts(w.workspaceId)).toEqual({ groups: 0, items: 0 })
    },
    60_000
  )

  it.each([
    ["devto", {}, /dev\.to credentials need apiKey/],
    ["hashnode", { token: "t" }, /Hashnode credentials need token .* and publicationId/],
    ["listmonk", { instance: "https://lists.example", username: "api", token: "t" }, /Listmonk credentials need .*listId/]
  ] as const)("the admin CLI refuses %s credentials missing a field, naming it", async (network, credentials, message) => {
    const w = await newWorkspace()
    await expect(
      networks.sys.admin.createChannel({ workspaceId: w.workspaceId, network, name: "missing", customerId: null, postingTimes: [], credentials })
    ).rejects.toThrow(message)
  })
})
