import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openCredentials, sealCredentials } from "../../services/networks/credentials.js"
import type { WholePost } from "../../protocol/http/postResources.js"
import { answerOf, created as createdPost, present, wholePost } from "../support/answers.js"
import { client, decoded, errorOf, type Answer } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

const firstChannel = (post: WholePost) => present(post.channels[0], "the post's first channel")
const channelsOf = (answer: Answer) => decoded(answer, answerOf("account", "listIntegrations"))
const connectUrlOf = (answer: Answer) => decoded(answer, answerOf("account", "socialConnect")).url

/**
 * The six real networks end to end: channels connected with the admin CLI's credentials
 * and through GET /social and its callback, posts with an image and a follow-up published
 * by the real scheduler and publisher to the simulator (reached through OUTBOUND_ALLOW),
 * each item arriving once, as a reply to the right parent, with its image.
 */

let sim: Simulator & { readonly networks: ReadonlyArray<string> }
let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  sim = await startSimulator()
  world = await createWorld("realnetworks")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], {
    ...simulatorEnv(sim),
    PUBLISH_TIMEOUT_MS: "5000",
    TOKEN_REFRESH_INTERVAL_MS: "500"
  })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await sim?.close()
})

const seed = async (network: string, input: Record<string, unknown> = {}) => {
  const res = await fetch(`${sim.origin}/_sim/accounts/${network}`, { method: "POST", body: JSON.stringify(input) })
  return (await res.json()) as Record<string, unknown>
}

/** The channel's stored credentials, changed (as another holder of the account would change them). */
const rewriteCredentials = async (channelId: string, change: (c: Record<string, unknown>) => Record<string, unknown>) => {
  const key = Redacted.make("test-secret-key")
  await withDb(world, async (c) => {
    const row = (await c.query<{ credentials: Buffer }>("SELECT credentials FROM channels WHERE id = $1", [channelId])).rows[0]!
    const current = Option.getOrThrow(openCredentials(key, row.credentials))
    await c.query("UPDATE channels SET credentials = $2 WHERE id = $1", [channelId, sealCredentials(key, change({ ...Redacted.value(current) }))])
  })
}

const newWorkspace = async () => {
  const ws = await sys.admin.createWorkspace("Networks", "ultimate")
  return { ...ws, api: client(sys.url, ws.apiKey) }
}

const upload = async (apiKey: string) => {
  const form = new FormData()
  form.append("file", new Blob([png(32, 32)], { type: "image/png" }), "cover.png")
  const res = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
  expect(res.status).toBe(200)
  return (await res.json()) as { id: string; path: string }
}

/**
 * What a post to each network needs besides its text (required settings of GET /rules);
 * a Discord channel connected with its channel id needs no `channel` setting.
 */
const settingsFor = (network: string): Record<string, unknown> => (network === "x" ? { who_can_reply_post: "everyone" } : {})

const cases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["mastodon", { username: "alice" }],
  ["bluesky", { handle: "alice.bsky.test" }],
  ["x", { username: "alicex" }],
  ["linkedin", { name: "Alice Member" }],
  ["telegram", { title: "Alice news", username: "alicenews" }],
  ["discord", { guildName: "Alice's server", channelName: "news" }]
]

describe("admin CLI: channel create --credentials", () => {
  it("refuses credentials the network does not accept, and saves nothing", async () => {
    const w = await newWorkspace()
    await expect(
      sys.admin.createChannel({
        workspaceId: w.workspaceId,
        network: "mastodon",
        name: "Nope",
        customerId: null,
        postingTimes: [],
        credentials: { instance: sim.baseOf("mastodon"), accessToken: "wrong" }
      })
    ).rejects.toThrow(/refused/)
    expect((await w.api.get("/public/v1/integrations")).json).toEqual([])
  })

  it("MeWe has no public posting API: the admin CLI and GET /social answer 400 saying so, and nothing is saved", async () => {
    const w = await newWorkspace()
    await expect(
      sys.admin.createChannel({ workspaceId: w.workspaceId, network: "mewe", name: "MeWe", customerId: null, postingTimes: [], credentials: {} })
    ).rejects.toThrow(/MeWe offers no public API for posting/)
    const social = await w.api.get("/public/v1/social/mewe")
    expect(social.status).toBe(400)
    expect(errorOf(social).msg).toMatch(/^MeWe offers no public API for posting/)
    expect((await w.api.get("/public/v1/integrations")).json).toEqual([])
  })

  it("a channel made without credentials exists, and its posts fail with a fix that says to connect it", async () => {
    const w = await newWorkspace()
    const { channelId } = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "telegram",
      name: "Not connected",
      customerId: null,
      postingTimes: []
    })
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "nowhere to go" }] }]
    })
    const root = await waitFor(
      "failed",
      async () => {
        const c = firstChannel(wholePost(await w.api.get(`/public/v1/posts/${createdPost(created).group}`)))
        return c.root.state === "error" ? c.root : undefined
      },
      30_000
    )
    expect(root.error?.fix).toContain("Reconnect")
  }, 60_000)

  it("stores the credentials sealed (never in any answer) and connecting the same account again keeps one channel", async () => {
    const w = await newWorkspace()
    const credentials = await seed("mastodon", { username: "sealed" })
    const first = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "mastodon",
      name: "Sealed",
      customerId: null,
      postingTimes: [],
      credentials
    })
    const second = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "mastodon",
      name: "Sealed again",
      customerId: null,
      postingTimes: [],
      credentials
    })
    expect(second.channelId).toBe(first.channelId)
    const listed = await w.api.get("/public/v1/integrations")
    expect(listed.json).toHaveLength(1)
    expect(listed.text).not.toContain(String(credentials["accessToken"]))
    const column = await withDb(
      world,
      async (c) => (await c.query<{ credentials: Buffer }>("SELECT credentials FROM channels WHERE id = $1", [first.channelId])).rows[0]!.credentials
    )
    expect(column.toString("utf8")).not.toContain(String(credentials["accessToken"]))
  })
})

describe("publishing to the six networks", () => {
  it.each(cases)(
    "%s: the post with its image and a follow-up reply arrive once each",
    async (network, account) => {
      const w = await newWorkspace()
      const credentials = await seed(network, account)
      const { channelId } = await sys.admin.createChannel({
        workspaceId: w.workspaceId,
        network,
        name: `${network} channel`,
        customerId: null,
        postingTimes: [],
        credentials
      })
      const image = await upload(w.apiKey)
      const text = `Launch day on ${network} ${crypto.randomUUID().slice(0, 8)}`
      const created = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [
          {
            integration: { id: channelId },
            value: [
              { content: text, image: [{ id: image.id, path: image.path }] },
              { content: `More about it (${network})`, delay: 0 }
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
          const p = wholePost(await w.api.get(`/public/v1/posts/${group}`))
          const c = firstChannel(p)
          return c.root.state === "published" && c.thread.every((t) => t.state === "published") ? p : c.root.state === "error" ? p : undefined
        },
        30_000
      )
      const channel = firstChannel(post)
      expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
      const arrived = sim.postsOf(network).filter((p) => p.text === text || p.text === `More about it (${network})`)
      expect(arrived).toHaveLength(2)
      const [root, reply] = [arrived.find((p) => p.text === text)!, arrived.find((p) => p.text !== text)!]
      expect(root.id).toBe(channel.root.releaseId)
      expect(channel.root.releaseUrl).toMatch(/^https?:\/\//)
      expect(root.media).toHaveLength(1)
      expect(root.media[0]!.size).toBeGreaterThan(0)
      expect(reply.replyTo).toBe(root.id)
      if (network === "discord") expect(root.account).toBe(credentials["channelId"])
    },
    60_000
  )

  it("a post the network refuses ends failed with the network's reason and a fix", async () => {
    const w = await newWorkspace()
    const credentials = await seed("mastodon", { username: "refused" })
    const { channelId } = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "mastodon",
      name: "Refused",
      customerId: null,
      postingTimes: [],
      credentials
    })
    sim.fail({ network: "mastodon", op: "publish", mode: "reject", times: 1 })
    const created = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "refuse me" }] }]
    })
    const channel = await waitFor(
      "failed",
      async () => {
        const c = firstChannel(wholePost(await w.api.get(`/public/v1/posts/${createdPost(created).group}`)))
        return c.root.state === "error" ? c.root : undefined
      },
      30_000
    )
    expect(channel.error?.message).toContain("character limit")
    expect(channel.error?.fix).toContain("Shorten")
  }, 60_000)

  it.each([
    ["mastodon", "accept-then-5xx", "published"],
    ["x", "accept-then-reset", "published"],
    ["telegram", "accept-then-reset", "unconfirmed"]
  ] as const)(
    "%s took the post but answered %s: the search decides (%s), never a second copy",
    async (network, mode, outcome) => {
      const w = await newWorkspace()
      const credentials = await seed(network, {})
      const { channelId } = await sys.admin.createChannel({
        workspaceId: w.workspaceId,
        network,
        name: `${network} lost`,
        customerId: null,
        postingTimes: [],
        credentials
      })
      sim.fail({ network, op: "publish", mode, times: 1 })
      const text = `lost answer ${crypto.randomUUID().slice(0, 8)}`
      const created = await w.api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: text }], settings: settingsFor(network) }]
      })
      const root = await waitFor(
        outcome,
        async () => {
          const c = firstChannel(wholePost(await w.api.get(`/public/v1/posts/${createdPost(created).group}`)))
          return ["published", "unconfirmed", "error"].includes(c.root.state) ? c.root : undefined
        },
        30_000
      )
      expect(root.state).toBe(outcome)
      expect(sim.postsOf(network).filter((p) => p.text === text)).toHaveLength(1)
      if (outcome === "published") expect(root.releaseId).toBe(sim.postsOf(network).find((p) => p.text === text)!.id)
    },
    60_000
  )

  it("an X channel whose refresh token X no longer takes is disconnected and its post fails with a reconnect fix", async () => {
    const w = await newWorkspace()
    const credentials = await seed("x", { username: "expiring" })
    const { channelId } = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "x",
      name: "Expiring",
      customerId: null,
      postingTimes: [],
      credentials
    })
    const created = await w.api.post("/public/v1/posts", {
      type: "schedule",
      date: new Date(Date.now() + 3000).toISOString(),
      posts: [{ integration: { id: channelId }, value: [{ content: "will not go" }], settings: { who_can_reply_post: "everyone" } }]
    })
    expect(created.status).toBe(200)
    // then the stored token expires and its refresh token is spent elsewhere
    await rewriteCredentials(channelId, (c) => ({ ...c, expiresAt: new Date(Date.now() - 1000).toISOString(), refreshToken: "spent" }))
    const root = await waitFor(
      "failed",
      async () => {
        const c = firstChannel(wholePost(await w.api.get(`/public/v1/posts/${createdPost(created).group}`)))
        return c.root.state === "error" ? c.root : undefined
      },
      30_000
    )
    expect(root.error?.fix).toContain("Reconnect")
    const listed = channelsOf(await w.api.get("/public/v1/integrations")).find((c) => c.id === channelId)
    expect(listed?.refreshNeeded).toBe(true)
    // a disconnected channel takes no new posts until it is reconnected
    const refused = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "again" }], settings: { who_can_reply_post: "everyone" } }]
    })
    expect(refused.status).toBe(400)
  }, 60_000)
})

describe("the regular token refresh (publisher)", () => {
  const storedOf = (channelId: string) =>
    withDb(
      world,
      async (c) =>
        (
          await c.query<{ credentials: Buffer; refresh_needed: boolean }>("SELECT credentials, refresh_needed FROM channels WHERE id = $1", [
            channelId
          ])
        ).rows[0]!
    )

  it("refreshes an X token that expires soon without any post, and disconnects a channel whose refresh X refuses", async () => {
    const w = await newWorkspace()
    const a = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "x",
      name: "Soon",
      customerId: null,
      postingTimes: [],
      credentials: await seed("x", { username: "soon" })
    })
    await rewriteCredentials(a.channelId, (c) => ({ ...c, expiresAt: new Date(Date.now() + 60_000).toISOString() }))
    const before = (await storedOf(a.channelId)).credentials
    await waitFor("a refreshed token", async () => (!(await storedOf(a.channelId)).credentials.equals(before) ? true : undefined), 15_000)
    expect((await storedOf(a.channelId)).refresh_needed).toBe(false)

    const b = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "x",
      name: "Spent",
      customerId: null,
      postingTimes: [],
      credentials: await seed("x", { username: "spent" })
    })
    await rewriteCredentials(b.channelId, (c) => ({ ...c, expiresAt: new Date(Date.now() + 60_000).toISOString(), refreshToken: "spent" }))
    await waitFor("disconnected", async () => ((await storedOf(b.channelId)).refresh_needed ? true : undefined), 15_000)
    const events = await withDb(world, async (c) =>
      (await c.query("SELECT data FROM outbox WHERE workspace_id = $1 AND event = 'channel.disconnected'", [w.workspaceId])).rows.map((r) => r.data)
    )
    expect(events).toEqual([{ channelId: b.channelId, provider: "x", name: "Spent" }])
  }, 60_000)
})

describe("GET /public/v1/social/{integration} and the callback", () => {
  it("Mastodon: the link signs in on the instance; the callback stores the channel and says so", async () => {
    const w = await newWorkspace()
    await seed("mastodon", { username: "linked" })
    const res = await w.api.get("/public/v1/social/mastodon")
    expect(res.status, res.text).toBe(200)
    const url = new URL(connectUrlOf(res))
    expect(url.origin + url.pathname).toBe(`${sim.baseOf("mastodon")}/oauth/authorize`)
    url.searchParams.set("account", "linked")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.pathname).toBe("/integrations/social/mastodon")
    // PUBLIC_URL names the gateway; here it listens on a port of its own
    const page = await fetch(`${sys.url}${back.pathname}${back.search}`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("is connected")
    const channels = (await w.api.get("/public/v1/integrations")).json
    expect(channels).toEqual([expect.objectContaining({ identifier: "mastodon", profile: "linked", refreshNeeded: false })])
    // the same link cannot be used twice
    const again = await fetch(`${sys.url}${back.pathname}${back.search}`)
    expect(again.status).toBe(400)
    expect(await again.text()).toContain("expired or was already used")
  })

  it("X: the link carries a PKCE challenge; refresh=<channel> reconnects that channel", async () => {
    const w = await newWorkspace()
    const first = await w.api.get("/public/v1/social/x")
    const url = new URL(connectUrlOf(first))
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect((await fetch(`${sys.url}${back.pathname}${back.search}`)).status).toBe(200)
    const channel = present(channelsOf(await w.api.get("/public/v1/integrations"))[0], "the channel")
    await withDb(world, (c) => c.query("UPDATE channels SET refresh_needed = true WHERE id = $1", [channel.id]))
    const reconnect = new URL(connectUrlOf(await w.api.get(`/public/v1/social/x?refresh=${channel.id}`)))
    const back2 = new URL((await fetch(reconnect, { redirect: "manual" })).headers.get("location") ?? "")
    expect((await fetch(`${sys.url}${back2.pathname}${back2.search}`)).status).toBe(200)
    const after = channelsOf(await w.api.get("/public/v1/integrations"))
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ id: channel.id, refreshNeeded: false })
  })

  it.each([
    ["bluesky", 400, "This network connects with a form, not a link. Use the app to connect it."],
    ["telegram", 400, "This network connects with a form, not a link. Use the app to connect it."],
    ["nope", 404, "Unknown network"]
  ])("%s answers %i %s", async (network, status, message) => {
    const w = await newWorkspace()
    const res = await w.api.get(`/public/v1/social/${network}`)
    expect(res.status).toBe(status)
    expect(res.json).toMatchObject({ error: message, msg: message })
  })

  it("refresh of a channel that is not the workspace's is 404; an invalid id 400", async () => {
    const w = await newWorkspace()
    expect((await w.api.get(`/public/v1/social/x?refresh=${crypto.randomUUID()}`)).status).toBe(404)
    expect((await w.api.get("/public/v1/social/x?refresh=nope")).status).toBe(400)
  })
})

describe("GET /public/v1/posts/{id}/missing", () => {
  it("finds the post on a network that can search, by the per-channel id or the group id; [] where it cannot", async () => {
    const w = await newWorkspace()
    const mastodon = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "mastodon",
      name: "M",
      customerId: null,
      postingTimes: [],
      credentials: await seed("mastodon", {})
    })
    const telegram = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "telegram",
      name: "T",
      customerId: null,
      postingTimes: [],
      credentials: await seed("telegram", {})
    })
    const text = `missing? ${crypto.randomUUID().slice(0, 8)}`
    const created = await w.api.post("/public/v1/posts", {
      type: "schedule",
      date: new Date(Date.now() + 86_400_000).toISOString(),
      posts: [
        { integration: { id: mastodon.channelId }, value: [{ content: text }] },
        { integration: { id: telegram.channelId }, value: [{ content: text }] }
      ]
    })
    const [onMastodon, onTelegram] = created.json as Array<{ postId: string; group: string }>
    // not on the network yet
    expect((await w.api.get(`/public/v1/posts/${onMastodon!.postId}/missing`)).json).toEqual([])
    // someone posted it by hand (or an answer was lost): the search finds it
    const credentials = await withDb(
      world,
      async (c) =>
        (await c.query<{ credentials: Buffer }>("SELECT credentials FROM channels WHERE id = $1", [mastodon.channelId])).rows[0]!.credentials
    )
    const token = String(Redacted.value(Option.getOrThrow(openCredentials(Redacted.make("test-secret-key"), credentials)))["accessToken"])
    const posted = (await (
      await fetch(`${sim.baseOf("mastodon")}/api/v1/statuses`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ status: text })
      })
    ).json()) as { id: string; url: string }
    const found = await w.api.get(`/public/v1/posts/${onMastodon!.postId}/missing`)
    expect(found.status).toBe(200)
    expect(found.json).toEqual([{ id: posted.id, url: posted.url }])
    expect((await w.api.get(`/public/v1/posts/${onMastodon!.group}/missing`)).json).toEqual([{ id: posted.id, url: posted.url }])
    expect((await w.api.get(`/public/v1/posts/${onTelegram!.postId}/missing`)).json).toEqual([])
  })

  it("404 for an unknown post, 400 for an invalid id", async () => {
    const w = await newWorkspace()
    const unknown = await w.api.get(`/public/v1/posts/${crypto.randomUUID()}/missing`)
    expect(unknown.status).toBe(404)
    expect(errorOf(unknown).error).toBe("Post not found")
    expect((await w.api.get("/public/v1/posts/nope/missing")).status).toBe(400)
  })
})

describe("helper tools through POST /integration-trigger", () => {
  it("Discord's channels tool and X's whoami answer from the network", async () => {
    const w = await newWorkspace()
    const discord = await seed("discord", { guildName: "Tools", channelName: "tooling" })
    const d = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "discord",
      name: "Tools",
      customerId: null,
      postingTimes: [],
      credentials: discord
    })
    const res = await w.api.post(`/public/v1/integration-trigger/${d.channelId}`, { methodName: "channels" })
    expect(res.status, res.text).toBe(200)
    expect(decoded(res, answerOf("account", "integrationTrigger")).output).toMatchObject({
      channels: expect.arrayContaining([{ id: discord["channelId"], name: "tooling" }])
    })
    const x = await sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "x",
      name: "Me",
      customerId: null,
      postingTimes: [],
      credentials: await seed("x", { username: "toolme" })
    })
    const who = await w.api.post(`/public/v1/integration-trigger/${x.channelId}`, { methodName: "whoami" })
    expect(decoded(who, answerOf("account", "integrationTrigger")).output).toMatchObject({ username: "toolme" })
  })
})
