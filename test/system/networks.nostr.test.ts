import { describe, expect, it } from "vitest"
import { relayEvents } from "../../services/networks/nostr/simulator.js"
import { created as createdPost, wholePost } from "../support/answers.js"
import { client } from "../support/http.js"
import { seedAccount } from "../support/simulator/index.js"
import { waitFor } from "../support/wait.js"
import { useNetworksWorld, firstChannel } from "../support/networksWorld.js"

/**
 * Nostr end to end: a channel created with the admin CLI's `--credentials` (a key and two
 * simulated relays, a Blossom media server), a post with an image and a follow-up through
 * the public API, published by the real scheduler and publisher over WebSocket through the
 * outbound rules (OUTBOUND_ALLOW names the simulator). Each note arrives once at each relay,
 * also when a relay's answer is lost.
 */

const networks = useNetworksWorld("nostr")
const { upload } = networks

const newChannel = async () => {
  const ws = await networks.sys.admin.createWorkspace("Nostr", "ultimate")
  const credentials = await seedAccount(networks.sim, "nostr", { name: "nostrich" })
  const { channelId } = await networks.sys.admin.createChannel({
    workspaceId: ws.workspaceId,
    network: "nostr",
    name: "nostr channel",
    customerId: null,
    postingTimes: [],
    credentials
  })
  return { ...ws, api: client(networks.sys.url, ws.apiKey), channelId, credentials }
}

const settled = async (api: ReturnType<typeof client>, group: string, what: string) => {
  const post = await waitFor(
    what,
    async () => {
      const c = firstChannel(wholePost(await api.get(`/public/v1/posts/${group}`)))
      const done = (s: string) => ["published", "error", "unconfirmed"].includes(s)
      return done(c.root.state) && c.thread.every((t) => done(t.state)) ? c : undefined
    },
    30_000
  )
  return post
}

/** How many times each relay took the event (a relay keeps an event once; each first arrival is a SimPost). */
const heldBy = (id: string | null | undefined) =>
  ["relay-a", "relay-b"].map((relay) => networks.sim.postsOf("nostr").filter((p) => p.id === id && p.extra["relay"] === relay).length)

describe("publishing to Nostr", () => {
  it("a note with an image and a follow-up reply: signed, sent to both relays, each once", async () => {
    const { api, apiKey, channelId, credentials } = await newChannel()
    const image = await upload(apiKey)
    const text = `Hello relays ${crypto.randomUUID().slice(0, 8)}`
    const reply = `And a reply ${crypto.randomUUID().slice(0, 8)}`
    const created = await api.post("/public/v1/posts", {
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
    const channel = await settled(api, createdPost(created).group, "nostr: published with its reply")
    expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
    expect(channel.thread.map((t) => t.state)).toEqual(["published"])
    const rootId = channel.root.releaseId
    const replyId = channel.thread[0]?.releaseId
    expect(channel.root.releaseUrl).toMatch(/nevent1/)
    expect(heldBy(rootId)).toEqual([1, 1])
    expect(heldBy(replyId)).toEqual([1, 1])
    const note = relayEvents(networks.sim, "relay-a").find((e) => e.id === rootId)
    expect(note?.pubkey).toBe(credentials["publicKey"])
    expect(note?.content.startsWith(text)).toBe(true)
    const imeta = note?.tags.find((t) => t[0] === "imeta") ?? []
    expect(imeta).toEqual(expect.arrayContaining(["m image/png"]))
    // the image is on the media server at the address the note names
    const address = imeta[1]?.slice(4) ?? ""
    expect(note?.content).toContain(address)
    expect((await fetch(address)).status).toBe(200)
    const answer = relayEvents(networks.sim, "relay-b").find((e) => e.id === replyId)
    expect(answer?.content).toBe(reply)
    expect(answer?.tags).toEqual(expect.arrayContaining([["e", rootId, expect.any(String), "root", credentials["publicKey"]]]))
  }, 60_000)

  it("relays that took the note but dropped the connection before OK: settled by asking for its id, once each", async () => {
    const { api, channelId } = await newChannel()
    const text = `lost OK ${crypto.randomUUID().slice(0, 8)}`
    networks.sim.fail({ network: "nostr", op: "publish", mode: "accept-then-reset", times: 2 })
    try {
      const created = await api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: text }], settings: {} }]
      })
      expect(created.status, created.text).toBe(200)
      const channel = await settled(api, createdPost(created).group, "nostr: settled after a lost answer")
      expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
      expect(heldBy(channel.root.releaseId)).toEqual([1, 1])
      expect(networks.sim.postsOf("nostr").filter((p) => p.text === text)).toHaveLength(2)
    } finally {
      networks.sim.clearFaults()
    }
  }, 60_000)

  it("a channel whose key is held by a NIP-46 remote signer: the note is signed there and arrives once at each relay", async () => {
    const ws = await networks.sys.admin.createWorkspace("Nostr bunker", "ultimate")
    const credentials = await seedAccount(networks.sim, "nostr", { bunker: true })
    const { channelId } = await networks.sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "nostr",
      name: "bunker channel",
      customerId: null,
      postingTimes: [],
      credentials: { bunker: credentials["bunker"], relays: credentials["relays"] }
    })
    const api = client(networks.sys.url, ws.apiKey)
    const text = `Signed remotely ${crypto.randomUUID().slice(0, 8)}`
    const created = await api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: text }], settings: {} }]
    })
    expect(created.status, created.text).toBe(200)
    const channel = await settled(api, createdPost(created).group, "nostr: published through the remote signer")
    expect(channel.root.state, JSON.stringify(channel.root.error)).toBe("published")
    expect(heldBy(channel.root.releaseId)).toEqual([1, 1])
    expect(relayEvents(networks.sim, "relay-a").find((e) => e.id === channel.root.releaseId)?.pubkey).toBe(credentials["publicKey"])
  }, 60_000)

  it("credentials without relays are refused before a channel is saved", async () => {
    const ws = await networks.sys.admin.createWorkspace("Nostr refused", "ultimate")
    const credentials = await seedAccount(networks.sim, "nostr")
    await expect(
      networks.sys.admin.createChannel({
        workspaceId: ws.workspaceId,
        network: "nostr",
        name: "no relays",
        customerId: null,
        postingTimes: [],
        credentials: { privateKey: credentials["privateKey"] }
      })
    ).rejects.toThrow(/relays/)
  }, 30_000)
})
