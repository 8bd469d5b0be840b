import { Effect, Either, Option, Ref, Schema } from "effect"
import * as nip19 from "nostr-tools/nip19"
import { finalizeEvent, generateSecretKey, verifyEvent } from "nostr-tools/pure"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { withDeadline } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { watchClientSockets } from "../../platform/outbound/testing.js"
import type { Credentials, NetworkAdapter, PublishAnswer, PublishRequest } from "../adapter.js"
import { type NetworkCall, NetworkCallLog } from "../networkCalls.js"
import { classifyNostr, makeNostrAdapterWith, verdictOf } from "./adapter.js"
import { StoredCredentials } from "./keys.js"
import { NostrEvent } from "./nostrEvent.js"
import { nostrModule, relayEvents, seedNostrAccount, seedNostrBunkerAccount } from "./simulator.js"

/** The Nostr adapter against simulated relays (NIP-01 over WebSocket) and a Blossom media server. */

const RELAY_TIMEOUT_MS = 600
let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/cat.png")

beforeAll(async () => {
  sim = await startSimulatorCore([nostrModule])
  adapter = await buildAdapter(
    makeNostrAdapterWith({ relayTimeoutMs: RELAY_TIMEOUT_MS, viewerUrl: "https://njump.me" }),
    adapterDeps(sim, new Map([[image.url, PNG]]))
  )
})
afterAll(() => sim.close())

/** A seeded account, connected: the credentials as stored. */
const connect = async (name?: string) => {
  const given = seedNostrAccount(sim, name === undefined ? {} : { name })
  const connected = await run(adapter.verify({ privateKey: given.privateKey, relays: given.relays, mediaServer: given.mediaServer }))
  return { given, credentials: connected.credentials, profile: connected.profile }
}

const eventOf = (answer: PublishAnswer) => {
  if (answer._tag !== "Pending") throw new Error(`expected Pending, got ${JSON.stringify(answer)}`)
  const event = Schema.decodeUnknownSync(NostrEvent)(answer.progress["event"])
  return { event, progress: answer.progress }
}

/** Both steps of a publish: sign (progress), then send the stored note. */
const signed = async (request: PublishRequest) => {
  const first = await run(request.item.position === 0 ? adapter.publish(request) : adapter.publishFollowUp(request))
  const { event, progress } = eventOf(first)
  return { event, again: { ...request, progress } }
}

const notesOn = (relay: string, id: string) => relayEvents(sim, relay).filter((e) => e.id === id)

/** Sends an event to a simulated relay as another client would, answered with the relay's OK. */
const sendAsClient = async (relay: string, event: unknown) => {
  const socket = new WebSocket(`${sim.baseOf("nostr").replace("http", "ws")}/${relay}`)
  await new Promise<void>((resolve) => socket.on("open", () => resolve()))
  const ok = new Promise<unknown>((resolve) => socket.once("message", (d) => resolve(JSON.parse(d.toString()))))
  socket.send(JSON.stringify(["EVENT", event]))
  const answer = await ok
  socket.close()
  return answer
}

describe("Nostr: connecting", () => {
  it("verify takes an nsec key and relays, keeps the key as hex and reads the profile (kind 0)", async () => {
    const { credentials, given, profile } = await connect("satoshi")
    expect(credentials).toMatchObject({ publicKey: given.publicKey, relays: given.relays, mediaServer: given.mediaServer })
    const decoded = nip19.decode(given.privateKey)
    expect(decoded.type === "nsec" && Buffer.from(decoded.data).toString("hex")).toBe(credentials["privateKey"])
    expect(profile).toMatchObject({ accountId: given.publicKey, name: "satoshi", profile: nip19.npubEncode(given.publicKey) })
  })

  it("verify takes a hex key too", async () => {
    const { credentials, given } = await connect()
    const again = await run(adapter.verify({ privateKey: credentials["privateKey"], relays: given.relays }))
    expect(again.profile.accountId).toBe(given.publicKey)
    expect(again.credentials["mediaServer"]).toBeUndefined()
  })

  it("without a mediaServer, takes the account's first Blossom server from its kind 10063 list (NIP-B7)", async () => {
    const { given } = await connect()
    const decoded = nip19.decode(given.privateKey)
    if (decoded.type !== "nsec") throw new Error("the seed answers an nsec key")
    const list = finalizeEvent(
      {
        kind: 10063,
        created_at: Math.floor(Date.now() / 1000),
        content: "",
        tags: [
          ["server", given.mediaServer],
          ["server", "https://cdn.example"]
        ]
      },
      decoded.data
    )
    expect(await sendAsClient("relay-b", list)).toEqual(["OK", list.id, true, ""])
    const connected = await run(adapter.verify({ privateKey: given.privateKey, relays: given.relays }))
    expect(connected.credentials["mediaServer"]).toBe(given.mediaServer)
  })

  it.each([
    [{}, "privateKey"],
    [{ privateKey: "ab".repeat(32) }, "relays"],
    [{ privateKey: "nope", relays: ["wss://relay.example"] }, "nsec"],
    [{ privateKey: "00".repeat(32), relays: ["wss://relay.example"] }, "nsec"],
    [{ privateKey: "ab".repeat(32), relays: [] }, "1 to 10"],
    [{ privateKey: "ab".repeat(32), relays: ["https://relay.example"] }, "ws://"],
    [{ privateKey: "ab".repeat(32), relays: ["wss://relay.example"], mediaServer: "ftp://x" }, "mediaServer"]
  ])("verify refuses %j with a message naming what is wrong", async (input, words) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toContain(words)
  })

  it("verify fails when no relay answers (a relay on a private address is refused, no socket opened)", async () => {
    const sockets = watchClientSockets()
    try {
      const result = await Effect.runPromise(Effect.either(adapter.verify({ privateKey: "ab".repeat(32), relays: ["ws://10.0.0.7:7777"] })))
      expect(Either.isLeft(result) && result.left.message).toMatch(/None of the Nostr relays answered.*ForbiddenAddress/)
      expect(sockets.count()).toBe(0)
    } finally {
      sockets.stop()
    }
  })
})

describe("Nostr: publishing", () => {
  it("signs the note first (its id kept as progress), then sends it: each relay holds it once, with the image", async () => {
    const { credentials, given } = await connect()
    const { again, event } = await signed(requestFor(credentials, { content: "Hello Nostr", media: [image] }))
    // nothing went to a relay before the note was kept
    expect(notesOn("relay-a", event.id)).toHaveLength(0)
    const answer = published(await run(adapter.publish(again)))
    expect(answer.releaseId).toBe(event.id)
    expect(answer.releaseUrl).toMatch(/^https:\/\/njump\.me\/nevent1/)
    for (const relay of ["relay-a", "relay-b"]) expect(notesOn(relay, event.id)).toHaveLength(1)
    const stored = notesOn("relay-a", event.id)[0]!
    expect(verifyEvent(stored)).toBe(true)
    expect(stored.pubkey).toBe(given.publicKey)
    const blobUrl = stored.tags.find((t) => t[0] === "imeta")?.[1]?.slice(4) ?? ""
    expect(stored.content).toBe(`Hello Nostr\n\n${blobUrl}`)
    expect(stored.tags.find((t) => t[0] === "imeta")).toEqual(expect.arrayContaining(["m image/png", `size ${PNG.length}`, "alt A cat", "dim 1x1"]))
    // the blob is on the media server, as uploaded
    const fetched = await fetch(blobUrl)
    expect(Buffer.from(await fetched.arrayBuffer())).toEqual(PNG)
  })

  it("each relay exchange is in the attempt's call log (EVENT per relay, a refusal with its reason)", async () => {
    const { credentials } = await connect()
    const { again } = await signed(requestFor(credentials, { content: "logged" }))
    sim.fail({ network: "nostr", op: "publish", mode: "reject", times: 1 })
    const calls = await Effect.runPromise(
      Effect.gen(function* () {
        const log = yield* Ref.make<ReadonlyArray<NetworkCall>>([])
        yield* adapter.publish(again).pipe(Effect.locally(NetworkCallLog, Option.some(log)))
        return yield* Ref.get(log)
      })
    ).finally(() => sim.clearFaults())
    expect(calls.map((c) => `${c.method} ${c.path}`).sort()).toEqual(["EVENT /nostr/relay-a", "EVENT /nostr/relay-b"])
    expect(calls.filter((c) => c.error === null)).toHaveLength(1)
    expect(calls.find((c) => c.error !== null)?.error).toMatch(/^Refused: blocked:/)
  })

  it("a follow-up answers with NIP-10 root/reply e tags and a p tag", async () => {
    const { credentials, given } = await connect()
    const root = await signed(requestFor(credentials, { content: "thread root" }))
    const rootId = published(await run(adapter.publish(root.again))).releaseId
    const first = await signed(requestFor(credentials, { content: "first reply", position: 1, previousReleaseId: rootId, rootReleaseId: rootId }))
    const firstId = published(await run(adapter.publishFollowUp(first.again))).releaseId
    expect(first.event.tags).toEqual([
      ["e", rootId, given.relays[0], "root", given.publicKey],
      ["p", given.publicKey]
    ])
    const second = await signed(requestFor(credentials, { content: "second reply", position: 2, previousReleaseId: firstId, rootReleaseId: rootId }))
    published(await run(adapter.publishFollowUp(second.again)))
    expect(second.event.tags.filter((t) => t[0] === "e").map((t) => [t[1], t[3]])).toEqual([
      [rootId, "root"],
      [firstId, "reply"]
    ])
    expect(sim.postsOf("nostr").find((p) => p.id === second.event.id)?.replyTo).toBe(firstId)
  })

  it("the same note sent again is the same event: relays answer duplicate, still one each", async () => {
    const { credentials } = await connect()
    const { again, event } = await signed(requestFor(credentials, { content: "only once" }))
    published(await run(adapter.publish(again)))
    expect(published(await run(adapter.publish(again))).releaseId).toBe(event.id)
    for (const relay of ["relay-a", "relay-b"]) expect(notesOn(relay, event.id)).toHaveLength(1)
    expect(sim.postsOf("nostr").filter((p) => p.text === "only once")).toHaveLength(2) // one per relay
  })

  it("a note changed after signing is not sent: it is signed again", async () => {
    const { credentials } = await connect()
    const { again, event } = await signed(requestFor(credentials, { content: "tamper" }))
    const forged = { ...again, progress: { event: { ...event, content: "something else" } } }
    expect((await run(adapter.publish(forged)))._tag).toBe("Pending")
    expect(sim.postsOf("nostr").filter((p) => p.text === "something else")).toHaveLength(0)
  })

  it("files without a media server are refused before signing", async () => {
    const { credentials } = await connect()
    const { mediaServer: _, ...withoutServer } = credentials
    const answer = await run(adapter.publish(requestFor(withoutServer, { content: "pic", media: [image] })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("no media server") })
  })

  it("relays on private addresses are refused with a fix naming OUTBOUND_ALLOW", async () => {
    const { credentials } = await connect()
    const { again } = await signed(requestFor(credentials, { content: "private" }))
    const elsewhere = { ...again, channel: { ...again.channel, credentials: redactedWith(credentials, { relays: ["ws://192.168.1.2:7447"] }) } }
    expect(await run(adapter.publish(elsewhere))).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("OUTBOUND_ALLOW") })
  })
})

const redactedWith = (credentials: Credentials, change: Credentials) => requestFor({ ...credentials, ...change }, { content: "" }).channel.credentials

describe("Nostr: a NIP-46 remote signer (bunker) instead of the key", () => {
  it("connects with the bunker address (connect, get_public_key), then signs the note and the upload there", async () => {
    const given = seedNostrBunkerAccount(sim, { name: "bunkered" })
    const connected = await run(adapter.verify({ bunker: given.bunker, relays: given.relays, mediaServer: given.mediaServer }))
    expect(connected.profile).toMatchObject({ accountId: given.publicKey, name: "bunkered" })
    expect(connected.credentials["privateKey"]).toBeUndefined()
    expect(connected.credentials["bunker"]).toMatchObject({ remotePubkey: expect.stringMatching(/^[0-9a-f]{64}$/), relays: [given.relays[0]] })
    const { again, event } = await signed(requestFor(connected.credentials, { content: "signed elsewhere", media: [image] }))
    expect(published(await run(adapter.publish(again))).releaseId).toBe(event.id)
    const stored = notesOn("relay-a", event.id)[0]
    expect(stored && verifyEvent(stored) && stored.pubkey).toBe(given.publicKey)
  })

  it("a wrong bunker secret is refused at connect", async () => {
    const given = seedNostrBunkerAccount(sim)
    const result = await Effect.runPromise(
      Effect.either(adapter.verify({ bunker: given.bunker.replace(/secret=[^&]+/, "secret=wrong"), relays: given.relays }))
    )
    expect(Either.isLeft(result) && result.left.message).toContain("invalid secret")
  })

  it("a signer that declines makes the item rejected, nothing sent", async () => {
    const given = seedNostrBunkerAccount(sim, { refuses: true })
    const connected = await run(adapter.verify({ bunker: given.bunker, relays: given.relays }))
    const answer = await run(adapter.publish(requestFor(connected.credentials, { content: "declined" })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("user rejected") })
    expect(sim.postsOf("nostr").filter((p) => p.text === "declined")).toHaveLength(0)
  })

  it("a signer that does not answer is nothing sent (tried again)", async () => {
    const given = seedNostrBunkerAccount(sim)
    const connected = await run(adapter.verify({ bunker: given.bunker, relays: given.relays }))
    const stored = Schema.decodeUnknownSync(StoredCredentials)(connected.credentials)
    if (stored.bunker === undefined) throw new Error("a bunker channel stores its bunker")
    const silent = { ...stored, bunker: { ...stored.bunker, remotePubkey: "ab".repeat(32) } }
    expect((await run(adapter.publish(requestFor(silent, { content: "nobody signs" }))))._tag).toBe("FailedBeforeSending")
  })

  it.each([["bunker://nothex?relay=wss://r.example"], ["bunker://" + "ab".repeat(32)], ["https://example.com"]])(
    "refuses the bunker address %s",
    async (bunker) => {
      const result = await Effect.runPromise(Effect.either(adapter.verify({ bunker, relays: ["wss://relay.example"] })))
      expect(Either.isLeft(result) && result.left.message).toContain("bunker://")
    }
  )
})

describe("Nostr: the simulated relay", () => {
  it("refuses an event whose signature does not verify, and answers REQ with EOSE", async () => {
    const { credentials } = await connect()
    const { event } = await signed(requestFor(credentials, { content: "forged" }))
    const socket = new WebSocket(`${sim.baseOf("nostr").replace("http", "ws")}/relay-a`)
    const answers: Array<unknown> = []
    await new Promise<void>((resolve) => socket.on("open", () => resolve()))
    const next = () => new Promise<unknown>((resolve) => socket.once("message", (d) => resolve(JSON.parse(d.toString()))))
    socket.send(JSON.stringify(["EVENT", { ...event, content: "forged!" }]))
    answers.push(await next())
    socket.send(JSON.stringify(["REQ", "s1", { ids: [event.id] }]))
    answers.push(await next())
    socket.close()
    expect(answers).toEqual([
      ["OK", event.id, false, expect.stringMatching(/^invalid:/)],
      ["EOSE", "s1"]
    ])
  })
})

describe("Nostr: statistics", () => {
  it("counts a note's reactions, reposts and replies, and the account's followers and notes, each event once across relays", async () => {
    const { credentials, given } = await connect()
    const { again, event } = await signed(requestFor(credentials, { content: "count me" }))
    published(await run(adapter.publish(again)))
    const now = Math.floor(Date.now() / 1000)
    const fan = generateSecretKey()
    const reaction = finalizeEvent(
      {
        kind: 7,
        created_at: now,
        content: "+",
        tags: [
          ["e", event.id],
          ["p", given.publicKey]
        ]
      },
      fan
    )
    const repost = finalizeEvent(
      {
        kind: 6,
        created_at: now,
        content: "",
        tags: [
          ["e", event.id],
          ["p", given.publicKey]
        ]
      },
      fan
    )
    const follows = finalizeEvent({ kind: 3, created_at: now, content: "", tags: [["p", given.publicKey]] }, fan)
    // the same reaction on both relays counts once
    for (const e of [reaction, repost, follows]) expect(await sendAsClient("relay-a", e)).toEqual(["OK", e.id, true, ""])
    await sendAsClient("relay-b", reaction)
    const post = await run(adapter.statistics.post(again.channel.credentials, event.id))
    expect(post._tag === "Metrics" && post.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Reactions", 1],
      ["Reposts", 1],
      ["Replies", 0]
    ])
    const channel = await run(adapter.statistics.channel(again.channel.credentials, 7))
    expect(channel._tag === "Metrics" && channel.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Followers", 1],
      ["Notes", 1]
    ])
  })

  it("says statistics are missing when no relay answers", async () => {
    const { credentials } = await connect()
    sim.fail({ network: "nostr", op: "search", mode: "5xx", times: 2 })
    try {
      const answer = await run(adapter.statistics.post(requestFor(credentials, { content: "" }).channel.credentials, "ab".repeat(32)))
      expect(answer).toMatchObject({ _tag: "Missing", message: expect.stringContaining("relays") })
    } finally {
      sim.clearFaults()
    }
  })
})

describe("Nostr: search for a lost answer", () => {
  it("finds the stored note by its id, and tells when the relays do not hold it", async () => {
    const { credentials } = await connect()
    const { again, event } = await signed(requestFor(credentials, { content: "lost answer" }))
    expect((await run(adapter.search(again)))._tag).toBe("NotFound")
    published(await run(adapter.publish(again)))
    expect(await run(adapter.search(again))).toMatchObject({ _tag: "Found", releaseId: event.id })
  })

  it("without a stored note, finds the account's recent note with the item's text", async () => {
    const { credentials } = await connect()
    const { again, event } = await signed(requestFor(credentials, { content: "by its text", media: [image] }))
    published(await run(adapter.publish(again)))
    expect(await run(adapter.search({ ...again, progress: null }))).toMatchObject({ _tag: "Found", releaseId: event.id })
  })

  it("cannot tell while a relay does not answer", async () => {
    const { credentials } = await connect()
    const { again } = await signed(requestFor(credentials, { content: "silent relay" }))
    sim.fail({ network: "nostr", op: "search", mode: "hang", times: 1 })
    try {
      expect((await run(adapter.search(again)))._tag).toBe("CannotTell")
    } finally {
      sim.clearFaults()
    }
  })
})

/**
 * The relay faults: `times` counts relay messages, and the account has two relays (2: both).
 * What the adapter answers, how many relays hold the note after it, and what a search then says.
 */
describe("Nostr: fault matrix", () => {
  const table: ReadonlyArray<
    readonly [
      string,
      PublishAnswer["_tag"],
      number,
      { readonly op: string; readonly mode: Parameters<Simulator["fail"]>[0]["mode"]; readonly times: number }
    ]
  > = [
    ["relay drops the connection before OK, the note stored", "NoAnswer", 2, { op: "publish", mode: "accept-then-reset", times: 2 }],
    ["relay drops the connection before storing", "NoAnswer", 0, { op: "publish", mode: "reset", times: 2 }],
    ["relay stores and never answers", "NoAnswer", 2, { op: "publish", mode: "accept-then-hang", times: 2 }],
    ["slow relays (no answer in time)", "NoAnswer", 0, { op: "publish", mode: "hang", times: 2 }],
    ["one slow relay, the other says OK", "Published", 1, { op: "publish", mode: "hang", times: 1 }],
    ["one relay refuses, the other says OK", "Published", 1, { op: "publish", mode: "reject", times: 1 }],
    ["every relay refuses (blocked:)", "Rejected", 0, { op: "publish", mode: "reject", times: 2 }],
    ["every relay rate-limits (rate-limited:)", "RateLimited", 0, { op: "publish", mode: "rate-limit", times: 2 }],
    ["relays answer garbage", "NoAnswer", 0, { op: "publish", mode: "garbage", times: 2 }],
    ["relays close with an error (1011)", "NoAnswer", 0, { op: "publish", mode: "5xx", times: 2 }],
    ["upgrades answered 503", "FailedBeforeSending", 0, { op: "connect", mode: "5xx", times: 2 }],
    ["upgrades answered 429", "RateLimited", 0, { op: "connect", mode: "rate-limit", times: 2 }]
  ]
  it.each(table)("%s → %s, held by %i relays", async (_name, expected, held, fault) => {
    const { credentials } = await connect()
    const { again, event } = await signed(requestFor(credentials, { content: `fault ${crypto.randomUUID()}` }))
    sim.fail({ network: "nostr", ...fault, retryAfterSeconds: 2 })
    try {
      const answer = await run(adapter.publish(again))
      expect(answer._tag).toBe(expected)
      if (answer._tag === "Rejected") expect(answer.message).toContain("blocked:")
      if (answer._tag === "RateLimited" && fault.op === "connect") expect(answer.retryAfterMs).toBe(2000)
      if (answer._tag === "Published") expect(answer.releaseId).toBe(event.id)
    } finally {
      sim.clearFaults()
    }
    expect(notesOn("relay-a", event.id).length + notesOn("relay-b", event.id).length).toBe(held)
    // a lost answer is settled by asking for the note's id
    const search = await run(adapter.search(again))
    expect(search._tag).toBe(held > 0 ? "Found" : "NotFound")
    // and sending it again is the same event: never a second copy on a relay
    published(await run(adapter.publish(again)))
    for (const relay of ["relay-a", "relay-b"]) expect(notesOn(relay, event.id)).toHaveLength(1)
    expect(sim.postsOf("nostr").filter((p) => p.id === event.id)).toHaveLength(2) // taken once by each relay
  })

  it("publish with connections refused → nothing sent (safe to send again)", async () => {
    const { credentials } = await connect()
    const { again, event } = await signed(requestFor(credentials, { content: "refused" }))
    await sim.refuseConnections(400)
    expect((await run(adapter.publish(again)))._tag).toBe("FailedBeforeSending")
    await new Promise((r) => setTimeout(r, 600))
    expect(notesOn("relay-a", event.id)).toHaveLength(0)
  })

  it.each([
    ["5xx", "FailedBeforeSending"],
    ["reject", "Rejected"],
    // the publisher's deadline ends a silent upload
    ["hang", "NoAnswer"]
  ] as const)("media host %s → %s before anything is signed", async (mode, expected) => {
    const { credentials } = await connect()
    sim.fail({ network: "nostr", op: "media", mode, times: 1 })
    try {
      const answer = await withDeadline(adapter.publish(requestFor(credentials, { content: "with a picture", media: [image] })))
      expect(answer._tag).toBe(expected)
    } finally {
      sim.clearFaults()
    }
    expect(sim.postsOf("nostr").filter((p) => p.text.startsWith("with a picture"))).toHaveLength(0)
  })
})

describe("Nostr: what the relays' answers mean together", () => {
  const note = { id: "ab".repeat(32), pubkey: "cd".repeat(32), created_at: 1, kind: 1, tags: [], content: "", sig: "ef".repeat(64) }
  const accepted = { _tag: "Accepted", relay: "wss://a" } as const
  const refused = (reason: string) => ({ _tag: "Refused", relay: "wss://b", reason }) as const
  const silent = { _tag: "Silent", relay: "wss://c", reason: "closed" } as const
  const notReached = (forbidden: boolean, retryAfterMs: number | null = null) =>
    ({ _tag: "NotReached", relay: "wss://d", reason: "refused", forbidden, retryAfterMs }) as const
  it.each([
    ["one OK among refusals and silence", [refused("blocked: no"), accepted, silent], "Published"],
    ["a silent relay among refusals", [refused("blocked: no"), silent], "NoAnswer"],
    ["every relay refuses", [refused("blocked: no"), refused("invalid: bad")], "Rejected"],
    ["every relay rate-limits", [refused("rate-limited: slow"), refused("rate-limited: slower")], "RateLimited"],
    ["refused here, not reached there", [refused("blocked: no"), notReached(false)], "FailedBeforeSending"],
    ["no relay reached", [notReached(false), notReached(false)], "FailedBeforeSending"],
    ["every relay at a refused address", [notReached(true), notReached(true)], "Rejected"],
    ["every upgrade answered 429", [notReached(false, 3000), notReached(false, 5000)], "RateLimited"]
  ] as const)("%s → %s", (_what, verdicts, expected) => {
    const answer = verdictOf(note, verdicts, "https://njump.me/x")
    expect(answer._tag).toBe(expected)
    if (answer._tag === "RateLimited" && verdicts.every((v) => v._tag === "NotReached")) expect(answer.retryAfterMs).toBe(5000)
  })

  it("an HTTP answer is never a published note", () => {
    const response = { status: 200, headers: {}, url: "https://relay.example", body: Buffer.from('{"id":"x"}') }
    expect(classifyNostr({ _tag: "Response", response })._tag).toBe("NoAnswer")
  })
})
